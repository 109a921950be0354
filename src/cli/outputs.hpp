#pragma once
// Where a discovery's results go: the console report (stdout), the JSON file, the trace CSVs.
#include <optional>
#include <ostream>
#include <string>

#include "cli/options.hpp"
#include "model/topology.hpp"
#include "report/output_file.hpp"

namespace memtopo {

// Checked before a discovery starts, so that minutes of measuring do not end in a write
// error: the --json path is not a directory or a read-only file, and its directory takes a
// new file (report/output_file.hpp). Empty for no --json or --json -. Throws OutputError.
std::optional<OutputTarget> prepare_json_output(const std::string& json_file);

// --export FORMAT FILE, checked like --json before anything runs; empty without --export.
// Throws OutputError.
std::optional<OutputTarget> prepare_export_output(const Options& options);

// Writes the export (only at the end of a run: it is a view of the final results). Throws
// OutputError.
void write_export(const Topology& topology, const OutputTarget& target);

// Whether the JSON file can take checkpoints: a regular file that is replaced as a whole. A
// FIFO or a device is written once, at the end.
bool takes_checkpoints(const std::optional<OutputTarget>& json);

// Rewrites the JSON file with what was measured so far (run.complete false). Throws OutputError.
void write_checkpoint(Topology& topology, const OutputTarget& json);

// The final reports: the JSON file (run.complete true) and the console report to `out` (or,
// with --json -, the JSON there instead). Throws OutputError for the first that failed, after
// trying both, so that a full disk still shows the results and a closed stdout keeps the file.
void write_reports(Topology& topology, const Options& options,
                   const std::optional<OutputTarget>& json, std::ostream& out);

}  // namespace memtopo
