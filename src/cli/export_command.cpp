#include "cli/export_command.hpp"

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "cli/path_aliases.hpp"
#include "cli/subcommand_parse.hpp"
#include "model/json.hpp"
#include "report/export_accel_sim.hpp"
#include "report/output_error.hpp"
#include "report/output_file.hpp"
#include "report/run_file.hpp"

namespace memtopo {

int run_export_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(
      "Writes an export of a saved memtopo run. FORMAT accel-sim: a GPGPU-Sim/Accel-Sim\n"
      "config fragment; every option says its sources and confidence, and what was not\n"
      "measured is listed at the end (docs/export.md).\n",
      "memtopo export");
  app.footer(
      "\nExit codes: 0 written, 2 usage error, 4 RUN.json missing or not a memtopo result,\n"
      "7 FILE cannot be written.\n");
  std::string format;
  std::string run_file;
  std::string output;
  app.add_option("FORMAT", format, "accel-sim")->required()->check(CLI::IsMember({"accel-sim"}));
  app.add_option("RUN", run_file, "A run's JSON (memtopo --json FILE)")
      ->required()
      ->type_name("RUN.json");
  app.add_option("FILE", output, "Where to write the export ('-': stdout)")->required();
  if (auto code = parse_subcommand(app, argc, argv, out, err)) return *code;
  if (output.empty()) {
    err << "memtopo export: FILE is empty; name a file, or '-' for stdout.\n";
    return exit_code::usage;
  }
  if (std::string problem = aliased_paths({{"RUN", run_file, false}, {"FILE", output, true}});
      !problem.empty()) {
    err << "memtopo export: " << problem << "\n";
    return exit_code::usage;
  }

  std::optional<OutputTarget> target;
  try {
    if (output != "-") target = prepare_output(output);
  } catch (const OutputError& error) {
    err << "memtopo export: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  Topology topology;
  try {
    topology = read_run_file(run_file);
  } catch (const TopologyJsonError& error) {
    err << "memtopo export: " << error.what()
        << "\n  export reads only the JSON that memtopo --json FILE writes (gzip-compressed or "
           "not).\n";
    return exit_code::bad_input;
  }
  const std::string text = render_accel_sim_config(topology);
  if (!target) {
    out << text;
    out.flush();
    if (out) return exit_code::ok;
    err << "memtopo export: cannot write to standard output (closed, full, or a pipe whose "
           "reader has gone)\n";
    return exit_code::cannot_write;
  }
  try {
    write_output(*target, text, /*flush_to_disk=*/true);
  } catch (const OutputError& error) {
    err << "memtopo export: " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  return exit_code::ok;
}

}  // namespace memtopo
