// <element>.count_per_sm on simulated devices: equals instances_per_sm of the cache that
// serves the element's path.
#include <gtest/gtest.h>

#include "support/probe_harness.hpp"
#include "support/sm_cache_truth.hpp"

namespace memtopo::testing {
namespace {

class CountPerSmOnSim : public ::testing::TestWithParam<const char*> {};

TEST_P(CountPerSmOnSim, EqualsTheInstancesOfTheAnsweringCache) {
  const std::string file = GetParam();
  const SimTruth truth = read_truth(file);
  std::vector<std::string> ids = sm_cache_prerequisites();
  for (const auto& [element, path] : sm_element_paths()) ids.push_back(element + ".count_per_sm");
  const ProbeRun run = run_on_sim(file, ids);
  for (const auto& [element, path] : sm_element_paths()) {
    SCOPED_TRACE(element);
    const auto cache = answering_cache(truth, element);
    if (!cache) {
      ASSERT_TRUE(run.skipped.count(element + ".count_per_sm"));
      continue;
    }
    const Property& p = property(run, element, "count_per_sm");
    ASSERT_TRUE(p.value.is_number()) << p.note;
    EXPECT_EQ(p.value.get<int>(), cache->value("instances_per_sm", 1)) << p.evidence.dump(1);
    EXPECT_FALSE(p.inconclusive);
    EXPECT_GE(p.confidence.value_or(0), 0.8);
    EXPECT_EQ(p.evidence.at("confidence_factors")[0].at("rule"), "contrast");
  }
}

INSTANTIATE_TEST_SUITE_P(Sims, CountPerSmOnSim, ::testing::ValuesIn(kSmCacheSims),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

}  // namespace
}  // namespace memtopo::testing
