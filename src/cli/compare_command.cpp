#include "cli/compare_command.hpp"

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/path_aliases.hpp"
#include "cli/subcommand_parse.hpp"
#include "model/json.hpp"
#include "report/compare.hpp"
#include "report/compare_render.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"

namespace memtopo {
namespace {

constexpr const char* kCompareDescription =
    "Compares two memtopo runs (--json files of different commits, GPUs or machines): every\n"
    "element's properties side by side, judged against the runs' own spreads. A difference\n"
    "within the spread is not a change. docs/compare.md states the rules.\n";

constexpr const char* kCompareFooter =
    "\nExit codes:\n"
    "  0    the runs agree within their spreads\n"
    "  2    usage error\n"
    "  4    a file is missing, not JSON, or not a memtopo result\n"
    "  7    cannot write the --json output\n"
    "  9    the runs differ (a property changed, appeared, vanished or became (in)conclusive,\n"
    "       a confidence crossed 0.5, or a probe's status changed)\n";

struct CompareOptions {
  std::string file_a;
  std::string file_b;
  std::string json_file;
  bool all = false;
};

}  // namespace

int run_compare_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(kCompareDescription, "memtopo compare");
  app.footer(kCompareFooter);
  CompareOptions options;
  app.add_option("A", options.file_a, "The first run (memtopo --json output)")
      ->required()
      ->type_name("A.json");
  app.add_option("B", options.file_b, "The second run")->required()->type_name("B.json");
  auto* json =
      app.add_option("--json", options.json_file,
                     "Also write the comparison as JSON (schema memtopo-compare/2) to FILE\n"
                     "('-': stdout, instead of the table)")
          ->type_name("FILE");
  app.add_flag("--all", options.all, "List every property, also those that are the same");
  if (auto code = parse_subcommand(app, argc, argv, out, err)) return *code;
  if (json->count() > 0 && options.json_file.empty()) {
    err << "memtopo compare: --json needs a value; it was given an empty one\n";
    return exit_code::usage;
  }
  const std::vector<PathUse> uses{{"A", options.file_a, false},
                                  {"B", options.file_b, false},
                                  {"--json", options.json_file, true}};
  std::string problem = option_given_as_path("--json", options.json_file);
  if (problem.empty()) problem = aliased_paths(uses);
  if (!problem.empty()) {
    err << "memtopo compare: " << problem << "\n";
    return exit_code::usage;
  }

  std::optional<OutputTarget> json_target;
  try {
    if (!options.json_file.empty() && options.json_file != "-")
      json_target = prepare_output(options.json_file);
  } catch (const OutputError& error) {
    err << "memtopo compare: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  Topology a;
  Topology b;
  try {
    a = read_run_file(options.file_a);
    b = read_run_file(options.file_b);
  } catch (const TopologyJsonError& error) {
    err << "memtopo compare: " << error.what()
        << "\n  compare reads only the JSON that memtopo --json FILE writes (gzip-compressed or "
           "not).\n";
    return exit_code::bad_input;
  }
  const Comparison comparison = compare_topologies(a, options.file_a, b, options.file_b);
  const std::string json_text =
      comparison_to_json(comparison).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  if (options.json_file == "-") {
    out << json_text;
  } else {
    out << render_comparison_text(comparison, options.all);
  }
  out.flush();
  bool written = true;
  if (json_target) {
    try {
      write_output(*json_target, json_text, /*flush_to_disk=*/true);
    } catch (const OutputError& error) {
      err << "memtopo compare: " << error.what() << "\n";
      written = false;
    }
  }
  if (!out) {
    err << "memtopo compare: cannot write to standard output (closed, full, or a pipe whose "
           "reader has gone)\n";
    written = false;
  }
  if (!written) return exit_code::cannot_write;
  return comparison.has_differences() ? exit_code::runs_differ : exit_code::ok;
}

}  // namespace memtopo
