#include "cli/app.hpp"

#include <unistd.h>

#include <exception>
#include <string>
#include <vector>

#include "cli/discovery.hpp"
#include "cli/exit_codes.hpp"
#include "cli/multi_device.hpp"
#include "cli/options.hpp"
#include "cli/probe_list.hpp"
#include "cli/progress_display.hpp"
#include "cli/subcommands.hpp"
#include "model/printable_text.hpp"
#include "model/suggest.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kListWidth = 120;

// memtopo takes no positional argument: a first word that is not an option is a subcommand.
int unknown_subcommand(const std::string& word, std::ostream& err) {
  std::vector<std::string> names;
  for (const Subcommand& subcommand : subcommands()) names.push_back(subcommand.name);
  err << "memtopo: unknown subcommand '" << printable_text(word) << "'"
      << did_you_mean(word, names) << "\nRun 'memtopo --help' for the subcommands and options.\n";
  return exit_code::usage;
}

}  // namespace

int run_memtopo(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    // Subcommands (cli/subcommands.cpp registers them): each parses its own arguments.
    if (argc > 1) {
      if (const Subcommand* subcommand = find_subcommand(argv[1]))
        return subcommand->run(argc, argv, out, err);
      if (argv[1][0] != '-' && argv[1][0] != '\0') return unknown_subcommand(argv[1], err);
    }
    CommandLine command_line = parse_command_line(argc, argv, out, err);
    if (!command_line.options) return command_line.exit_code;
    const Options& options = *command_line.options;
    if (options.list) {
      // The terminal's width (COLUMNS, the ioctl on stdout), else 120 (a pipe, a file).
      print_probe_list(out, all_probes(), terminal_width_of(STDOUT_FILENO, kListWidth));
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
