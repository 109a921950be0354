#pragma once
// The run engine's one clock: how long a run or a phase took, and the SM clock a backend
// reports around it. Every layer that times something uses these (issue 34: four copies).
#include <chrono>
#include <optional>

namespace memtopo {

class Backend;

using Clock = std::chrono::steady_clock;

// Seconds from `start` to now.
double seconds_since(Clock::time_point start);

// The SM clock the backend reports now, or nullopt where it cannot tell (it reports 0).
std::optional<double> sm_clock_khz(Backend& backend);

}  // namespace memtopo
