// dram.latency_patterns on simulated devices: every reachable row equals the description's sum
// of latencies: the level that answers (L1 or L2 hit latency, or the DRAM latency) plus the
// miss_latency_extra of every TLB level the row misses. With near and far L2 partitions an L2
// row's loads have two latencies: the row lists both modes with their shares (the far one
// far_latency_extra slower) and its cycles are the near one's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// The probe with what it is planned from (the harness runs exactly the probes it is given).
const std::vector<std::string> kPatternIds = {"l1.size", "l1.sector",    "l1.line",
                                              "l2.size", "tlb_l1.reach", "dram.latency_patterns"};

// The least share of an L2 row's loads in either partition's mode on a device of two partitions.
constexpr double kLeastModeShare = 0.25;

double answering_latency(const SimTruth& truth, const std::string& data) {
  if (data == "l1") return truth.cache("L1").at("hit_latency").get<double>();
  if (data == "l2") return truth.cache("L2").at("hit_latency").get<double>();
  return truth.number("dram_latency");
}

class LatencyPatternsOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(LatencyPatternsOnSim, EveryRowIsTheSumOfItsLatencies) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), kPatternIds);
  const Property& patterns = property(run, "dram", "latency_patterns");
  const nlohmann::json& tlbs = truth.description.at("tlbs");
  ASSERT_TRUE(patterns.value.is_array());
  // Three data levels for every TLB state: nothing missed, levels 1..s missed.
  EXPECT_EQ(patterns.value.size(), 3 * (tlbs.size() + 1));
  std::size_t reached = 0;
  for (const nlohmann::json& row : patterns.value) {
    SCOPED_TRACE(row.dump());
    const nlohmann::json& cells = row.at("tlb");
    ASSERT_EQ(cells.size(), tlbs.size());
    double expected = answering_latency(truth, row.at("data").get<std::string>());
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (cells[k] == "miss") expected += tlbs[k].at("miss_latency_extra").get<double>();
    }
    const bool l2_or_dram = row.at("data") != "l1";
    if (!row.at("reachable").get<bool>()) {
      // Only an L1 hit with many pages can be out of reach (the L1 holds too few lines).
      EXPECT_FALSE(l2_or_dram);
      continue;
    }
    ++reached;
    EXPECT_NEAR(row.at("cycles").get<double>(), expected, truth.jitter());
    const nlohmann::json& l2 = truth.cache("L2");
    if (row.at("data") == "l2" && l2.value("partitions", 1) > 1) {
      ASSERT_TRUE(row.contains("modes"));
      const nlohmann::json& modes = row.at("modes");
      ASSERT_EQ(modes.size(), 2u);
      EXPECT_NEAR(modes[0].at("cycles").get<double>(), expected, truth.jitter());
      EXPECT_NEAR(modes[1].at("cycles").get<double>(),
                  expected + l2.at("far_latency_extra").get<double>(), truth.jitter());
      // A line's partition is a hash of its address: about half of the lines are far.
      for (const auto& mode : modes) EXPECT_GE(mode.at("share").get<double>(), kLeastModeShare);
      EXPECT_NEAR(modes[0].at("share").get<double>() + modes[1].at("share").get<double>(), 1.0,
                  1e-9);
    } else if (row.at("data") == "l2") {
      EXPECT_FALSE(row.contains("modes"));
    }
    // The spread: a warm row's loads are all alike; a cold row's first visit of each page
    // misses every TLB level, slower: the fastest loads are still the row's pattern.
    EXPECT_NEAR(row.at("p5_cycles").get<double>(), expected, truth.jitter() + 1);
  }
  EXPECT_GE(reached, 2 * (tlbs.size() + 1));
  ASSERT_TRUE(patterns.confidence.has_value());
  EXPECT_GT(*patterns.confidence, 0.5);
}

INSTANTIATE_TEST_SUITE_P(Sims, LatencyPatternsOnSim,
                         ::testing::Values("tests/probes/sims/tlb-1level-64k-unequal.json",
                                           "tests/probes/sims/tlb-2level-64k-2m-unequal.json",
                                           "tests/probes/sims/tlb-3level-unequal.json",
                                           "tests/probes/sims/tlb-2level-2m-unequal.json",
                                           "tests/probes/sims/tlb-2level-16m-32m-h200.json",
                                           "tests/probes/sims/staircase-2part.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

}  // namespace
}  // namespace memtopo::testing
