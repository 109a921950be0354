#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/changepoint.hpp"

namespace memtopo {
namespace {

// Integer latency jitter in [-2, 2] like the simulator's jitter_cycles = 2. Built from the raw
// mt19937 output, whose sequence the standard fixes (its distributions it does not).
class Jitter {
 public:
  explicit Jitter(std::uint32_t seed) : engine_(seed) {}
  double operator()() { return static_cast<double>(engine_() % 5) - 2.0; }
  std::size_t index_below(std::size_t n) { return engine_() % n; }

 private:
  std::mt19937 engine_;
};

// Levels of `length` samples each, with jitter.
std::vector<double> staircase(const std::vector<double>& levels, std::size_t length,
                              Jitter& jitter) {
  std::vector<double> series;
  for (double level : levels)
    for (std::size_t i = 0; i < length; ++i) series.push_back(level + jitter());
  return series;
}

TEST(ChangePoint, SquaredErrorCostFromPrefixSums) {
  const std::vector<double> x{1, 2, 3, 10};
  const SquaredErrorCost cost(x);
  EXPECT_EQ(cost.size(), 4u);
  EXPECT_DOUBLE_EQ(cost(0, 3), 2);   // mean 2
  EXPECT_DOUBLE_EQ(cost(0, 4), 50);  // mean 4: 9 + 4 + 1 + 36
  EXPECT_DOUBLE_EQ(cost(3, 4), 0);
  EXPECT_DOUBLE_EQ(cost(1, 4), 38);  // mean 5: 9 + 4 + 25
  // Large levels do not cancel away a small spread.
  const std::vector<double> big{1e9, 1e9 + 1, 1e9 + 2};
  EXPECT_DOUBLE_EQ(SquaredErrorCost(big)(0, 3), 2);
}

TEST(ChangePoint, RobustNoiseSigma) {
  const std::vector<double> alternating{0, 1, 0, 1, 0};  // differences +-1: variance 1 / 2
  EXPECT_NEAR(robust_noise_sigma(alternating), std::sqrt(0.5), 1e-12);
  // Differences (1, -1, 1, -1, 1, -1, 1, 300, -300): median 1, MAD 0 -> 2 about the median,
  // limit 14.8: the +-300 (an outlier) are left out; kept: four 0s and three 2s.
  const std::vector<double> with_outlier{0, 1, 0, 1, 0, 1, 0, 1, 301, 1};
  EXPECT_NEAR(robust_noise_sigma(with_outlier), std::sqrt(12.0 / 7.0 / 2.0), 1e-12);
  const std::vector<double> step{5, 5, 5, 5, 900, 900, 900, 900};  // one big difference
  EXPECT_DOUBLE_EQ(robust_noise_sigma(step), 0);
  const std::vector<double> two{1, 100};
  EXPECT_DOUBLE_EQ(robust_noise_sigma(two), 0);
}

TEST(ChangePoint, WinsorizeClipsSlowOutliersAndKeepsSteps) {
  const std::vector<double> spike{10, 10, 10, 500, 10, 10, 10};
  const std::vector<double> expected{10, 10, 10, 13, 10, 10, 10};
  EXPECT_EQ(winsorize_above_running_median(spike, 2, 3.0), expected);
  const std::vector<double> dip{10, 10, 10, 2, 10, 10, 10};  // fast samples are not disturbances
  EXPECT_EQ(winsorize_above_running_median(dip, 2, 3.0), dip);
  const std::vector<double> step{0, 0, 0, 0, 100, 100, 100, 100};
  EXPECT_EQ(winsorize_above_running_median(step, 3, 1.0), step);
  // An outlier beside the step tips the window of the last low sample to the high level; the
  // low sample must stay low.
  const std::vector<double> tipped{0, 0, 0, 0, 500, 0, 100, 100, 100, 100};
  const std::vector<double> kept{0, 0, 0, 0, 1, 0, 100, 100, 100, 100};
  EXPECT_EQ(winsorize_above_running_median(tipped, 3, 1.0), kept);
}

TEST(ChangePoint, SingleStepFoundExactly) {
  Jitter jitter(1);
  std::vector<double> series = staircase({33, 260}, 100, jitter);
  EXPECT_EQ(opt_single_change_point(series), 100u);
  // An uneven split and a small step (L2 far against DRAM: 10 cycles under +-2 jitter).
  series = staircase({440}, 37, jitter);
  const auto tail = staircase({450}, 163, jitter);
  series.insert(series.end(), tail.begin(), tail.end());
  EXPECT_EQ(opt_single_change_point(series), 37u);
  EXPECT_EQ(change_points(series), std::vector<std::size_t>{37});
}

TEST(ChangePoint, SingleChangeNeedsRoom) {
  const std::vector<double> three{1, 2, 3};
  EXPECT_THROW(opt_single_change_point(three), std::invalid_argument);  // min_segment 2
  ChangePointOptions one;
  one.min_segment = 1;
  EXPECT_EQ(opt_single_change_point(three, one), 1u);  // {1} | {2, 3} ties {1, 2} | {3}: earliest
  EXPECT_TRUE(change_points(three).empty());
}

TEST(ChangePoint, StaircaseFoundExactlyWithNoExtraPoints) {
  // L1 -> L2 near -> L2 far -> DRAM, uneven level lengths, several noise draws.
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    Jitter jitter(seed);
    std::vector<double> series = staircase({33}, 40, jitter);
    for (auto [level, length] : {std::pair{260.0, 25}, {440.0, 60}, {450.0, 30}}) {
      const auto part = staircase({level}, static_cast<std::size_t>(length), jitter);
      series.insert(series.end(), part.begin(), part.end());
    }
    const std::vector<std::size_t> expected{40, 65, 125};
    EXPECT_EQ(change_points(series), expected) << "seed " << seed;
  }
}

TEST(ChangePoint, FlatNoisySeriesHasNoChangePoint) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    Jitter jitter(seed);
    EXPECT_TRUE(change_points(staircase({260}, 2000, jitter)).empty()) << "seed " << seed;
  }
  // Exactly repeated latencies: sigma 0 falls back to min_noise, so one odd sample is no change.
  std::vector<double> constant(500, 33.0);
  constant[250] = 34;
  EXPECT_TRUE(change_points(constant).empty());
}

TEST(ChangePoint, RareOutliersDoNotMoveOrAddChangePoints) {
  // 0.1 % of 4000 accesses 400 cycles slow, one of them just before the step, where it pulls
  // the least-squares split towards itself.
  Jitter jitter(7);
  std::vector<double> series = staircase({33, 260}, 2000, jitter);
  series[1998] += 400;
  for (int i = 0; i < 3; ++i) series[jitter.index_below(series.size())] += 400;
  EXPECT_EQ(opt_single_change_point(series), 2000u);
  EXPECT_EQ(change_points(series), std::vector<std::size_t>{2000});

  // The same series without the robust step: the outliers win, so the test above can fail.
  ChangePointOptions plain;
  plain.robust = false;
  EXPECT_EQ(opt_single_change_point(series, plain), 1998u);
  EXPECT_GT(change_points(series, plain).size(), 1u);
}

TEST(ChangePoint, OutliersInAFlatSeriesAddNothing) {
  Jitter jitter(11);
  std::vector<double> series = staircase({260}, 5000, jitter);
  for (int i = 0; i < 5; ++i) series[jitter.index_below(series.size())] += 400;
  EXPECT_TRUE(change_points(series).empty());
  ChangePointOptions plain;
  plain.robust = false;
  EXPECT_FALSE(change_points(series, plain).empty());
}

}  // namespace
}  // namespace memtopo
