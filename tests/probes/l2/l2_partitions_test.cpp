// l2.partitions, l2.near_latency and l2.far_latency end to end on simulated devices with two L2
// partitions and with one. Every expectation comes from the description file.
#include <gtest/gtest.h>

#include <string>

#include "analysis/confidence.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

double number(const Property& p) {
  return p.value.get<double>();
}

// The rule of a finding's one confidence factor (evidence.confidence_factors).
std::string only_rule(const Property& p) {
  const auto& factors = p.evidence.at("confidence_factors");
  EXPECT_EQ(factors.size(), 1u) << factors.dump();
  return factors.at(0).at("rule").get<std::string>();
}

class L2PartitionsOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(L2PartitionsOnSim, NearAndFarLatencyAndPartitions) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), {"l2.partitions"});
  const auto& l2 = truth.cache("L2");
  const int partitions = l2.value("partitions", 1);
  const double hit = l2.at("hit_latency").get<double>();
  const Property& near = property(run, "l2", "near_latency");
  EXPECT_NEAR(number(near), hit, truth.jitter());
  const Property& count = property(run, "l2", "partitions");
  EXPECT_EQ(count.value.get<int>(), partitions);
  if (partitions == 1) {
    EXPECT_TRUE(count.inconclusive);
    EXPECT_FALSE(count.confidence.has_value());  // inconclusive: no confidence
    EXPECT_EQ(run.topology.find("l2")->find("far_latency"), nullptr);
    // One mode: the near latency is as sure as the share of hits it describes.
    EXPECT_EQ(only_rule(near), "share_within");
    EXPECT_GT(*near.confidence, 0.9);
    return;
  }
  const Property& far = property(run, "l2", "far_latency");
  EXPECT_NEAR(number(far), hit + l2.at("far_latency_extra").get<double>(), truth.jitter());
  EXPECT_GT(*count.confidence, 0.8);
  ASSERT_TRUE(far.seconds_value.has_value());
  EXPECT_DOUBLE_EQ(*far.seconds_value, number(far) / (truth.number("clock_khz") * 1e3));
}

INSTANTIATE_TEST_SUITE_P(Sims, L2PartitionsOnSim,
                         ::testing::Values("tests/probes/sims/staircase-2part.json",
                                           "tests/probes/sims/staircase-1part-l15-128k.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// The confidences follow the rules of analysis/confidence.hpp from the evidence: the count's is
// the integer closeness of its raw count (1 / near share), each mode's latency the share of the
// loads in that mode.
TEST(L2Partitions, ConfidencesFollowTheRulesFromTheEvidence) {
  const ProbeRun run = run_on_sim("tests/probes/sims/staircase-2part.json", {"l2.partitions"});
  const Property& count = property(run, "l2", "partitions");
  ASSERT_FALSE(count.inconclusive);
  const double raw = count.evidence.at("raw_count").get<double>();
  EXPECT_NE(raw, 2.0);  // the rounding costs something, as the rule says it should
  EXPECT_DOUBLE_EQ(*count.confidence, integer_closeness(raw, "").value);
  EXPECT_LT(*count.confidence, 1.0);
  EXPECT_EQ(only_rule(count), "integer_closeness");

  const double far_share = count.evidence.at("far_share").get<double>();
  const Property& near = property(run, "l2", "near_latency");
  const Property& far = property(run, "l2", "far_latency");
  EXPECT_DOUBLE_EQ(*near.confidence, 1.0 - far_share);
  EXPECT_DOUBLE_EQ(*far.confidence, far_share);
  EXPECT_EQ(only_rule(near), "share");
  EXPECT_EQ(only_rule(far), "share");
}

}  // namespace
}  // namespace memtopo::testing
