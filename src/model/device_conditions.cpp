#include "model/device_conditions.hpp"

#include <bit>

#include "model/units.hpp"

namespace memtopo {
namespace {

struct ReasonName {
  std::uint64_t bit;
  const char* name;
};

constexpr ReasonName kReasonNames[] = {
    {clocks_event_reason::gpu_idle, "gpu_idle"},
    {clocks_event_reason::applications_clocks_setting, "applications_clocks_setting"},
    {clocks_event_reason::sw_power_cap, "sw_power_cap"},
    {clocks_event_reason::hw_slowdown, "hw_slowdown"},
    {clocks_event_reason::sync_boost, "sync_boost"},
    {clocks_event_reason::sw_thermal_slowdown, "sw_thermal_slowdown"},
    {clocks_event_reason::hw_thermal_slowdown, "hw_thermal_slowdown"},
    {clocks_event_reason::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
    {clocks_event_reason::display_clock_setting, "display_clock_setting"},
};

constexpr const char* kUnknownBitPrefix = "bit_";

}  // namespace

std::vector<std::string> clocks_event_reason_names(std::uint64_t reasons) {
  std::vector<std::string> names;
  for (const ReasonName& known : kReasonNames) {
    if (reasons & known.bit) names.emplace_back(known.name);
    reasons &= ~known.bit;
  }
  while (reasons != 0) {
    const int bit = std::countr_zero(reasons);
    names.push_back(kUnknownBitPrefix + std::to_string(bit));
    reasons &= reasons - 1;
  }
  return names;
}

std::uint64_t clocks_event_reasons_from_names(const std::vector<std::string>& names) {
  std::uint64_t mask = 0;
  for (const std::string& name : names) {
    for (const ReasonName& known : kReasonNames) {
      if (name == known.name) mask |= known.bit;
    }
    if (name.starts_with(kUnknownBitPrefix)) {
      const std::string digits = name.substr(std::string(kUnknownBitPrefix).size());
      if (!digits.empty() && digits.size() <= 2 &&
          digits.find_first_not_of("0123456789") == std::string::npos) {
        const int bit = std::stoi(digits);
        if (bit < 64) mask |= std::uint64_t{1} << bit;
      }
    }
  }
  return mask;
}

std::string describe_process(const GpuProcess& process) {
  std::string text = "pid " + std::to_string(process.pid);
  std::string details = process.name;
  if (process.used_memory_bytes) {
    if (!details.empty()) details += ", ";
    details += format_bytes(static_cast<double>(*process.used_memory_bytes));
  }
  if (!details.empty()) text += " (" + details + ")";
  return text;
}

std::string describe_processes(const std::vector<GpuProcess>& processes) {
  std::string text;
  for (const GpuProcess& process : processes) {
    if (!text.empty()) text += ", ";
    text += describe_process(process);
  }
  return text;
}

}  // namespace memtopo
