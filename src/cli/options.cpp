#include "cli/options.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/subcommand_parse.hpp"
#include "cli/subcommands.hpp"
#include "version.hpp"

namespace memtopo {
namespace {

constexpr const char* kDescription =
    "memtopo discovers the memory topology of an NVIDIA GPU by measuring it: the size, line,\n"
    "sector, latency and sharing of every cache, TLB reach, shared-memory banks and bandwidth.\n"
    "Every number says how it was obtained (measured, derived, or reported by the API).\n";

constexpr const char* kExamples =
    "\nExamples:\n"
    "  memtopo                          discover GPU 0 (exit code 3 if there is no usable GPU)\n"
    "  memtopo --device 1 --json h100.json\n"
    "                                   discover GPU 1, also write the JSON report\n"
    "  memtopo --device all --only p2p  every GPU pair: peer access, link, latency and\n"
    "                                   bandwidth matrices (no per-GPU probes)\n"
    "  memtopo --only l1,l2.latency     only the L1 probes and the L2 latency (and what they "
    "need)\n"
    "  memtopo --sim sims/hopper-like.json --traces traces/\n"
    "                                   run on a simulated device, keep every raw trace as CSV\n"
    "  memtopo --sim sims/hopper-like.json --html report.html\n"
    "                                   also write the report with its plots as HTML\n"
    "  memtopo report run.json --html report.html --markdown report.md\n"
    "                                   render a saved run's JSON as HTML and markdown\n"
    "  memtopo --list                   list the probes and their ids\n";

// A week: longer is a typo, not a plan.
constexpr double kMaxWaitSeconds = 7 * 24 * 3600;

// Digits only. CLI11's own checks either print "not in range 0 to 1.79e308" in full
// (NonNegativeNumber) or let strtoull wrap "-3" around to a huge seed.
CLI::Validator non_negative_integer(std::string what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        std::uint64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
          return "'" + text + "' is not " + what;
        }
        return "";
      },
      "");
}

constexpr const char* kDeviceWhat =
    "a device index (0, 1, ...; nvidia-smi lists them), a comma-separated list of them, or 'all'";

struct DeviceList {
  bool all = false;
  std::vector<int> indices;
};

// "all", "3" or "0,1": non-negative indices, no repeats; nullopt for anything else.
std::optional<DeviceList> parse_device_list(const std::string& text) {
  if (text == "all") return DeviceList{true, {}};
  DeviceList list;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    int index = -1;
    auto [stop, error] = std::from_chars(text.data() + start, text.data() + end, index);
    if (error != std::errc() || stop != text.data() + end || index < 0) return std::nullopt;
    if (std::find(list.indices.begin(), list.indices.end(), index) != list.indices.end()) {
      return std::nullopt;
    }
    list.indices.push_back(index);
    start = end + 1;
  }
  return list;
}

// The first index a list of indices names twice ("0,1,0": 0), or nullopt.
std::optional<int> repeated_index(const std::string& text) {
  std::vector<int> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    int index = -1;
    auto [stop, error] = std::from_chars(text.data() + start, text.data() + end, index);
    if (error != std::errc() || stop != text.data() + end) return std::nullopt;
    if (std::find(seen.begin(), seen.end(), index) != seen.end()) return index;
    seen.push_back(index);
    start = end + 1;
  }
  return std::nullopt;
}

// --device N, all or a list; the text is applied by apply_device_list after parsing.
CLI::Option* add_device_option(CLI::App& app, std::string& device_text) {
  return app
      .add_option("--device", device_text,
                  "CUDA device index (default 0); 'all' or a list (0,1) runs each\n"
                  "GPU's discovery and the p2p probes over every pair (docs/multi-gpu.md)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_device_list(text)) return "";
            if (const auto twice = repeated_index(text)) {
              return "device " + std::to_string(*twice) + " is named twice in '" + text +
                     "'; name each device once";
            }
            return "'" + text + "' is not " + kDeviceWhat;
          },
          ""))
      ->type_name("N|all|N,M");
}

// One index stays a one-device run (options.device); several, or all, make a multi-device one.
void apply_device_list(const std::string& device_text, Options& options) {
  const DeviceList list = *parse_device_list(device_text);
  options.all_devices = list.all;
  if (list.indices.size() == 1) {
    options.device = list.indices.front();
  } else {
    options.devices = list.indices;
  }
}

std::string version_text() {
  return std::string("memtopo ") + kToolVersion + " (" + kGitDescribe + ")";
}

// Splits "l1, l2.size,,tex" at commas; scripts may leave blanks or empty entries, and neither
// names a probe.
std::vector<std::string> split_ids(const std::string& text) {
  std::vector<std::string> ids;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string id = text.substr(start, end - start);
    id.erase(0, id.find_first_not_of(" \t\n"));
    id.erase(id.find_last_not_of(" \t\n") + 1);
    if (!id.empty()) ids.push_back(id);
    start = end + 1;
  }
  return ids;
}

// --wait and --allow-shared: what memtopo does about a GPU that is not its alone.
std::optional<double> parse_seconds(const std::string& text) {
  double seconds = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !(seconds >= 0) ||
      seconds > kMaxWaitSeconds) {
    return std::nullopt;
  }
  return seconds;
}

void add_gpu_sharing_options(CLI::App& app, Options& options) {
  app.add_option_function<std::string>(
         "--wait",
         [&options](const std::string& text) { options.wait_seconds = parse_seconds(text); },
         "Wait at most SECONDS for another memtopo on the same GPU (default: as\n"
         "long as it takes; 0: do not wait), then stop with exit code 8")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_seconds(text)) return "";
            return "'" + text + "' is not a number of seconds (0 to " +
                   std::to_string(static_cast<long>(kMaxWaitSeconds)) + ")";
          },
          ""))
      ->type_name("SECONDS");
  app.add_flag("--allow-shared", options.allow_shared,
               "Measure even when other processes use the GPU; every result is then\n"
               "marked as measured on a shared GPU (default: stop with exit code 8)");
}

// The options naming a file or folder to write: an empty value is a usage error.
struct OutputOptions {
  CLI::Option* json;
  CLI::Option* traces;
  CLI::Option* html;
  CLI::Option* markdown;
  CLI::Option* svg;
};

OutputOptions add_output_options(CLI::App& app, Options& options) {
  OutputOptions outputs;
  outputs.json =
      app.add_option("--json", options.json_file,
                     "Also write the results as JSON to FILE ('-': stdout, instead of the table)")
          ->type_name("FILE");
  outputs.traces =
      app.add_option("--traces", options.traces_dir,
                     "Write every experiment's raw trace as CSV into DIR (created if needed)")
          ->type_name("DIR");
  outputs.html = app.add_option("--html", options.html_file,
                                "Also write the report as one self-contained HTML file (plots\n"
                                "inline, no script or network needed to view it)")
                     ->type_name("FILE");
  outputs.markdown =
      app.add_option("--markdown", options.markdown_file,
                     "Also write the report as markdown to FILE, its plots as SVG files in\n"
                     "FILE's stem + '-plots/' beside it")
          ->type_name("FILE");
  outputs.svg = app.add_option("--svg", options.svg_file,
                               "Also write the memory map (the measured hierarchy drawn as\n"
                               "boxes) as an SVG file")
                    ->type_name("FILE");
  return outputs;
}

CLI::Option* add_export_option(CLI::App& app, std::vector<std::string>& arguments) {
  return app
      .add_option("--export", arguments,
                  "Also write an export of the results to FILE; FORMAT: accel-sim\n"
                  "(a GPGPU-Sim/Accel-Sim config fragment, see docs/export.md)")
      ->expected(2)
      ->type_name("FORMAT FILE");
}

// --export FORMAT FILE into `options`; returns what is wrong with it, or "".
std::string take_export(const std::vector<std::string>& arguments, Options& options) {
  if (arguments.size() != 2 || arguments[0] != "accel-sim") {
    return "--export takes FORMAT FILE; the one FORMAT is accel-sim";
  }
  if (arguments[1] == "-") {
    return "--export needs a file: stdout carries the report ('memtopo export accel-sim "
           "RUN.json -' writes a saved run's export to stdout)";
  }
  if (arguments[1].empty()) return "--export needs a FILE; it was given an empty one";
  options.export_format = arguments[0];
  options.export_file = arguments[1];
  return "";
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  // The subcommands come first: they are what --help's reader most often looks for.
  CLI::App app(std::string(kDescription) + "\n" + subcommands_help(), "memtopo");
  app.footer(std::string(kExamples) + "\n" + exit_code::kHelpText);
  app.get_formatter()->column_width(20);
  app.set_version_flag("--version", version_text(),
                       "Print the version and git describe, then exit");

  Options options;
  std::string only;
  std::string device_text;
  CLI::Option* device = add_device_option(app, device_text);
  auto* sim = app.add_option("--sim", options.sim_file,
                             "Run on the simulated device described in FILE (see docs/)")
                  ->type_name("FILE");
  const OutputOptions outputs = add_output_options(app, options);
  // Repeated --only options add up; CLI11 joins them with commas.
  auto* only_option =
      app.add_option("--only", only,
                     "Run only these probe ids (l1.size) or element ids (l1: all its probes),\n"
                     "comma-separated; the probes they need run too")
          ->multi_option_policy(CLI::MultiOptionPolicy::Join)
          ->delimiter(',')
          ->type_name("ID,...");
  app.add_flag("--list", options.list, "List the probes with their ids and exit");
  app.add_option("--seed", options.seed, "Base seed for every random choice (default 1)")
      ->check(non_negative_integer("a seed (a non-negative integer)"))
      ->type_name("N");
  app.add_flag("--quiet", options.quiet, "No progress bar or progress lines on stderr");
  std::vector<std::string> export_arguments;
  auto* export_option = add_export_option(app, export_arguments);
  add_gpu_sharing_options(app, options);

  auto usage_error = [&err](const std::string& message) {
    err << "memtopo: " << message << "\nRun 'memtopo --help' for the options.\n";
    return CommandLine{std::nullopt, exit_code::usage};
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {  // --help or --version
      app.exit(error, out, err);
      return {std::nullopt, exit_code::ok};
    }
    std::string message = unknown_option_message(app, {argv + std::min(argc, 1), argv + argc});
    return usage_error(message.empty() ? error.what() : message);
  }
  if (device->count() > 0) apply_device_list(device_text, options);
  // Checked here rather than with CLI11's excludes(), which clutters --help. Several devices
  // with --sim are the description's multi_gpu GPUs.
  if (device->count() > 0 && sim->count() > 0 && !multi_device(options)) {
    return usage_error(
        "--device N and --sim exclude each other: --sim runs on a simulated device (--device all "
        "or a list runs the description's multi_gpu GPUs)");
  }
  // An empty value is a mistake (an unset shell variable), never "absent": --sim '' must not
  // fall back to another device, --only '' must not run everything.
  for (const auto& [option, value] : {std::pair{sim, &options.sim_file},
                                      {outputs.json, &options.json_file},
                                      {outputs.traces, &options.traces_dir},
                                      {outputs.html, &options.html_file},
                                      {outputs.markdown, &options.markdown_file},
                                      {outputs.svg, &options.svg_file}}) {
    if (option->count() > 0 && value->empty()) {
      return usage_error(option->get_name() + " needs a value; it was given an empty one");
    }
  }
  if (export_option->count() > 0) {
    if (std::string problem = take_export(export_arguments, options); !problem.empty())
      return usage_error(problem);
  }
  for (const PathUse& use : paths_of(options)) {
    if (std::string problem = option_given_as_path(use.option, use.path); !problem.empty())
      return usage_error(problem);
  }
  options.device_given = device->count() > 0;
  options.only = split_ids(only);
  if (only_option->count() > 0 && options.only.empty()) {
    return usage_error("--only needs at least one probe or element id (memtopo --list shows them)");
  }
  if (std::string problem = aliased_paths(paths_of(options)); !problem.empty()) {
    return usage_error(problem);
  }
  return {options, exit_code::ok};
}

std::vector<PathUse> paths_of(const Options& options) {
  std::vector<PathUse> uses{
      {"--sim", options.sim_file, false},          {"--json", options.json_file, true},
      {"--traces", options.traces_dir, true},      {"--html", options.html_file, true},
      {"--markdown", options.markdown_file, true}, {"--export", options.export_file, true},
      {"--svg", options.svg_file, true}};
  return uses;
}

}  // namespace memtopo
