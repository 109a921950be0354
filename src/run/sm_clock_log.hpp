#pragma once
// The SM clock readings of one run: every chase and every stream that measured the clock during
// its kernel adds its reading (ProbeContext::run and run_stream). On an H200 the clock moves
// between phases (1961-1980 MHz within one discovery) while it stays put over one probe's
// launches, so a rate bound by the SM clock varies between runs beyond its launches' spread;
// this log is what lets such a rate's spread include the clock (bandwidth_findings).
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

// The SM clock readings a clock-bound rate's spread takes in: evenly spaced ranks of the run's
// log, so that a long run's thousands of readings weigh as much as a short one's dozens.
constexpr std::size_t kRunClockQuantiles = 16;

class SmClockLog {
 public:
  // Ignores unknown (0) readings.
  void add(double khz) {
    if (khz > 0) readings_.push_back(khz);
  }
  void add(const std::vector<double>& khz) {
    for (const double reading : khz) add(reading);
  }
  const std::vector<double>& readings() const { return readings_; }
  // At most `count` readings at evenly spaced ranks of the sorted log (all of them when there
  // are fewer), from the lowest to the highest: the clock's range and shape in a few values.
  std::vector<double> quantiles(std::size_t count) const;
  // A rate bound by the SM clock at every clock of the run so far: each rate over the SM clock
  // measured while it ran (`rate_clocks_khz`, one per rate), times each of `count` quantiles of
  // the log. Empty when a rate's clock is unknown or the log holds no reading.
  std::vector<double> at_run_clocks(const std::vector<double>& rates,
                                    const std::vector<double>& rate_clocks_khz,
                                    std::size_t count) const;
  // What a rate at the run's clocks shows of them: the readings' count and `count` quantiles.
  nlohmann::json evidence(std::size_t count) const;

 private:
  std::vector<double> readings_;
};

}  // namespace memtopo
