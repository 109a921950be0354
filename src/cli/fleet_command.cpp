#include "cli/fleet_command.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/path_aliases.hpp"
#include "cli/run_info.hpp"
#include "cli/subcommand_parse.hpp"
#include "model/json.hpp"
#include "model/printable_text.hpp"
#include "report/fleet.hpp"
#include "report/fleet_render.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"

namespace memtopo {
namespace {

constexpr const char* kFleetDescription =
    "Finds the GPUs of a fleet (a cluster's runs, one JSON per GPU) that differ from the other\n"
    "GPUs of their model: per property the fleet's median and robust spread, and the GPUs\n"
    "outside both their own measured spread and the fleet's. docs/fleet.md states the rule\n"
    "and how to run memtopo on every GPU of a cluster through Slurm.\n";

constexpr const char* kFleetFooter =
    "\nA directory stands for the *.json files in it (not its subdirectories); a multi-device\n"
    "run (--device all) counts as one GPU per device.\n"
    "\nExit codes:\n"
    "  0    no GPU differs from its model's fleet (or every model is too small to judge)\n"
    "  2    usage error\n"
    "  4    a file is missing, not JSON, or not a memtopo result; a directory holds none\n"
    "  7    cannot write the --json or --html output\n"
    "  9    some GPUs differ from their fleet (the outliers table names them)\n";

struct FleetOptions {
  std::vector<std::string> inputs;
  std::string json_file;
  std::string html_file;
};

class NoRunsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The files the inputs name: a file as given, a directory's *.json files in name order.
std::vector<std::string> run_files(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (!std::filesystem::is_directory(input, error)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(input, error)) {
      if (entry.path().extension() == ".json" && !entry.is_directory()) {
        found.push_back(entry.path().string());
      }
    }
    if (error)
      throw NoRunsError(printable_text(input) + ": cannot be listed (" + error.message() + ")");
    if (found.empty()) throw NoRunsError(printable_text(input) + ": holds no .json file");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<RunEntry> read_fleet(const std::vector<std::string>& inputs) {
  std::vector<RunEntry> entries;
  for (const std::string& file : run_files(inputs)) {
    for (RunEntry& entry : read_run_entries(file)) entries.push_back(std::move(entry));
  }
  return entries;
}

std::optional<OutputTarget> target_of(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  return prepare_output(path);
}

// Every output is tried, whatever failed before it; false when one failed.
bool write_outputs(const Fleet& fleet, const FleetOptions& options,
                   const std::optional<OutputTarget>& json, const std::optional<OutputTarget>& html,
                   const std::vector<std::string>& arguments, std::ostream& out,
                   std::ostream& err) {
  const std::string json_text =
      fleet_to_json(fleet).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  out << (options.json_file == "-" ? json_text : render_fleet_text(fleet));
  out.flush();
  bool written = true;
  const auto write = [&](const std::optional<OutputTarget>& target, const std::string& text) {
    if (!target) return;
    try {
      write_output(*target, text, /*flush_to_disk=*/true);
    } catch (const OutputError& error) {
      err << "memtopo fleet: " << error.what() << "\n";
      written = false;
    }
  };
  write(json, json_text);
  if (html) write(html, render_fleet_html(fleet, start_run_info(arguments)));
  if (!out) {
    err << "memtopo fleet: cannot write to standard output (closed, full, or a pipe whose "
           "reader has gone)\n";
    written = false;
  }
  return written;
}

std::string usage_problem(const FleetOptions& options) {
  std::vector<PathUse> uses;
  for (const std::string& input : options.inputs) uses.push_back({"input", input, false});
  uses.push_back({"--json", options.json_file, true});
  uses.push_back({"--html", options.html_file, true});
  std::string problem = option_given_as_path("--json", options.json_file);
  if (problem.empty()) problem = option_given_as_path("--html", options.html_file);
  if (problem.empty() && options.html_file == "-") problem = "--html needs a file, not '-'";
  if (problem.empty()) problem = aliased_paths(uses);
  return problem;
}

}  // namespace

int run_fleet_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(kFleetDescription, "memtopo fleet");
  app.footer(kFleetFooter);
  FleetOptions options;
  app.add_option("RUNS", options.inputs, "Directories of runs, or run files (memtopo --json)")
      ->required()
      ->type_name("DIR-or-FILE...");
  app.add_option("--json", options.json_file,
                 "Also write the fleet as JSON (schema memtopo-fleet/1) to FILE\n"
                 "('-': stdout, instead of the table)")
      ->type_name("FILE");
  app.add_option("--html", options.html_file, "Write an HTML page with a strip plot per property")
      ->type_name("FILE");
  if (auto code = parse_subcommand(app, argc, argv, out, err)) return *code;
  if (const std::string problem = usage_problem(options); !problem.empty()) {
    err << "memtopo fleet: " << problem << "\n";
    return exit_code::usage;
  }
  std::optional<OutputTarget> json, html;
  try {
    json = target_of(options.json_file);
    html = target_of(options.html_file);
  } catch (const OutputError& error) {
    err << "memtopo fleet: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  std::vector<RunEntry> entries;
  try {
    entries = read_fleet(options.inputs);
  } catch (const std::runtime_error& error) {  // TopologyJsonError, NoRunsError
    err << "memtopo fleet: " << error.what()
        << "\n  fleet reads only the JSON that memtopo --json FILE writes (gzip-compressed or "
           "not).\n";
    return exit_code::bad_input;
  }
  const Fleet fleet = analyse_fleet(entries);
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!write_outputs(fleet, options, json, html, arguments, out, err))
    return exit_code::cannot_write;
  return fleet.outliers() > 0 ? exit_code::runs_differ : exit_code::ok;
}

}  // namespace memtopo
