#include "cli/report_command.hpp"

#include <string>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "cli/path_aliases.hpp"
#include "model/json.hpp"
#include "report/output_error.hpp"
#include "model/printable_text.hpp"
#include "report/memory_map.hpp"
#include "report/multi_device_report.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"
#include "study/report.hpp"

namespace memtopo {
namespace {

constexpr const char* kDescription =
    "memtopo report renders a saved run (the JSON a discovery wrote with --json) as a\n"
    "self-contained HTML file with plots, as markdown with SVG plots beside it, and/or its\n"
    "memory map alone as SVG; a multi-device run's JSON (--device all) as its HTML page and\n"
    "memory map; a study's JSON (memtopo study <id> --json) as its HTML page.\n";

constexpr const char* kExitCodes =
    "\nExit codes:\n"
    "  0    the reports were written\n"
    "  2    usage error: no RUN.json, no --html, --markdown or --svg, an empty value\n"
    "  4    RUN.json is missing, unreadable, or not a memtopo run\n"
    "  7    cannot write an output (--html, --markdown, --svg)\n";

struct ReportOptions {
  std::string run_file;
  std::string html_file;
  std::string markdown_file;
  std::string svg_file;
};

// A study's JSON: its HTML page (study/report.hpp); it has no markdown or memory map yet.
int render_study(const study::StudyReport& report, const ReportOptions& options,
                 std::ostream& err) {
  if (!options.markdown_file.empty() || !options.svg_file.empty()) {
    err << "memtopo report: " << printable_text(options.run_file)
        << " is a study's result: report writes its --html; a study has no markdown report or "
           "memory map yet.\n";
    return exit_code::usage;
  }
  try {
    write_output(prepare_output(options.html_file), study::render_study_html(report),
                 /*flush_to_disk=*/true);
  } catch (const OutputError& error) {
    err << "memtopo report: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  return exit_code::ok;
}

// A multi-device run's JSON: its HTML page and memory map; it has no markdown report yet.
int render_multi_device(const MultiDeviceReport& report, const ReportOptions& options,
                        std::ostream& err) {
  if (!options.markdown_file.empty()) {
    err << "memtopo report: " << printable_text(options.run_file)
        << " is a multi-device run: report writes its --html and --svg; it has no markdown "
           "report yet.\n";
    return exit_code::usage;
  }
  try {
    if (!options.html_file.empty()) {
      write_output(prepare_output(options.html_file), render_multi_device_html(report),
                   /*flush_to_disk=*/true);
    }
    if (!options.svg_file.empty()) {
      write_output(prepare_output(options.svg_file), render_memory_map_svg(memory_map(report)),
                   /*flush_to_disk=*/true);
    }
  } catch (const OutputError& error) {
    err << "memtopo report: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  return exit_code::ok;
}

}  // namespace

int run_report_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(kDescription, "memtopo report");
  app.footer(kExitCodes);
  ReportOptions options;
  app.add_option("RUN.json", options.run_file, "The JSON of a discovery (memtopo --json FILE)")
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
  if (options.html_file.empty() && options.markdown_file.empty() && options.svg_file.empty()) {
    return usage_error("say what to write: --html FILE, --markdown FILE, --svg FILE");
  }
  const std::vector<PathUse> uses{{"RUN.json", options.run_file, false},
                                  {"--html", options.html_file, true},
                                  {"--markdown", options.markdown_file, true},
                                  {"--svg", options.svg_file, true}};
  for (const PathUse& use : uses) {
    if (std::string problem = option_given_as_path(use.option, use.path); !problem.empty())
      return usage_error(problem);
  }
  if (std::string problem = aliased_paths(uses); !problem.empty()) return usage_error(problem);
  Topology topology;
  try {
    const nlohmann::ordered_json document = read_run_document(options.run_file);
    if (study::is_study_document(document)) {
      return render_study(study::study_from_json(document, options.run_file), options, err);
    }
    if (document.is_object() && document.contains("schema") &&
        document["schema"] == kMultiDeviceSchema) {
      return render_multi_device(multi_device_from_json(document, options.run_file), options,
                                 err);
    }
    topology = topology_from_json(document, options.run_file);
  } catch (const TopologyJsonError& error) {
    err << "memtopo report: " << error.what()
        << "\n  report reads only the JSON that memtopo --json FILE writes.\n";
    return exit_code::bad_input;
  }
  try {
    write_report_files(topology, prepare_report_outputs(options.html_file, options.markdown_file,
                                                        options.svg_file));
  } catch (const OutputError& error) {
    err << "memtopo report: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  return exit_code::ok;
}

}  // namespace memtopo
