#include "run/sm_clock_log.hpp"

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

std::vector<double> SmClockLog::at_run_clocks(const std::vector<double>& rates,
                                              const std::vector<double>& rate_clocks_khz,
                                              std::size_t count) const {
  if (rates.size() != rate_clocks_khz.size() ||
      std::ranges::any_of(rate_clocks_khz, [](double khz) { return !(khz > 0); })) {
    return {};
  }
  std::vector<double> out;
  for (const double clock : quantiles(count)) {
    for (std::size_t i = 0; i < rates.size(); ++i)
      out.push_back(rates[i] / rate_clocks_khz[i] * clock);
  }
  return out;
}

nlohmann::json SmClockLog::evidence(std::size_t count) const {
  return {{"readings", readings_.size()}, {"quantiles", quantiles(count)}};
}

}  // namespace memtopo
