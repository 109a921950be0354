#include "run/phase.hpp"

#include "backend/backend.hpp"
#include "run/clock.hpp"

namespace memtopo {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::optional<double> sm_clock_khz(Backend& backend) {
  const double khz = backend.current_sm_clock_khz();
  if (!(khz > 0)) return std::nullopt;  // 0: the backend cannot tell
  return khz;
}

void time_phase(PhaseTiming& phase, const SmClockReader& read_clock,
                const std::function<void()>& work) {
  if (read_clock) phase.sm_clock_khz_before = read_clock();
  const auto start = Clock::now();
  auto record = [&] {
    phase.seconds += seconds_since(start);
    if (read_clock) phase.sm_clock_khz_after = read_clock();
  };
  try {
    work();
  } catch (...) {
    record();
    throw;
  }
  record();
}

}  // namespace memtopo
