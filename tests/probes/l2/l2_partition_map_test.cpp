// l2.partition_map end to end on simulated devices: lines copied on read into each reader's
// partition (an irregular SM map with two partitions, and three partitions), lines with a home
// partition by address (no map), and one partition. Every expectation comes from the file.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

using Groups = std::vector<std::vector<std::uint32_t>>;

// Which SMs share a partition, by the description's sm_partitions.
Groups truth_groups(const nlohmann::json& l2) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> by;
  const auto& list = l2.at("sm_partitions");
  for (std::uint32_t sm = 0; sm < list.size(); ++sm) by[list[sm].get<std::uint32_t>()].push_back(sm);
  Groups groups;
  for (auto& [partition, sms] : by) groups.push_back(sms);
  std::sort(groups.begin(), groups.end());
  return groups;
}

Groups measured_groups(const Property& map) {
  Groups groups;
  for (const auto& row : map.value) groups.push_back(row.at("sms").get<std::vector<std::uint32_t>>());
  std::sort(groups.begin(), groups.end());
  return groups;
}

class L2PartitionMapOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(L2PartitionMapOnSim, EverySmInItsPartitionWithNearAndFarLatency) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), {"l2.partitions", "l2.partition_map"});
  const auto& l2 = truth.cache("L2");
  const Property& map = property(run, "l2", "partition_map");
  ASSERT_FALSE(map.inconclusive) << map.note;
  EXPECT_EQ(measured_groups(map), truth_groups(l2));
  EXPECT_TRUE(map.evidence.at("unclear").empty());
  EXPECT_GT(*map.confidence, 0.9);
  const Property& count = property(run, "l2", "partitions");
  EXPECT_EQ(count.value.get<int>(), l2.at("partitions").get<int>());
  EXPECT_FALSE(count.inconclusive);
  // The one-SM chase saw one mode (a chase's own lines answer near): kept as evidence.
  EXPECT_TRUE(count.evidence.at("one_sm_chase").at("inconclusive").get<bool>());
  const double hit = l2.at("hit_latency").get<double>();
  EXPECT_NEAR(property(run, "l2", "near_latency").value.get<double>(), hit, truth.jitter());
  EXPECT_NEAR(property(run, "l2", "far_latency").value.get<double>(),
              hit + l2.at("far_latency_extra").get<double>(), truth.jitter());
  // Discovery (one warmer per partition), then a second warmer in each: no SM to measure again.
  EXPECT_EQ(map.evidence.at("launches").size(), 2 * truth_groups(l2).size());
}

INSTANTIATE_TEST_SUITE_P(Sims, L2PartitionMapOnSim,
                         ::testing::Values("tests/probes/sims/l2-partition-map-2.json",
                                           "tests/probes/sims/l2-partition-map-3.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// Lines at home in the partition their address picks: each reader finds half its lines far.
// The map says why it has no answer, and l2.partitions keeps the one-SM chase's count.
TEST(L2PartitionMap, LinesAtHomeByAddressLeaveTheMapInconclusive) {
  const std::string file = "tests/probes/sims/staircase-2part.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, {"l2.partitions", "l2.partition_map"});
  const Property& map = property(run, "l2", "partition_map");
  EXPECT_TRUE(map.inconclusive);
  EXPECT_NE(map.note.find("their address"), std::string::npos) << map.note;
  const Property& count = property(run, "l2", "partitions");
  EXPECT_EQ(count.value.get<int>(), truth.cache("L2").at("partitions").get<int>());
  EXPECT_NE(count.method.find("1 / (share of near answers)"), std::string::npos) << count.method;
}

TEST(L2PartitionMap, OnePartitionIsOneGroupOfEverySm) {
  const std::string file = "tests/probes/sims/staircase-1part-l15-128k.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, {"l2.partitions", "l2.partition_map"});
  const Property& map = property(run, "l2", "partition_map");
  ASSERT_FALSE(map.inconclusive) << map.note;
  ASSERT_EQ(map.value.size(), 1u);
  EXPECT_EQ(map.value[0].at("sms").size(), truth.number("sm_count"));
  const Property& count = property(run, "l2", "partitions");
  EXPECT_EQ(count.value.get<int>(), 1);
  EXPECT_FALSE(count.inconclusive);
  EXPECT_EQ(run.topology.find("l2")->find("far_latency"), nullptr);
}

}  // namespace
}  // namespace memtopo::testing
