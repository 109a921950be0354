#include "cli/study_command.hpp"

#include <chrono>
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

using Clock = std::chrono::steady_clock;

constexpr const char* kStudyHelp =
    "Usage: memtopo study <id> [--device N | --sim FILE] [--json FILE] [--html FILE]\n"
    "                          [--traces DIR]\n"
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
    "  --traces DIR       Write the raw samples as CSV into DIR\n"
    "  --topology FILE    A discovery JSON of this device: the findings tie to its line,\n"
    "                     sector and bank values (without it they say \"not measured\")\n"
    "  --seed N           Base seed for every random choice (default 1)\n"
    "  --quiet            No progress lines on stderr\n";

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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

// Writes --traces files as DIR/<study>_<name>.csv; keeps the first error.
class StudyTraceFiles : public study::TraceFiles {
 public:
  StudyTraceFiles(std::filesystem::path directory, std::string study)
      : directory_(std::move(directory)), study_(std::move(study)) {}

  void write(const std::string& name, const std::string& header,
             const std::vector<std::string>& rows) override {
    if (!error_.empty()) return;
    std::string text = header + "\n";
    for (const std::string& row : rows) text += row + "\n";
    try {
      const std::filesystem::path path = directory_ / (study_ + "_" + name + ".csv");
      write_output(prepare_output(path.string()), text, /*flush_to_disk=*/false);
      ++files_;
    } catch (const OutputError& failure) {
      error_ = failure.what();
    }
  }
  const std::string& error() const { return error_; }
  std::size_t files() const { return files_; }
  const std::filesystem::path& directory() const { return directory_; }

 private:
  std::filesystem::path directory_;
  std::string study_;
  std::string error_;
  std::size_t files_ = 0;
};

// What must hold before the device is touched: the outputs can be written, the inputs read.
struct Plan {
  const study::Study* study = nullptr;
  std::optional<OutputTarget> json;
  std::optional<OutputTarget> html;
  std::optional<StudyTraceFiles> traces;
  std::optional<Topology> topology;
  OutputLocks locks;  // the outputs above, against a second memtopo writing them
};

int make_plan(const Options& options, const StudyArguments& arguments, Plan& plan,
              std::ostream& err) {
  try {
    plan.json = prepare_json_output(options.json_file);
    if (!options.html_file.empty()) plan.html = prepare_output(options.html_file);
    if (!options.traces_dir.empty()) {
      std::filesystem::create_directories(options.traces_dir);
      check_directory_writable(options.traces_dir, "--traces directory");
      plan.traces.emplace(options.traces_dir, plan.study->id);
      plan.locks.lock_directory(options.traces_dir,
                                "--traces " + printable_text(options.traces_dir));
    }
    plan.locks.lock_file(plan.json);
    plan.locks.lock_file(plan.html);
  } catch (const OutputError& error) {
    err << "memtopo study: " << error.what() << "\n";
    return exit_code::cannot_write;
  } catch (const std::filesystem::filesystem_error& error) {
    err << "memtopo study: cannot create the --traces directory: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  if (!sim_file_exists(options, "memtopo study", err)) return exit_code::bad_input;
  if (arguments.topology_file) {
    try {
      plan.topology = read_run_file(*arguments.topology_file);
    } catch (const TopologyJsonError& error) {
      err << "memtopo study: --topology: " << error.what()
          << "\n  Give a JSON file that `memtopo --json FILE` wrote.\n";
      return exit_code::bad_input;
    }
  }
  return exit_code::ok;
}

int outcome_exit_code(const study::StudyReport& report, const Options& options, bool write_failed) {
  if (write_failed) return exit_code::cannot_write;
  // A signal during the final writes too: the run is complete, but it was asked to stop.
  if (report.header.run.interrupted || interrupt_signal() != 0) {
    return interrupt_signal() ? exit_code::interrupted_by(interrupt_signal())
                              : exit_code::interrupted;
  }
  if (report.header.run.shared_gpu && !options.allow_shared) return exit_code::gpu_in_use;
  if (report.result.status == "failed") return exit_code::probe_failed;
  if (report.result.status == "skipped") return exit_code::study_skipped;
  return exit_code::ok;
}

// The JSON file first (replaced atomically), then the console report (or the JSON, for
// --json -) on `out`. Returns false after saying what could not be written.
bool write_study_reports(const study::StudyReport& report, const Options& options, const Plan& plan,
                         std::ostream& out, std::ostream& err) {
  bool written = true;
  const std::string json = study::render_study_json(report);
  if (plan.json) {
    try {
      write_output(*plan.json, json, /*flush_to_disk=*/true);
    } catch (const OutputError& error) {
      err << "memtopo study: " << error.what() << "\n";
      written = false;
    }
  }
  if (plan.html) {
    try {
      write_output(*plan.html, study::render_study_html(report), /*flush_to_disk=*/true);
    } catch (const OutputError& error) {
      err << "memtopo study: " << error.what() << "\n";
      written = false;
    }
  }
  out << (options.json_file == "-" ? json : study::render_study_console(report));
  out.flush();
  if (!out) {
    err << "memtopo study: cannot write the report to standard output\n";
    written = false;
  }
  if (report.header.run.simulated && options.json_file == "-") {
    err << "memtopo: " << simulated_banner(report.header.run.sim_file) << "\n";
  }
  return written;
}

study::StudyResult measure(const Options& options, Plan& plan, Backend& device,
                           study::StudyReport& report, std::ostream& err) {
  study::PhaseTimer phases(device);
  study::StudyContext context{
      .backend = device,
      .phases = phases,
      .progress =
          [&err, quiet = options.quiet](const std::string& line) {
            if (!quiet) err << "memtopo study: " << line << "\n";
          },
      .interrupted = interrupt_requested,
      .seed = options.seed,
      .topology = plan.topology,
      .traces = plan.traces ? &*plan.traces : nullptr,
  };
  study::StudyResult result = study::run_study(*plan.study, context);
  for (const PhaseTiming& phase : phases.phases()) report.header.run.phases.push_back(phase);
  return result;
}

int run_planned(const Options& options, Plan& plan, const std::vector<std::string>& arguments,
                std::ostream& out, std::ostream& err) {
  const auto run_start = Clock::now();
  install_interrupt_handler();
  study::StudyReport report;
  report.header.run = start_run_info(arguments);

  const auto setup_start = Clock::now();
  int exit = exit_code::ok;
  GpuClaim claim;  // before the backend: the lock outlives the device's use
  std::optional<OpenedBackend> opened = open_device(options, claim, err, exit);
  if (!opened) return exit;
  report.header.run.simulated = opened->simulated;
  report.header.run.sim_file = printable_text(opened->sim_file);
  report.header.device = opened->backend->facts();
  Backend& device = *opened->backend;
  exit = check_gpu_sharing(device, opened->simulated, claim, options, report.header, err);
  if (exit != exit_code::ok) return exit;
  report.header.run.phases.emplace_back("setup", seconds_since(setup_start));

  report.result = measure(options, plan, device, report, err);
  report.header.run.interrupted = report.result.status == "interrupted";
  if (plan.traces && !plan.traces->error().empty()) {
    report.header.warnings.push_back("raw traces are incomplete: " + plan.traces->error());
  }
  report.header.run.duration_seconds = seconds_since(run_start);
  const bool written = write_study_reports(report, options, plan, out, err);
  if (plan.traces && !options.quiet) {
    err << "memtopo study: " << plan.traces->files() << " trace files in "
        << printable_text(plan.traces->directory().string()) << "\n";
  }
  if (report.result.status == "skipped" || report.result.status == "failed") {
    err << "memtopo study: " << report.result.id << " " << report.result.status << ": "
        << report.result.reason << "\n";
  }
  const bool traces_failed = plan.traces && !plan.traces->error().empty();
  return outcome_exit_code(report, options, !written || traces_failed);
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
  if (!options.markdown_file.empty() || !options.export_format.empty()) {
    return usage_error(err, std::string(options.markdown_file.empty() ? "--export" : "--markdown") +
                                " is for a discovery; a study writes --json and --html");
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
