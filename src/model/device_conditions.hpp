#pragma once
// What the device was doing around a measurement: its clocks, temperature, power, NVML's
// clock-event (throttle) reasons and the other processes on it. Reported, never measured by
// memtopo itself; a simulated device has none.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memtopo {

// A process other than memtopo with a compute context on the device (NVML's list).
struct GpuProcess {
  std::uint32_t pid = 0;  // as NVML reports it (the host's PID namespace)
  std::string name;       // empty when NVML cannot name it
  std::optional<std::uint64_t> used_memory_bytes;
};

struct DeviceConditions {
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  // NVML's clock-event reasons (nvmlClocksEventReason* bits); nullopt when not reported.
  std::optional<std::uint64_t> clocks_event_reasons;
  // Other processes on the device (memtopo's own excluded); nullopt when NVML cannot list them.
  std::optional<std::vector<GpuProcess>> other_processes;
};

// NVML's clock-event reason bits (nvml.h, nvmlClocksEventReason*; stable across versions).
namespace clocks_event_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that slow the clocks down while memtopo measures. Idle is not one (the GPU
// idles between phases), nor are settings a user chose (applications, display clocks, sync
// boost): they hold the clock steady rather than move it.
inline constexpr std::uint64_t slowdowns = sw_power_cap | hw_slowdown | sw_thermal_slowdown |
                                           hw_thermal_slowdown | hw_power_brake_slowdown;
}  // namespace clocks_event_reason

// Stable snake_case names of the set bits ("sw_power_cap", ...); unknown bits as "bit_N".
std::vector<std::string> clocks_event_reason_names(std::uint64_t reasons);
// The mask of those names (the inverse; unknown names are ignored).
std::uint64_t clocks_event_reasons_from_names(const std::vector<std::string>& names);

// "pid 1234 (python3, 2.1 GiB)" for messages.
std::string describe_process(const GpuProcess& process);
// The processes, comma-separated.
std::string describe_processes(const std::vector<GpuProcess>& processes);

}  // namespace memtopo
