// The split of a latency sample at a valley: recorded H200 DRAM chases (two broad modes and a
// long tail, which the least-squares split cannot separate), and synthetic samples that must
// stay one mode however long their tail.
#include "analysis/valley_split.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "backend/chain.hpp"  // SplitMix64: seeded, portable

namespace memtopo {
namespace {

// docs/results/nvidia-h200/2026-11-28_7c3e18a-dram-traces (GPU-d76a64da): the traces of one
// default discovery, timing overhead subtracted, in 10-cycle bins from `from`; `above` loads
// beyond 1500 cycles.
struct RecordedHistogram {
  double from;
  std::vector<std::size_t> counts;
  std::size_t above;
};

// dram.latency: 4096 loads, page-local, TLB warm.
const RecordedHistogram kH200DramLatency = {
    500,
    {18,  89,  355, 365, 362, 366, 154, 43, 23, 7,  4,  6,  4,  3,  7,  7,  29, 83, 61, 196,
     134, 312, 303, 243, 233, 133, 53,  24, 11, 11, 8,  6,  5,  6,  14, 10, 9,  9,  4,  12,
     10,  15,  6,   10,  17,  10,  15,  9,  15, 9,  18, 14, 16, 18, 23, 16, 12, 13, 6,  2,
     6,   3,   4,   7,   4,   5,   6,   6,  4,  11, 8,  7,  6,  7,  8,  3,  6},
    19};

// dram.latency_tlb_miss: 4096 loads, each a page of its own that no TLB level holds.
const RecordedHistogram kH200DramTlbMiss = {
    510,
    {2,  15, 46, 35, 33, 42, 14, 1,  3,  27, 172, 359, 306, 338, 283, 96,  31,  13,
     18, 20, 16, 33, 38, 25, 31, 65, 56, 70, 178, 155, 231, 258, 221, 217, 124, 57,
     19, 13, 11, 11, 6,  9,  10, 6,  9,  12, 12,  17,  9,   8,   8,   12,  8,   15,
     12, 11, 12, 9,  7,  15, 10, 9,  11, 10, 18,  7,   7,   7,   9,   6,   7,   6,
     3,  8,  11, 4,  9,  2,  9,  2,  7,  8,  1,   6,   4,   4,   1},
    20};

// Every bin's loads spread evenly over its 10 cycles; the loads above at 1500-2000.
std::vector<double> samples_of(const RecordedHistogram& h) {
  std::vector<double> x;
  for (std::size_t b = 0; b < h.counts.size(); ++b) {
    for (std::size_t k = 0; k < h.counts[b]; ++k) {
      x.push_back(h.from + 10.0 * static_cast<double>(b) +
                  10.0 * (static_cast<double>(k) + 0.5) / static_cast<double>(h.counts[b]));
    }
  }
  for (std::size_t k = 0; k < h.above; ++k) x.push_back(1500 + 500.0 * k / h.above);
  return x;
}

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
