#pragma once
// The run engine's one phase timer: a phase is a named piece of a run (a probe, a study's
// sweep, a p2p probe over every pair) whose seconds and SM clock before and after the report
// shows (model/topology.hpp's PhaseTiming).
#include <functional>
#include <optional>

#include "model/topology.hpp"

namespace memtopo {

// Reads the SM clock in kHz, or nullopt where it cannot be read (a run without one device).
using SmClockReader = std::function<std::optional<double>()>;

// Runs `work` as (one more attempt at) `phase`: adds its seconds to phase.seconds and sets the
// SM clock before and after (when `read_clock` is set), also when `work` throws.
void time_phase(PhaseTiming& phase, const SmClockReader& read_clock,
                const std::function<void()>& work);

}  // namespace memtopo
