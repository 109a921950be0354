#include "cli/report_command.hpp"

#include <string>
#include <variant>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "cli/path_aliases.hpp"
#include "cli/printers.hpp"
#include "model/json.hpp"
#include "report/output_error.hpp"
#include "model/printable_text.hpp"
#include "report/multi_device_report.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"
#include "study/report.hpp"

namespace memtopo {
namespace {

constexpr const char* kReportDescription =
    "memtopo report renders any of memtopo's JSON files: a discovery's (memtopo --json FILE), a\n"
    "multi-device run's (--device all) or a study's (memtopo study <id> --json FILE). Without\n"
    "an output option it prints the console report; --html writes a self-contained HTML page\n"
    "with plots, --markdown markdown with SVG plots beside it, --svg the memory map alone (a\n"
    "discovery or a multi-device run).\n";

constexpr const char* kExitCodes =
    "\nExit codes:\n"
    "  0    the reports were written\n"
    "  2    usage error: no RUN.json, an empty value, --svg of a study\n"
    "  4    RUN.json is missing, unreadable, or not a memtopo run\n"
    "  7    cannot write an output (--html, --markdown, --svg, standard output)\n";

struct ReportOptions {
  std::string run_file;
  std::string html_file;
  std::string markdown_file;
  std::string svg_file;
};

// The document's kind, read from the file: a study, a multi-device run or a discovery. Throws
// TopologyJsonError when it is none of them.
struct SavedRun {
  std::variant<Topology, MultiDeviceReport, study::StudyReport> result;
  RunDocument document() const {
    return std::visit([](const auto& saved) { return RunDocument(saved); }, result);
  }
};

SavedRun read_saved_run(const std::string& path) {
  const nlohmann::ordered_json document = read_run_document(path);
  if (study::is_study_document(document)) return {study::study_from_json(document, path)};
  if (document.is_object() && document.contains("schema") &&
      document["schema"] == kMultiDeviceSchema) {
    return {multi_device_from_json(document, path)};
  }
  return {topology_from_json(document, path)};
}

// The printers the options ask for: the files, or the console report on `out` when none is
// given.
PrinterSet report_printers(const ReportOptions& options, std::ostream& out) {
  const ReportTargets files =
      prepare_report_outputs(options.html_file, options.markdown_file, options.svg_file);
  PrintTargets targets;
  targets.html = files.html;
  targets.markdown = files.markdown;
  targets.svg = files.svg;
  targets.console = !files.html && !files.markdown && !files.svg;
  return build_printers(targets, out, "cannot write the report to standard output");
}

}  // namespace

int run_report_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(kReportDescription, "memtopo report");
  app.footer(kExitCodes);
  ReportOptions options;
  app.add_option("RUN.json", options.run_file,
                 "The JSON of a discovery, a multi-device run or a study (--json FILE)")
      ->required()
      ->type_name("");
  auto* html = app.add_option("--html", options.html_file, "Write the HTML report to FILE")
                   ->type_name("FILE");
  auto* markdown =
      app.add_option("--markdown", options.markdown_file,
                     "Write the markdown report to FILE, its plots in FILE's stem + '-plots/'")
          ->type_name("FILE");
  auto* svg = app.add_option("--svg", options.svg_file, "Write the memory map to FILE (SVG)")
                  ->type_name("FILE");
  auto usage_error = [&err](const std::string& message) {
    err << "memtopo report: " << message << "\nRun 'memtopo report --help' for the options.\n";
    return exit_code::usage;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {  // --help
      app.exit(error, out, err);
      return exit_code::ok;
    }
    return usage_error(error.what());
  }
  for (const auto* option : {html, markdown, svg}) {
    if (option->count() > 0 && option->as<std::string>().empty()) {
      return usage_error(option->get_name() + " needs a value; it was given an empty one");
    }
  }
  if (options.run_file.empty()) return usage_error("RUN.json needs a value; it was given ''");
  const std::vector<PathUse> uses{{"RUN.json", options.run_file, false},
                                  {"--html", options.html_file, true},
                                  {"--markdown", options.markdown_file, true},
                                  {"--svg", options.svg_file, true}};
  for (const PathUse& use : uses) {
    if (std::string problem = option_given_as_path(use.option, use.path); !problem.empty())
      return usage_error(problem);
  }
  if (std::string problem = aliased_paths(uses); !problem.empty()) return usage_error(problem);
  SavedRun saved;
  try {
    saved = read_saved_run(options.run_file);
  } catch (const TopologyJsonError& error) {
    err << "memtopo report: " << error.what()
        << "\n  report reads only the JSON that memtopo --json FILE writes (gzip-compressed or "
           "not).\n";
    return exit_code::bad_input;
  }
  const RunDocument document = saved.document();
  try {
    const PrinterSet printers = report_printers(options, out);
    if (const auto unsupported = printers.unsupported(document); !unsupported.empty()) {
      err << "memtopo report: " << printable_text(options.run_file) << " is "
          << document.kind_name() << ", which has no " << unsupported.front() << " output.\n";
      return exit_code::usage;
    }
    printers.print(document);
  } catch (const OutputError& error) {
    err << "memtopo report: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  return exit_code::ok;
}

}  // namespace memtopo
