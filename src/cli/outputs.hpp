#pragma once
// Where a discovery's results go: the console report (stdout), the JSON file, the trace CSVs.
#include <ostream>
#include <string>

#include "cli/options.hpp"
#include "model/topology.hpp"

namespace memtopo {

// Checked before a discovery starts, so that minutes of measuring do not end in a write
// error: the --json file's directory exists and is writable. Throws OutputError.
void check_json_writable(const std::string& json_file);

// The console report to `out` (or, with --json -, the JSON there instead), then the JSON file.
// Throws OutputError.
void write_reports(const Topology& topology, const Options& options, std::ostream& out);

}  // namespace memtopo
