#include "model/startup_clock.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

namespace memtopo {
namespace {

using Clock = std::chrono::steady_clock;

struct StartupClock {
  std::mutex mutex;
  std::optional<Clock::time_point> start;
  Clock::time_point last;
  std::vector<StartupStep> steps;
};

StartupClock& clock_state() {
  static StartupClock state;
  return state;
}

}  // namespace

void start_startup_clock() {
  StartupClock& state = clock_state();
  std::lock_guard lock(state.mutex);
  state.start = Clock::now();
  state.last = *state.start;
  state.steps.clear();
}

bool startup_clock_running() {
  StartupClock& state = clock_state();
  std::lock_guard lock(state.mutex);
  return state.start.has_value();
}

void mark_startup(const std::string& name) {
  StartupClock& state = clock_state();
  std::lock_guard lock(state.mutex);
  if (!state.start) return;
  const auto now = Clock::now();
  state.steps.push_back({name, std::chrono::duration<double>(now - state.last).count()});
  state.last = now;
}

double seconds_since_startup() {
  StartupClock& state = clock_state();
  std::lock_guard lock(state.mutex);
  if (!state.start) return 0;
  return std::chrono::duration<double>(Clock::now() - *state.start).count();
}

std::vector<StartupStep> take_startup_steps() {
  StartupClock& state = clock_state();
  std::lock_guard lock(state.mutex);
  state.start.reset();
  return std::exchange(state.steps, {});
}

}  // namespace memtopo
