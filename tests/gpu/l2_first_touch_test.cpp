// The L2 first-touch experiment and the partition map on the GPU (backend/l2_first_touch.hpp,
// probes/l2/l2_partition_map_probe.cpp). Skipped without a GPU. What must hold on any GPU: every
// other SM reads once, a second touch is no slower than the first, and a map, when conclusive,
// places every SM it saw. Values are printed for the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "gpu_fixture.hpp"
#include "probes/core/probe.hpp"

namespace memtopo::testing {
namespace {

double median_cycles(std::vector<std::uint32_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

TEST_F(GpuTest, L2FirstTouchReadsOnceFromEveryOtherSm) {
  const BackendLimits limits = backend().limits();
  const std::uint32_t warmer = limits.sm_ids.front();
  const L2FirstTouchResult result = backend().l2_first_touch()->run_l2_first_touch({warmer, 16});
  EXPECT_EQ(result.warmer_sm, warmer);
  ASSERT_EQ(result.readers.size() + 1, limits.sm_ids.size());
  std::set<std::uint32_t> seen;
  std::vector<std::uint32_t> firsts, seconds;
  for (const L2ReaderTouches& reader : result.readers) {
    EXPECT_NE(reader.sm_id, warmer);
    EXPECT_TRUE(seen.insert(reader.sm_id).second) << "SM " << reader.sm_id << " read twice";
    ASSERT_EQ(reader.first_cycles.size(), 16u);
    ASSERT_EQ(reader.second_cycles.size(), 16u);
    firsts.push_back(static_cast<std::uint32_t>(median_cycles(reader.first_cycles)));
    seconds.push_back(static_cast<std::uint32_t>(median_cycles(reader.second_cycles)));
  }
  std::cout << "[ first touch ] warmer SM " << warmer << ": median_cycles first "
            << median_cycles(firsts) << " cycles, second " << median_cycles(seconds) << ", clock "
            << result.clock_khz << " kHz\n";
  EXPECT_LE(median_cycles(seconds), median_cycles(firsts));
  EXPECT_GT(result.clock_khz, 0);
  EXPECT_THROW(backend().l2_first_touch()->run_l2_first_touch({warmer, 0}), ExperimentError);
  EXPECT_THROW(backend().l2_first_touch()->run_l2_first_touch({100000, 16}), ExperimentError);
}

TEST_F(GpuTest, L2PartitionMapPlacesEverySm) {
  Topology topology;
  ProbeContext ctx{backend(), topology, [](const std::string&) {}, [] { return false; }, 1,
                   nullptr};
  for (const auto& probe : all_probes()) {
    if (probe->id() == "l2.partitions" || probe->id() == "l2.partition_map") probe->run(ctx);
  }
  const Element* l2 = topology.find("l2");
  ASSERT_NE(l2, nullptr);
  const Property* map = l2->find("partition_map");
  ASSERT_NE(map, nullptr);
  std::cout << "[ partition map ] " << (map->inconclusive ? "inconclusive: " + map->note
                                                          : map->value.dump())
            << "\n  unclear " << map->evidence.value("unclear", nlohmann::json()).dump()
            << ", verdicts " << map->evidence.value("reason", std::string()) << "\n";
  if (map->inconclusive) return;
  std::size_t placed = map->evidence.at("unclear").size();
  for (const auto& row : map->value) placed += row.at("sms").size();
  EXPECT_EQ(placed, backend().limits().sm_ids.size());
  const Property* partitions = l2->find("partitions");
  ASSERT_NE(partitions, nullptr);
  EXPECT_EQ(partitions->value.get<std::size_t>(), map->value.size());
  if (const Property* far = l2->find("far_latency")) {
    const Property* near = l2->find("near_latency");
    ASSERT_NE(near, nullptr);
    std::cout << "[ partition map ] near " << near->value << " cycles, far " << far->value
              << " cycles\n";
    EXPECT_LT(near->value.get<double>(), far->value.get<double>());
  }
}

}  // namespace
}  // namespace memtopo::testing
