#include "probes/core/sm_clock_log.hpp"

#include <algorithm>

namespace memtopo {

std::vector<double> SmClockLog::quantiles(std::size_t count) const {
  std::vector<double> sorted = readings_;
  std::ranges::sort(sorted);
  if (sorted.size() <= count || count < 2) return sorted;
  std::vector<double> out;
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(sorted[i * (sorted.size() - 1) / (count - 1)]);
  }
  return out;
}

}  // namespace memtopo
