// The evidence that two latency modes are the level's: on the recorded H200 DRAM chases (in a
// seeded order: the histograms keep no order), every part of the chase shows both modes; on a
// chase whose latency changed half-way, each mode lives in half of the parts.
#include "analysis/mode_evidence.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "backend/chain.hpp"  // SplitMix64: seeded, portable
#include "recorded_h200_histograms.hpp"

namespace memtopo {
namespace {

std::vector<double> shuffled(std::vector<double> x, std::uint64_t seed) {
  SplitMix64 rng(seed);
  for (std::size_t i = x.size(); i > 1; --i) std::swap(x[i - 1], x[rng.below(i)]);
  return x;
}

TEST(ModeEvidence, RecordedH200DramLatencyRepeatsInEveryPart) {
  const LatencyModes m = find_latency_modes(shuffled(samples_of(kH200DramLatency), 1));
  ASSERT_TRUE(m.split.bimodal) << m.split.reason;
  // Between the modes the histogram holds about 2 % of the lower peak.
  EXPECT_LT(m.valley_ratio, 0.05);
  EXPECT_EQ(m.parts, 8u);
  EXPECT_EQ(m.parts_showing[0], 8u);
  EXPECT_EQ(m.parts_showing[1], 8u);
  EXPECT_FALSE(m.parts_rule.empty());
}

TEST(ModeEvidence, RecordedH200DramTlbMissHasAShallowerValley) {
  const LatencyModes m = find_latency_modes(shuffled(samples_of(kH200DramTlbMiss), 2));
  ASSERT_TRUE(m.split.bimodal) << m.split.reason;
  EXPECT_GT(m.valley_ratio, 0.05);
  EXPECT_LT(m.valley_ratio, 0.2);
  EXPECT_EQ(m.parts_showing[0], m.parts);
  EXPECT_EQ(m.parts_showing[1], m.parts);
}

TEST(ModeEvidence, ALatencyThatChangedHalfWayShowsEachModeInHalfTheParts) {
  SplitMix64 rng(3);
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) x.push_back((k < 2048 ? 300 : 450) + 6 * rng.uniform());
  const LatencyModes m = find_latency_modes(x);
  ASSERT_TRUE(m.split.bimodal) << m.split.reason;
  EXPECT_DOUBLE_EQ(m.valley_ratio, 0);
  EXPECT_EQ(m.parts, 8u);
  EXPECT_EQ(m.parts_showing[0], 4u);
  EXPECT_EQ(m.parts_showing[1], 4u);
}

TEST(ModeEvidence, SlowLoadsAtTheStartAreNoRepeatedMode) {
  // A cold row's first visit of each of its 1024 pages misses every TLB level: the first
  // quarter of the chase, 150 cycles slower.
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) x.push_back((k < 1024 ? 630 : 480) + k % 3);
  const LatencyModes m = find_latency_modes(x);
  ASSERT_TRUE(m.split.bimodal) << m.split.reason;
  EXPECT_EQ(m.parts_showing[0], 6u);  // the fast mode from the second quarter on
  EXPECT_EQ(m.parts_showing[1], 2u);
}

TEST(ModeEvidence, FewLoadsGiveNoPartsAndOneModeNoEvidence) {
  std::vector<double> few;
  for (int k = 0; k < 1000; ++k) few.push_back(k % 2 ? 300 : 450);
  const LatencyModes m = find_latency_modes(few);
  ASSERT_TRUE(m.split.bimodal);
  EXPECT_EQ(m.parts, 0u);  // 1000 loads: not two parts of 512
  std::vector<double> one(4096, 280.0);
  const LatencyModes single = find_latency_modes(one);
  EXPECT_FALSE(single.split.bimodal);
  EXPECT_EQ(single.parts, 0u);
}

}  // namespace
}  // namespace memtopo
