#include "cli/app.hpp"

#include <exception>
#include <string>
#include <vector>

#include "cli/compare_command.hpp"
#include "cli/discovery.hpp"
#include "cli/exit_codes.hpp"
#include "cli/export_command.hpp"
#include "cli/fleet_command.hpp"
#include "cli/multi_device.hpp"
#include "cli/options.hpp"
#include "cli/probe_list.hpp"
#include "cli/report_command.hpp"
#include "cli/study_command.hpp"

namespace memtopo {

int run_memtopo(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    // Subcommands on saved runs: each parses its own arguments.
    if (argc > 1 && std::string(argv[1]) == "compare")
      return run_compare_command(argc, argv, out, err);
    if (argc > 1 && std::string(argv[1]) == "export")
      return run_export_command(argc, argv, out, err);
    if (argc > 1 && std::string(argv[1]) == "fleet") return run_fleet_command(argc, argv, out, err);
    if (argc > 1 && std::string(argv[1]) == "report") {
      return run_report_command(argc - 1, argv + 1, out, err);
    }
    if (argc > 1 && std::string(argv[1]) == "study") {
      return run_study_command(argc, argv, out, err);
    }
    CommandLine command_line = parse_command_line(argc, argv, out, err);
    if (!command_line.options) return command_line.exit_code;
    const Options& options = *command_line.options;
    if (options.list) {
      print_probe_list(out, all_probes());
      return exit_code::ok;
    }
    std::vector<std::string> arguments(argv + (argc > 0 ? 1 : 0), argv + argc);
    if (multi_device(options)) return run_multi_device(options, arguments, out, err);
    return run_discovery(options, arguments, out, err);
  } catch (const std::exception& error) {
    err << "memtopo: internal error: " << error.what()
        << "\n  This is a bug in memtopo; please report it with the command line and this "
           "message.\n";
    return exit_code::internal_error;
  }
}

}  // namespace memtopo
