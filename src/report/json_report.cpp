#include "report/json_report.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "model/json.hpp"
#include "report/output_error.hpp"

namespace memtopo {

std::string render_json(const Topology& topology) {
  return topology_to_json(topology).dump(2) + "\n";
}

void write_json_file(const Topology& topology, const std::filesystem::path& path) {
  const std::string text = render_json(topology);
  std::filesystem::path temporary = path;
  temporary += ".partial";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) {
      throw OutputError("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    file << text;
    file.flush();
    if (!file) {
      std::string reason = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw OutputError("cannot write " + path.string() + ": " + reason);
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw OutputError("cannot write " + path.string() + ": " + error.message());
  }
}

}  // namespace memtopo
