#pragma once
// One discovery from parsed options to written reports; returns the process exit code.
#include <ostream>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/run_engine.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// `arguments` (argv without the program name) are recorded in the report. Results go to
// `out`, errors, notes and progress to `err`.
int run_discovery(const Options& options, const std::vector<std::string>& arguments,
                  std::ostream& out, std::ostream& err);

// What run_discovery does for one device, up to the reports: opens options.device (taking its
// lock), records its facts, judges the other processes on it, runs `probes` into
// run.topology (no checkpoints, no traces). Returns exit_code::ok, or the exit code of a device
// that could not be opened or is in use (after saying why on `err`).
int discover_device(const Options& options, const std::vector<Probe*>& probes,
                    const std::vector<std::string>& arguments, DeviceRun& run, std::ostream& err);

}  // namespace memtopo
