#include "report/gpu_conditions_text.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "model/units.hpp"

namespace memtopo {
namespace {

// The smallest and largest of the values a field had in any phase's samples.
struct Range {
  std::optional<double> low;
  std::optional<double> high;

  void add(const std::optional<double>& value) {
    if (!value) return;
    low = low ? std::min(*low, *value) : *value;
    high = high ? std::max(*high, *value) : *value;
  }
  // "1980 MHz", or "1755-1980 MHz"; "" when no phase had the value.
  std::string text(const std::string& unit, int decimals = 0) const {
    if (!low) return "";
    const std::string from = format_number(*low, decimals);
    const std::string to = format_number(*high, decimals);
    return (from == to ? from : from + "-" + to) + " " + unit;
  }
};

Range range_of(const RunInfo& run,
               const std::function<std::optional<double>(const DeviceConditions&)>& field) {
  Range range;
  for (const PhaseTiming& phase : run.phases) {
    for (const auto* sample : {&phase.conditions_before, &phase.conditions_after}) {
      if (*sample) range.add(field(**sample));
    }
  }
  return range;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// The slowdown reasons NVML reported in any sample, by name.
std::string slowdowns_seen(const RunInfo& run) {
  std::uint64_t reasons = 0;
  for (const PhaseTiming& phase : run.phases) {
    for (const auto* sample : {&phase.conditions_before, &phase.conditions_after}) {
      if (*sample) reasons |= (*sample)->clocks_event_reasons.value_or(0);
    }
  }
  reasons &= clocks_event_reason::slowdowns;
  return reasons ? join(clocks_event_reason_names(reasons), ", ") : "none";
}

}  // namespace

std::string shared_gpu_banner(const RunInfo& run) {
  if (!run.shared_gpu) return "";
  std::string text = "SHARED GPU: other processes used the GPU";
  if (!run.other_gpu_processes.empty())
    text += " (" + describe_processes(run.other_gpu_processes) + ")";
  return text + "; every result may be disturbed by their work\n\n";
}

std::string gpu_sharing_header(const Topology& topology) {
  const DeviceFacts& d = topology.device;
  std::vector<std::string> parts;
  if (!d.uuid.empty()) parts.push_back(d.uuid);
  if (!d.mig.empty()) parts.push_back("MIG " + d.mig);
  if (!d.mps.empty()) parts.push_back("MPS " + d.mps);
  std::string out = parts.empty() ? "" : "  " + join(parts, "; ") + "\n";
  // On a line of its own: the lock file's path holds the UUID again and would pass 120 columns.
  if (!topology.run.gpu_lock.empty()) out += "  lock " + topology.run.gpu_lock + "\n";
  return out;
}

std::string conditions_summary(const RunInfo& run) {
  std::vector<std::string> repeated;
  std::vector<std::string> marked;
  Range overhead;
  for (const PhaseTiming& phase : run.phases) {
    if (phase.attempts > 1) repeated.push_back(phase.name);
    if (!phase.disturbances.empty()) marked.push_back(phase.name);
    if (phase.timing_overhead) overhead.add(phase.timing_overhead->p50);
  }
  std::string out;
  const Range sm = range_of(run, [](const DeviceConditions& c) { return c.sm_clock_mhz; });
  if (sm.low) {
    std::vector<std::string> parts = {"SM clock " + sm.text("MHz")};
    const auto add = [&parts](const std::string& label, const std::string& text) {
      if (!text.empty()) parts.push_back(label + text);
    };
    add("memory clock ",
        range_of(run, [](const DeviceConditions& c) { return c.memory_clock_mhz; }).text("MHz"));
    add("", range_of(run, [](const DeviceConditions& c) { return c.temperature_c; }).text("C"));
    add("", range_of(run, [](const DeviceConditions& c) { return c.power_w; }).text("W", 1));
    out += "  Device around the phases (NVML): " + join(parts, ", ") + "\n";
    // A line of its own: the reasons can be long (sw_power_cap, sw_thermal_slowdown, ...).
    out += "  Clock slowdowns (NVML): " + slowdowns_seen(run) + "\n";
    out += "  Phases repeated: " + (repeated.empty() ? "none" : join(repeated, ", ")) +
           "; marked as disturbed: " + (marked.empty() ? "none" : join(marked, ", ")) + "\n";
  }
  if (overhead.low)
    out += "  Timing overhead (p50 per phase): " + overhead.text("cycles", 1) + "\n";
  return out;
}

}  // namespace memtopo
