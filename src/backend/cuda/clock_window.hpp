#pragma once
// What the runners make of a kernel's timing records: the median of raw cycle samples (the
// timing overhead), and the SM clock from a window of clock64 cycles over %globaltimer ns.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace memtopo {

// %globaltimer may advance in steps of up to a microsecond: a shorter window gives no clock.
inline constexpr std::uint64_t kMinClockWindowNs = 20'000;

// The median of raw cycle samples (the mean of the middle two for an even count); 0 for none.
inline double median_cycles(std::vector<std::uint32_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  if (values.size() % 2 == 1) return values[middle];
  return (static_cast<double>(values[middle - 1]) + values[middle]) / 2;
}

// The SM clock in kHz over a window (cycles per ns is GHz; times 1e6 gives kHz), or 0 when
// the window is shorter than kMinClockWindowNs.
inline double clock_khz_of(std::uint64_t cycles, std::uint64_t ns) {
  return ns >= kMinClockWindowNs ? static_cast<double>(cycles) / static_cast<double>(ns) * 1e6
                                 : 0.0;
}

}  // namespace memtopo
