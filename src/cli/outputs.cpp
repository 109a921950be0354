#include "cli/outputs.hpp"

#include <exception>

#include "report/console.hpp"
#include "report/export_accel_sim.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "report/memory_map.hpp"
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
  std::exception_ptr first_failure;
  try {
    if (targets.html) write_output(*targets.html, render_html(topology), /*flush_to_disk=*/true);
  } catch (const OutputError&) {
    first_failure = std::current_exception();
  }
  try {
    if (targets.markdown) write_markdown_report(topology, *targets.markdown);
  } catch (const OutputError&) {
    if (!first_failure) first_failure = std::current_exception();
  }
  try {
    if (targets.svg) write_output(*targets.svg, memory_map_svg(topology), /*flush_to_disk=*/true);
  } catch (const OutputError&) {
    if (!first_failure) first_failure = std::current_exception();
  }
  if (first_failure) std::rethrow_exception(first_failure);
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
  std::exception_ptr first_failure;
  auto write_json_file = [&] {
    try {
      if (json) write_output(*json, render_json(topology), /*flush_to_disk=*/true);
    } catch (const OutputError&) {
      if (!first_failure) first_failure = std::current_exception();
    }
  };
  // A file that is replaced goes first, so that a closed stdout cannot cost the results. A path
  // written in place (--json /dev/stdout) goes after the console report, which it may share a
  // file with: appended, not overwritten.
  const bool json_first = json && json->replace_atomically;
  if (json_first) write_json_file();
  try {
    write_report_files(topology, reports);
  } catch (const OutputError&) {
    if (!first_failure) first_failure = std::current_exception();
  }
  if (options.json_file == "-") {
    out << render_json(topology);
  } else {
    write_console(out, topology);
  }
  out.flush();
  if (!out && !first_failure) {
    const char* what = options.json_file == "-" ? "the JSON" : "the report";
    first_failure = std::make_exception_ptr(
        OutputError(std::string("cannot write ") + what +
                    " to standard output (a full disk, or a closed pipe or terminal?)"));
  }
  if (!json_first) write_json_file();
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace memtopo
