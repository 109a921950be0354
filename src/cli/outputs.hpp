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

// --html FILE, --markdown FILE and --svg FILE, checked before a discovery starts like --json
// (the markdown's plots folder too). Throws OutputError.
struct ReportTargets {
  std::optional<OutputTarget> html;
  std::optional<OutputTarget> markdown;
  std::optional<OutputTarget> svg;  // the memory map alone
};
ReportTargets prepare_report_outputs(const std::string& html_file,
                                     const std::string& markdown_file,
                                     const std::string& svg_file = "");

// Writes the HTML and markdown reports and the memory map that `targets` names. Throws
// OutputError for the first that failed, after trying all.
void write_report_files(const Topology& topology, const ReportTargets& targets);

// Whether the JSON file can take checkpoints: a regular file that is replaced as a whole. A
// FIFO or a device is written once, at the end.
bool takes_checkpoints(const std::optional<OutputTarget>& json);

// Rewrites the JSON file with what was measured so far (run.complete false). Throws OutputError.
void write_checkpoint(Topology& topology, const OutputTarget& json);

// The final reports: the JSON file (run.complete true), the HTML and markdown reports and the
// console report to `out` (or, with --json -, the JSON there instead). Throws OutputError for
// the first that failed, after trying all, so that a full disk still shows the results and a
// closed stdout keeps the files.
void write_reports(Topology& topology, const Options& options,
                   const std::optional<OutputTarget>& json, std::ostream& out,
                   const ReportTargets& reports = {});

}  // namespace memtopo
