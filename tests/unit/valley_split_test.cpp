// The split of a latency sample at a valley: recorded H200 DRAM chases (two broad modes and a
// long tail, which the least-squares split cannot separate), and synthetic samples that must
// stay one mode however long their tail.
#include "analysis/valley_split.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "backend/chain.hpp"  // SplitMix64: seeded, portable
#include "recorded_h200_histograms.hpp"

namespace memtopo {
namespace {

// A normal sample (Box-Muller on a seeded generator).
double normal(SplitMix64& rng, double mean, double sigma) {
  const double u = std::max(rng.uniform(), 1e-12), v = rng.uniform();
  return mean + sigma * std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
}

TEST(ValleySplit, RecordedH200DramLatencySplitsIntoNearAndFar) {
  const std::vector<double> x = samples_of(kH200DramLatency);
  ASSERT_EQ(x.size(), 4096u);
  // The least-squares split cuts off the tail, and its near/far split is too narrow for it.
  EXPECT_FALSE(split_two_modes(x).bimodal) << split_two_modes(x).reason;
  const ModeSplit m = split_at_valley(x);
  ASSERT_TRUE(m.bimodal) << m.reason;
  EXPECT_GT(m.threshold, 580);
  EXPECT_LT(m.threshold, 660);
  EXPECT_NEAR(m.fast.p50, 540, 10);
  EXPECT_NEAR(m.slow_share, 0.55, 0.05);  // the far mode and the tail
  EXPECT_TRUE(split_latency_modes(x).bimodal);
}

TEST(ValleySplit, RecordedH200DramTlbMissSplitsIntoNearAndFar) {
  const ModeSplit m = split_at_valley(samples_of(kH200DramTlbMiss));
  ASSERT_TRUE(m.bimodal) << m.reason;
  EXPECT_GT(m.threshold, 670);
  EXPECT_LT(m.threshold, 770);
  EXPECT_NEAR(m.fast.p50, 640, 15);
  // Near and far differ as the L2's near and far hits do (about 180 cycles on an H200).
  EXPECT_GT(m.slow.p50 - m.fast.p50, 150);
}

TEST(ValleySplit, OneModeWithALongTailIsOneMode) {
  SplitMix64 rng(11);
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) {
    x.push_back(rng.uniform() < 0.8 ? normal(rng, 600, 20) : 600 + 1400 * rng.uniform());
  }
  const ModeSplit m = split_at_valley(x);
  EXPECT_FALSE(m.bimodal) << m.reason;
  EXPECT_FALSE(split_latency_modes(x).bimodal);
}

TEST(ValleySplit, JitterAndASkewedModeAreOneMode) {
  SplitMix64 rng(12);
  std::vector<double> jitter, skewed;
  for (int k = 0; k < 4096; ++k) {
    jitter.push_back(std::round(normal(rng, 280, 3)));
    skewed.push_back(500 - 60 * std::log(std::max(rng.uniform(), 1e-12)));  // exponential tail
  }
  EXPECT_FALSE(split_at_valley(jitter).bimodal) << split_at_valley(jitter).reason;
  EXPECT_FALSE(split_at_valley(skewed).bimodal) << split_at_valley(skewed).reason;
}

TEST(ValleySplit, AFewWholeCycleValuesAreOneMode) {
  // 22, 23 and 25 cycles: empty bins between the values, but one number within 10 % of all.
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) x.push_back(k % 8 == 0 ? 25 : 22 + k % 2);
  EXPECT_FALSE(split_at_valley(x).bimodal) << split_at_valley(x).reason;
}

TEST(ValleySplit, ASmallBumpInTheTailIsNoMode) {
  SplitMix64 rng(13);
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) {
    x.push_back(rng.uniform() < 0.97 ? normal(rng, 600, 20) : normal(rng, 900, 10));
  }
  EXPECT_FALSE(split_at_valley(x).bimodal) << split_at_valley(x).reason;
}

TEST(ValleySplit, TwoBroadModesWithATailAreTwo) {
  SplitMix64 rng(14);
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) {
    const double u = rng.uniform();
    x.push_back(u < 0.4   ? normal(rng, 540, 15)
                : u < 0.8 ? normal(rng, 720, 30)
                          : 780 + 1200 * rng.uniform());
  }
  const ModeSplit m = split_at_valley(x);
  ASSERT_TRUE(m.bimodal) << m.reason;
  EXPECT_NEAR(m.fast.p50, 540, 3);
  EXPECT_NEAR(m.slow_share, 0.6, 0.03);
  EXPECT_FALSE(split_at_valley(std::vector<double>{1.0, 2.0, 3.0}).bimodal);
}

}  // namespace
}  // namespace memtopo
