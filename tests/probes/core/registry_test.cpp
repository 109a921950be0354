// all_probes: stable ids, known elements, dependencies before dependants.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "probes/core/elements.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {
namespace {

TEST(Registry, EveryProbeOnceInAValidOrder) {
  const auto probes = all_probes();
  std::set<std::string> seen;
  for (const auto& probe : probes) {
    const std::string id = probe->id();
    EXPECT_EQ(id.find('.'), id.rfind('.')) << id << ": <element>.<property>";
    EXPECT_FALSE(probe->description().empty()) << id;
    for (const auto& need : probe->needs())
      EXPECT_TRUE(seen.count(need)) << id << " needs " << need;
    EXPECT_TRUE(seen.insert(id).second) << id << " twice";
    Topology t;
    EXPECT_NO_THROW(element_for(t, probe->element_id())) << id;
  }
  for (const char* id : {"l1.size", "l1.latency", "shared.latency", "l2.latency", "dram.latency"}) {
    EXPECT_TRUE(seen.count(id)) << id;
  }
}

TEST(Registry, SizesComeBeforeTheLatenciesPlannedFromThem) {
  const auto probes = all_probes();
  std::size_t l1_size = probes.size(), l1_latency = 0, l2_latency = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    if (probes[i]->id() == "l1.size") l1_size = i;
    if (probes[i]->id() == "l1.latency") l1_latency = i;
    if (probes[i]->id() == "l2.latency") l2_latency = i;
  }
  EXPECT_LT(l1_size, l1_latency);
  EXPECT_LT(l1_size, l2_latency);
}

}  // namespace
}  // namespace memtopo
