#include "cli/outputs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "report/console.hpp"
#include "report/json_report.hpp"
#include "report/output_error.hpp"

namespace memtopo {

namespace fs = std::filesystem;

void check_json_writable(const std::string& json_file) {
  if (json_file.empty() || json_file == "-") return;
  fs::path path(json_file);
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw OutputError("cannot write " + json_file + ": it is a directory; name a file");
  }
  // The file is written as a temporary beside it and renamed, so its directory must be writable.
  fs::path directory = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(directory, error)) {
    throw OutputError("cannot write " + json_file + ": directory " + directory.string() +
                      " does not exist; create it first");
  }
  if (access(directory.c_str(), W_OK) != 0) {
    throw OutputError("cannot write " + json_file + ": directory " + directory.string() + ": " +
                      std::strerror(errno));
  }
}

void write_reports(const Topology& topology, const Options& options, std::ostream& out) {
  if (options.json_file == "-") {
    out << render_json(topology);
  } else {
    write_console(out, topology);
  }
  out.flush();
  if (!options.json_file.empty() && options.json_file != "-") {
    write_json_file(topology, options.json_file);
  }
}

}  // namespace memtopo
