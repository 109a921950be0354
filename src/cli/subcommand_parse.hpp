#pragma once
// The command-line parsing every subcommand (compare, export) shares: --help prints to `out`
// and stops with 0; an error prints to `err` with a pointer to --help and stops with the usage
// exit code.
#include <algorithm>
#include <cctype>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.hpp"
#include "model/printable_text.hpp"
#include "model/suggest.hpp"

namespace memtopo {

// "unknown option '--devcie'; did you mean '--device'?" for the first argument that looks like
// an option `app` does not have ("" when every one is known: the parse failed for another
// reason). CLI11's own message lists the leftovers in reverse order, without a suggestion.
inline std::string unknown_option_message(const CLI::App& app,
                                          const std::vector<std::string>& arguments) {
  std::vector<std::string> known;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
    for (const std::string& name : option->get_snames()) known.push_back("-" + name);
  }
  for (const std::string& argument : arguments) {
    if (argument.size() < 2 || argument[0] != '-' || !std::isalpha(static_cast<unsigned char>(
                                                         argument[argument[1] == '-' ? 2 : 1])))
      continue;
    const std::string name = argument.substr(0, argument.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return "unknown option '" + printable_text(name) + "'" + did_you_mean(name, known);
  }
  return "";
}

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
    std::string message = unknown_option_message(app, {argv + 2, argv + argc});
    if (message.empty()) message = error.what();
    err << app.get_name() << ": " << message << "\nRun '" << app.get_name()
        << " --help' for the options.\n";
    return exit_code::usage;
  }
  return std::nullopt;
}

}  // namespace memtopo
