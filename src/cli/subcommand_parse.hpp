#pragma once
// The command-line parsing every subcommand (compare, export) shares: --help prints to `out`
// and stops with 0; an error prints to `err` with a pointer to --help and stops with the usage
// exit code.
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"

namespace memtopo {

// Parses argv[2..] (argv[1] is the subcommand's name). nullopt: go on; else the exit code.
inline std::optional<int> parse_subcommand(CLI::App& app, int argc, const char* const* argv,
                                           std::ostream& out, std::ostream& err) {
  app.get_formatter()->column_width(20);
  std::vector<std::string> arguments;
  for (int i = argc - 1; i >= 2; --i) arguments.emplace_back(argv[i]);  // CLI11 takes them reversed
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {
      app.exit(error, out, err);
      return exit_code::ok;
    }
    err << app.get_name() << ": " << error.what() << "\nRun '" << app.get_name()
        << " --help' for the options.\n";
    return exit_code::usage;
  }
  return std::nullopt;
}

}  // namespace memtopo
