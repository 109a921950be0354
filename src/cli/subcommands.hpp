#pragma once
// memtopo's subcommands: one registration each (name, one line for --help, what runs it).
// `memtopo --help` lists them from here, `memtopo NAME ...` runs them, and a mistyped NAME gets
// the closest one as a suggestion. A new subcommand is one more entry in subcommands.cpp.
#include <ostream>
#include <string>
#include <vector>

namespace memtopo {

struct Subcommand {
  const char* name;
  const char* summary;  // one line, for memtopo --help
  // argv[0] is "memtopo", argv[1] the subcommand's name; returns the exit code.
  int (*run)(int argc, const char* const* argv, std::ostream& out, std::ostream& err);
};

const std::vector<Subcommand>& subcommands();

// The subcommand named `name`, or nullptr.
const Subcommand* find_subcommand(const std::string& name);

// The "Subcommands:" block of memtopo --help: one line each.
std::string subcommands_help();

}  // namespace memtopo
