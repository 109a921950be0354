#include "cli/outputs.hpp"

#include <sstream>

#include "cli/printers.hpp"

#include "report/export_accel_sim.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "report/output_error.hpp"

namespace memtopo {

std::optional<OutputTarget> prepare_json_output(const std::string& json_file) {
  if (json_file.empty() || json_file == "-") return std::nullopt;
  return prepare_output(json_file);
}

std::optional<OutputTarget> prepare_export_output(const Options& options) {
  if (options.export_file.empty()) return std::nullopt;
  return prepare_output(options.export_file);
}

void write_export(const Topology& topology, const OutputTarget& target) {
  write_output(target, render_accel_sim_config(topology), /*flush_to_disk=*/true);
}

ReportTargets prepare_report_outputs(const std::string& html_file,
                                     const std::string& markdown_file,
                                     const std::string& svg_file) {
  ReportTargets targets;
  if (!svg_file.empty()) targets.svg = prepare_output(svg_file);
  if (!html_file.empty()) targets.html = prepare_output(html_file);
  if (!markdown_file.empty()) targets.markdown = prepare_markdown_output(markdown_file);
  return targets;
}

void write_report_files(const Topology& topology, const ReportTargets& targets) {
  PrintTargets files;
  files.html = targets.html;
  files.markdown = targets.markdown;
  files.svg = targets.svg;
  files.console = false;
  std::ostringstream unused;
  build_printers(files, unused, "").print(topology);
}

bool takes_checkpoints(const std::optional<OutputTarget>& json) {
  return json && json->replace_atomically;
}

void write_checkpoint(Topology& topology, const OutputTarget& json) {
  topology.run.complete = false;
  write_output(json, render_json(topology), /*flush_to_disk=*/true);
}

void write_reports(Topology& topology, const Options& options,
                   const std::optional<OutputTarget>& json, std::ostream& out,
                   const ReportTargets& reports) {
  topology.run.complete = true;
  const bool json_to_stream = options.json_file == "-";
  PrintTargets targets;
  targets.json = json;
  targets.html = reports.html;
  targets.markdown = reports.markdown;
  targets.svg = reports.svg;
  targets.json_to_stream = json_to_stream;
  const std::string what = json_to_stream ? "the JSON" : "the report";
  build_printers(targets, out,
                 "cannot write " + what +
                     " to standard output (a full disk, or a closed pipe or terminal?)")
      .print(topology);
}

}  // namespace memtopo
