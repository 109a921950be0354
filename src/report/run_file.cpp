#include "report/run_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/printable_text.hpp"

namespace memtopo {

Topology read_run_file(const std::string& path) {
  const std::string shown = printable_text(path);
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) {
    throw TopologyJsonError(shown + ": no such file");
  }
  if (std::filesystem::is_directory(status)) {
    throw TopologyJsonError(shown + ": is a directory, not a memtopo JSON file");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw TopologyJsonError(shown + ": cannot be read (" + std::strerror(errno) + ")");
  std::string text;
  char buffer[1 << 16];
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(file.gcount()));
    if (text.size() > kMaxRunFileBytes) {
      throw TopologyJsonError(shown + ": larger than " + std::to_string(kMaxRunFileBytes >> 20) +
                              " MiB; a memtopo result is far smaller");
    }
  }
  if (file.bad()) throw TopologyJsonError(shown + ": read failed");
  return topology_from_json_text(text, path);
}

}  // namespace memtopo
