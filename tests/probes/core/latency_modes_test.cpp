// describe_latency on the recorded H200 DRAM chases (tests/unit/recorded_h200_histograms.hpp,
// in a seeded order): what dram.latency and dram.latency_tlb_miss report from those loads. The
// headline is the near mode with the near loads' spread; each mode's confidence rests on the
// valley between them, its loads within the band and the parts of the chase that show it.
#include "probes/core/latency_modes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../unit/recorded_h200_histograms.hpp"
#include "backend/chain.hpp"

namespace memtopo {
namespace {

std::vector<double> in_seeded_order(std::vector<double> x, std::uint64_t seed) {
  SplitMix64 rng(seed);
  for (std::size_t i = x.size(); i > 1; --i) std::swap(x[i - 1], x[rng.below(i)]);
  return x;
}

std::vector<std::string> rules(const nlohmann::json& factors) {
  std::vector<std::string> out;
  for (const auto& f : factors) out.push_back(f.at("rule"));
  return out;
}

TEST(LatencyModes, RecordedH200DramLatencyIsNearAndFar) {
  const LatencyDescription d =
      describe_latency({in_seeded_order(samples_of(kH200DramLatency), 5), {}}, true, "loads");
  ASSERT_EQ(d.modes.size(), 2u);
  EXPECT_NEAR(d.value.p50, 540, 10);
  EXPECT_NEAR(d.modes[1].value, 725, 20);
  EXPECT_NEAR(d.modes[1].share, 0.55, 0.05);
  // The headline's spread describes its loads (the near mode's), the mix all 4096.
  EXPECT_EQ(d.value.samples, d.modes[0].spread.samples);
  EXPECT_LT(d.value.p95, 620);
  ASSERT_TRUE(d.mix.has_value());
  EXPECT_EQ(d.mix->samples, 4096u);
  EXPECT_GT(d.mix->p95, 1000);
  // Near: a valley at 2 % of the peaks, nearly every load within 10 %, 8 of 8 parts.
  EXPECT_EQ(rules(d.confidence.evidence()),
            (std::vector<std::string>{"mode_separation", "share_within", "agreement"}));
  EXPECT_GT(d.confidence.value(), 0.8);
  EXPECT_LT(d.confidence.value(), 0.9);  // 8 of 8 parts: at most 0.9
  // Far: its tail to 2000 cycles lies outside its band: less sure than the near mode.
  EXPECT_LT(*d.modes[1].confidence, d.confidence.value());
  EXPECT_EQ(d.split.at("parts_showing_far"), 8);
}

TEST(LatencyModes, RecordedH200DramTlbMissHasItsValleyInItsConfidence) {
  const LatencyDescription d =
      describe_latency({in_seeded_order(samples_of(kH200DramTlbMiss), 6), {}}, true, "loads");
  ASSERT_EQ(d.modes.size(), 2u);
  EXPECT_NEAR(d.value.p50, 640, 15);
  const double separation = d.confidence.factors().front().value;
  EXPECT_GT(separation, 0.8);
  EXPECT_LT(separation, 0.95);  // the valley holds about a tenth of the lower peak
  // Value and spread describe the same loads (before: the near p50 with the mix's spread).
  EXPECT_LE(d.value.p5, d.value.p50);
  EXPECT_LT(d.value.p95, d.split.at("threshold_cycles").get<double>() + 1);
}

TEST(LatencyModes, OneModeKeepsShareWithinOfEveryLoad) {
  std::vector<double> loads;
  for (int k = 0; k < 4096; ++k) loads.push_back(280 + k % 5);
  const LatencyDescription d = describe_latency({loads, {}}, true, "loads");
  EXPECT_TRUE(d.modes.empty());
  EXPECT_FALSE(d.mix.has_value());
  EXPECT_EQ(rules(d.confidence.evidence()), std::vector<std::string>{"share_within"});
  EXPECT_FALSE(d.split.at("bimodal").get<bool>());
}

TEST(LatencyModes, ARowListsItsModesInBothForms) {
  const LatencyDescription d =
      describe_latency({in_seeded_order(samples_of(kH200DramLatency), 7), {}}, true, "loads");
  nlohmann::json row = nlohmann::json::object();
  write_latency_row(d, row);
  ASSERT_EQ(row.at("modes").size(), 2u);
  const nlohmann::json& far = row.at("modes")[1];
  EXPECT_EQ(far.at("name"), "far");
  EXPECT_DOUBLE_EQ(far.at("value").get<double>(), far.at("cycles").get<double>());
  EXPECT_TRUE(far.contains("p95_cycles") && far.contains("confidence"));
  EXPECT_DOUBLE_EQ(row.at("cycles").get<double>(), d.value.p50);
  EXPECT_DOUBLE_EQ(row.at("p95_cycles").get<double>(), d.value.p95);
  EXPECT_TRUE(row.contains("mix"));
}

}  // namespace
}  // namespace memtopo
