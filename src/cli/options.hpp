#pragma once
// The command line: what the user asked for, parsed and validated, nothing run yet.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/path_aliases.hpp"

namespace memtopo {

struct Options {
  int device = 0;
  bool device_given = false;  // --device named explicitly
  // --device all, or --device 0,1: a multi-device run (per-GPU discovery on each, then the p2p
  // family over every pair; docs/multi-gpu.md). `devices` lists the named indices in order
  // (empty with all_devices: every visible GPU). A single index stays a one-device run.
  std::vector<int> devices;
  bool all_devices = false;
  std::string sim_file;           // --sim FILE: run on this simulated device
  std::string json_file;          // --json FILE ("-" = stdout, instead of the console report)
  std::string traces_dir;         // --traces DIR: one CSV per experiment
  std::string html_file;          // --html FILE: the report as one self-contained HTML file
  std::string markdown_file;      // --markdown FILE: the report as markdown, plots beside it
  std::string svg_file;           // --svg FILE: the memory map alone (report/memory_map.hpp)
  std::vector<std::string> only;  // --only: probe and element ids, split at commas
  bool list = false;              // --list: list probes and exit
  std::uint64_t seed = 1;         // --seed: base of every random choice
  bool quiet = false;             // --quiet: no progress lines on stderr
  // --wait SECONDS: how long to wait for another memtopo on the same GPU (unset: as long as it
  // takes); --allow-shared: measure a GPU that other processes use, marking every result.
  std::optional<double> wait_seconds;
  bool allow_shared = false;
  // --export FORMAT FILE: also write an export of the results (FORMAT: accel-sim).
  std::string export_format;
  std::string export_file;
};

inline bool multi_device(const Options& options) {
  return options.all_devices || options.devices.size() > 1;
}

struct CommandLine {
  std::optional<Options> options;  // empty: stop now with exit_code (help, version, error)
  int exit_code = 0;
};

// The files and folders a discovery with these options reads and writes, for aliased_paths
// (which parse_command_line has checked): --sim, --json, --traces, --html, --markdown, --export.
std::vector<PathUse> paths_of(const Options& options);

// Parses argv. --help and --version print to `out` and return exit code 0; errors print to
// `err` with a pointer to --help and return the usage exit code.
CommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

}  // namespace memtopo
