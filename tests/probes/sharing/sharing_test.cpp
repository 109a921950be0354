// <element>.shared_with on simulated devices: the relation equals which elements' paths the
// description serves from one cache.
#include <gtest/gtest.h>

#include <set>

#include "support/probe_harness.hpp"
#include "support/sm_cache_truth.hpp"

namespace memtopo::testing {
namespace {

std::vector<std::string> sharing_ids() {
  std::vector<std::string> ids = sm_cache_prerequisites();
  for (const auto& [element, path] : sm_element_paths()) ids.push_back(element + ".shared_with");
  return ids;
}

class SharingOnSim : public ::testing::TestWithParam<const char*> {};

TEST_P(SharingOnSim, EveryElementListsTheElementsItsCacheServes) {
  const std::string file = GetParam();
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, sharing_ids());
  for (const auto& [element, path] : sm_element_paths()) {
    SCOPED_TRACE(element);
    const std::string id = element + ".shared_with";
    if (!answering_cache(truth, element)) {
      // Not cached on the SM: nothing to share, and the skip says why.
      ASSERT_TRUE(run.skipped.count(id)) << id << " should be skipped";
      EXPECT_NE(run.skipped.at(id).find("not measured"), std::string::npos) << run.skipped.at(id);
      continue;
    }
    const Property& p = property(run, element, "shared_with");
    std::set<std::string> measured;
    for (const auto& other : p.value) measured.insert(other.get<std::string>());
    EXPECT_EQ(measured, truly_shared_with(truth, element)) << p.evidence.dump(1);
    // Every direction of its pairs agreed, each clear (sharing_relation.hpp); then no surer than
    // the sizes and lines its plan read (the runner's factor).
    EXPECT_GE(own_confidence(p), 0.8);
    const auto factors = own_factors(p);
    ASSERT_EQ(factors.size(), 2u);
    EXPECT_EQ(factors[0].at("rule"), "agreement");
    EXPECT_EQ(factors[1].at("rule"), "contrast");
    EXPECT_TRUE(p.evidence.at("contradictions").empty());
  }
  for (const auto& warning : run.topology.warnings) {
    EXPECT_EQ(warning.find("shared_with"), std::string::npos) << warning;
  }
}

INSTANTIATE_TEST_SUITE_P(Sims, SharingOnSim, ::testing::ValuesIn(kSmCacheSims),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// The bundled device: l1, tex and ro are one cache, the constant caches are apart.
TEST(Sharing, SeparateTextureCacheIsNotSharedWithL1) {
  const ProbeRun run = run_on_sim("tests/probes/sims/separate-tex.json", sharing_ids());
  const Property& tex = property(run, "tex", "shared_with");
  EXPECT_TRUE(tex.value.empty()) << tex.value;
  const Property& l1 = property(run, "l1", "shared_with");
  EXPECT_EQ(l1.value, nlohmann::json::array({"ro"}));
}

}  // namespace
}  // namespace memtopo::testing
