#include "cli/study_command.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/gpu_claim.hpp"
#include "cli/interrupt.hpp"
#include "cli/open_backend.hpp"
#include "cli/options.hpp"
#include "cli/output_lock.hpp"
#include "cli/outputs.hpp"
#include "cli/printers.hpp"
#include "cli/run_engine.hpp"
#include "cli/run_info.hpp"
#include "model/json.hpp"
#include "model/printable_text.hpp"
#include "model/suggest.hpp"
#include "report/console.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"
#include "study/report.hpp"
#include "study/study.hpp"

namespace memtopo {
namespace {

constexpr const char* kStudyHelp =
    "Usage: memtopo study <id> [--device N | --sim FILE] [--json FILE] [--html FILE]\n"
    "                          [--markdown FILE] [--traces DIR]\n"
    "                          [--topology FILE] [--seed N] [--quiet] [--wait SECONDS]\n"
    "                          [--allow-shared]\n"
    "       memtopo study --list\n"
    "\n"
    "Runs one code-pattern study (docs/studies.md) on one device: its tables, where each curve\n"
    "changes and why, and its phase timings.\n"
    "\n"
    "Options (as for a discovery; memtopo --help says more):\n"
    "  --list             List the studies with their ids and exit\n"
    "  --device N         CUDA device index (default 0)\n"
    "  --sim FILE         Run on the simulated device described in FILE\n"
    "  --json FILE        Also write the result as JSON (schema memtopo-study/1; '-': stdout)\n"
    "  --html FILE        Also write one self-contained HTML page: findings, a chart per\n"
    "                     table, the console report\n"
    "  --markdown FILE    Also write the same as markdown, the charts as SVG files in FILE's\n"
    "                     stem + '-plots/'\n"
    "  --traces DIR       Write the raw samples as CSV into DIR\n"
    "  --topology FILE    A discovery JSON of this device: the findings tie to its line,\n"
    "                     sector and bank values (without it they say \"not measured\")\n"
    "  --seed N           Base seed for every random choice (default 1)\n"
    "  --quiet            No progress lines on stderr\n";

std::string study_ids() {
  std::string ids;
  for (const study::Study& study : study::all_studies())
    ids += (ids.empty() ? "" : ", ") + study.id;
  return ids;
}

void print_study_list(std::ostream& out) {
  for (const study::Study& study : study::all_studies()) {
    out << study.id << "\n    " << study.title << "\n    needs: " << study.needs << "\n";
  }
}

int usage_error(std::ostream& err, const std::string& message) {
  err << "memtopo study: " << message << "\nRun 'memtopo study --help' for the options.\n";
  return exit_code::usage;
}

// The study's own arguments taken out of argv: the id (the first word after "study") and
// --topology FILE; the rest is parsed as a discovery's options.
struct StudyArguments {
  std::string id;
  std::optional<std::string> topology_file;
  std::vector<std::string> rest;  // for parse_command_line, program name first
  bool help = false;
};

std::optional<StudyArguments> split_arguments(int argc, const char* const* argv, std::ostream& err,
                                              int& exit) {
  StudyArguments parsed;
  parsed.rest.push_back("memtopo study");
  const std::string kTopology = "--topology";
  for (int i = 2; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      parsed.help = true;
    } else if (argument == kTopology || argument.rfind(kTopology + "=", 0) == 0) {
      std::string value = argument == kTopology ? (i + 1 < argc ? argv[++i] : "")
                                                : argument.substr(kTopology.size() + 1);
      if (value.empty()) {
        exit = usage_error(err, "--topology needs a discovery JSON file");
        return std::nullopt;
      }
      parsed.topology_file = value;
    } else if (i == 2 && !argument.empty() && argument[0] != '-') {
      parsed.id = argument;
    } else {
      parsed.rest.push_back(argument);
    }
  }
  return parsed;
}

// What must hold before the device is touched: the outputs can be written, the inputs read.
struct Plan : OutputPlan {
  const study::Study* study = nullptr;
  std::optional<Topology> discovery;  // --topology FILE
};

int make_plan(const Options& options, const StudyArguments& arguments, Plan& plan,
              std::ostream& err) {
  if (int code = plan_outputs(options, "memtopo study", plan, err); code != exit_code::ok)
    return code;
  if (arguments.topology_file) {
    try {
      plan.discovery = read_run_file(*arguments.topology_file);
    } catch (const TopologyJsonError& error) {
      err << "memtopo study: --topology: " << error.what()
          << "\n  Give a JSON file that `memtopo --json FILE` wrote.\n";
      return exit_code::bad_input;
    }
  }
  return exit_code::ok;
}

// The JSON file first (replaced atomically), then the console report (or the JSON, for
// --json -) on `out`. Returns false after saying what could not be written.
bool write_study_reports(const study::StudyReport& report, const Options& options, const Plan& plan,
                         std::ostream& out, std::ostream& err) {
  // The JSON first, whatever its kind of file: a study always wrote it first.
  PrinterSet printers;
  if (plan.json) printers.add(make_file_printer(Format::json, *plan.json, "--json"));
  PrintTargets targets;
  targets.html = plan.reports.html;
  targets.markdown = plan.reports.markdown;
  targets.json_to_stream = options.json_file == "-";
  printers.add(build_printers(targets, out, "cannot write the report to standard output"));
  bool written = true;
  printers.print_each(report, [&](const OutputError& error) {
    err << "memtopo study: " << error.what() << "\n";
    written = false;
  });
  if (report.header.run.simulated && options.json_file == "-") {
    err << "memtopo: " << simulated_banner(report.header.run.sim_file) << "\n";
  }
  return written;
}

// Runs the study into report.result, its phases into the report's header; returns the trace
// write error, if any.
std::string measure(const Options& options, Plan& plan, Backend& device,
                    study::StudyReport& report, std::ostream& err) {
  Measurement measurement(
      options, device, report.header, plan.trace_writer.get(),
      [&plan] { return plan.study->id; },
      [&err, quiet = options.quiet](const std::string& line) {
        if (!quiet) err << "memtopo study: " << line << "\n";
      });
  study::StudyContext context{measurement.context(), plan.discovery};
  report.result = study::run_study(*plan.study, context);
  return measurement.trace_error();
}

int run_planned(const Options& options, Plan& plan, const std::vector<std::string>& arguments,
                std::ostream& out, std::ostream& err) {
  const auto run_start = Clock::now();
  install_interrupt_handler();
  study::StudyReport report;
  DeviceRun run;
  run.topology.run = start_run_info(arguments);
  if (int exit = open_run_device(options, Clock::now(), run, err); exit != exit_code::ok)
    return exit;
  report.header = std::move(run.topology);

  const std::string trace_error = measure(options, plan, *run.opened->backend, report, err);
  report.header.run.interrupted = report.result.status == "interrupted";
  if (!trace_error.empty()) {
    report.header.warnings.push_back("raw traces are incomplete: " + trace_error);
  }
  report.header.run.duration_seconds = seconds_since(run_start);
  const bool written = write_study_reports(report, options, plan, out, err);
  if (plan.trace_writer && !options.quiet) {
    err << "memtopo study: " << plan.trace_writer->files_written() << " trace files in "
        << printable_text(plan.trace_writer->directory().string()) << "\n";
  }
  if (report.result.status == "skipped" || report.result.status == "failed") {
    err << "memtopo study: " << report.result.id << " " << report.result.status << ": "
        << report.result.reason << "\n";
  }
  const ProbeOutcome outcome{report.result.id, report.result.status, report.result.reason};
  return outcome_exit_code(report.header.run, {&outcome, 1}, options,
                           !written || !trace_error.empty(), SkipMeans::run_skipped);
}

}  // namespace

int run_study_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  int exit = exit_code::ok;
  std::optional<StudyArguments> arguments = split_arguments(argc, argv, err, exit);
  if (!arguments) return exit;
  if (arguments->help) {
    out << kStudyHelp << "\nStudies: " << study_ids() << "\n\n" << exit_code::kHelpText;
    return exit_code::ok;
  }
  std::vector<const char*> rest;
  for (const std::string& argument : arguments->rest) rest.push_back(argument.c_str());
  CommandLine command_line =
      parse_command_line(static_cast<int>(rest.size()), rest.data(), out, err);
  if (!command_line.options) return command_line.exit_code;
  const Options& options = *command_line.options;
  if (options.list) {
    print_study_list(out);
    return exit_code::ok;
  }
  if (!options.only.empty()) return usage_error(err, "--only selects probes of a discovery");
  if (const char* option = !options.export_format.empty() ? "--export"
                           : !options.svg_file.empty()      ? "--svg"
                                                            : nullptr) {
    return usage_error(err, std::string(option) + " is for a discovery; a study writes --json, "
                                                  "--html and --markdown");
  }
  if (arguments->id.empty()) {
    return usage_error(err,
                       "name a study first: memtopo study <id>; the studies are: " + study_ids());
  }
  if (arguments->topology_file) {
    std::vector<PathUse> uses = paths_of(options);
    uses.push_back({"--topology", *arguments->topology_file, false});
    if (std::string problem = option_given_as_path("--topology", *arguments->topology_file);
        !problem.empty())
      return usage_error(err, problem);
    if (std::string problem = aliased_paths(uses); !problem.empty())
      return usage_error(err, problem);
  }
  Plan plan;
  plan.study = study::find_study(arguments->id);
  if (!plan.study) {
    std::vector<std::string> names;
    for (const study::Study& study : study::all_studies()) names.push_back(study.id);
    return usage_error(err, "unknown study '" + printable_text(arguments->id) + "'" +
                                did_you_mean(arguments->id, names) +
                                " The studies are: " + study_ids());
  }
  if (int code = make_plan(options, *arguments, plan, err); code != exit_code::ok) return code;
  std::vector<std::string> all_arguments(argv + 1, argv + argc);
  return run_planned(options, plan, all_arguments, out, err);
}

}  // namespace memtopo
