#pragma once
// The time from main() to the first probe (issue 35 item 3), in named steps: options, the
// probe registry and the output locks, loading the driver, the GPU lock, NVML, the context,
// the SM survey, the sharing check. main() starts the clock; the CLI and the backend mark the
// end of each step; the discovery writes the steps as run.startup and their sum as the phases
// "startup" and "setup". Process-wide because the steps happen in code that knows nothing of
// the run (the backend's constructor), and a process starts once.
#include <string>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// Called first in main(): every later mark counts from here. A discovery that finds the clock
// stopped (tests that call run_memtopo directly) starts it itself.
void start_startup_clock();
bool startup_clock_running();

// Ends the step `name`: the seconds since the previous mark are its own. Ignored while the
// clock is stopped (a backend opened outside a discovery's startup).
void mark_startup(const std::string& name);

// Seconds since the clock started (0 when stopped).
double seconds_since_startup();

// The steps marked so far, in order; the clock stops and forgets them (the first probe starts).
std::vector<StartupStep> take_startup_steps();

}  // namespace memtopo
