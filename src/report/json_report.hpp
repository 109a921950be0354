#pragma once
// The JSON report: the Topology in its versioned schema (see model/json.hpp), pretty-printed.
#include <filesystem>
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// The document as text, indented by two spaces, ending in a newline.
std::string render_json(const Topology& topology);

// Writes render_json() to `path` as report/output_file.hpp describes: through a temporary file
// in the same directory that is then renamed (a symlink's target is replaced, a FIFO or device
// written in place), so an earlier result is never left half-overwritten. Throws OutputError.
void write_json_file(const Topology& topology, const std::filesystem::path& path);

}  // namespace memtopo
