// The geometry rows of the SM caches (l1, tex, ro, constant_l1: ways, sets, set_bits, policy)
// end to end on simulated devices: exactly what the description configures.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "geometry/geometry_support.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kGeometryIds = {"l1.size", "l1.ways", "l1.sets", "l1.set_bits",
                                               "l1.policy"};

class GeometryOnSim : public ::testing::TestWithParam<std::string> {};

// Values as configured; every check behind the confidences agreed (sets and set_bits inherit
// the ways'), and where no set can be verified (a mapping that is not modulo) the ways say so
// with agreement(0, 0) = 0.5.
TEST_P(GeometryOnSim, SetsWaysBitsAndPolicyAsConfigured) {
  const GeometryTruth truth = geometry_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), kGeometryIds);
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;

  const Property& ways = property(run, "l1", "ways");
  EXPECT_FALSE(ways.inconclusive) << ways.note << "\n" << ways.evidence.dump();
  EXPECT_EQ(ways.value, truth.ways) << ways.evidence.dump();
  EXPECT_EQ(ways.source, Source::measured);
  ASSERT_TRUE(ways.confidence.has_value());
  expect_every_check_agreed(ways);
  if (ways.evidence.at("set_mapping").get<std::string>().starts_with("modulo")) {
    EXPECT_GE(*ways.confidence, kLowConfidence) << ways.evidence.at("confidence_factors").dump();
  } else {  // no set can be verified: agreement(0, 0) says so
    EXPECT_NEAR(own_confidence(ways),
                0.5 * ways.evidence.at("confidence_factors")[0].at("value").get<double>(), 1e-12);
  }

  const Property& sets = property(run, "l1", "sets");
  EXPECT_EQ(sets.value, truth.sets);
  EXPECT_EQ(sets.confidence, ways.confidence);

  const Property& bits = property(run, "l1", "set_bits");
  EXPECT_EQ(bits.value, truth.set_bits) << bits.note << "\n" << bits.evidence.dump();
  EXPECT_EQ(bits.confidence, ways.confidence);

  const Property& policy = property(run, "l1", "policy");
  EXPECT_EQ(policy.value, truth.policy) << policy.note << "\n" << policy.evidence.dump();
  ASSERT_TRUE(policy.confidence.has_value());
  // Its own evidence is sure; planned from the ways, it is no surer than they (the runner's
  // factor), low where they are.
  EXPECT_GE(own_confidence(policy), kLowConfidence) << policy.evidence.dump();
  EXPECT_LE(*policy.confidence, *ways.confidence);
}

// The same probe rows for the texture and read-only paths: a texture cache apart from L1
// (its own ways, sets and 32 B lines), and the read-only path served by the L1.
TEST(Geometry, TextureAndReadOnlyRowsFindTheCacheTheirPathReaches) {
  const std::string file = "tests/probes/sims/separate-tex.json";
  const ProbeRun run = run_on_sim(file, {"tex.size", "tex.ways", "tex.sets", "tex.policy",
                                         "ro.size", "ro.ways", "ro.sets", "ro.policy"});
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  for (const auto& [element, cache] :
       std::vector<std::pair<std::string, std::string>>{{"tex", "Texture"}, {"ro", "L1"}}) {
    SCOPED_TRACE(element);
    const GeometryTruth truth = geometry_truth(file, cache);
    const Property& ways = property(run, element, "ways");
    EXPECT_EQ(ways.value, truth.ways) << ways.note << "\n" << ways.evidence.dump();
    EXPECT_EQ(property(run, element, "sets").value, truth.sets);
    EXPECT_EQ(property(run, element, "policy").value, truth.policy);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, GeometryOnSim,
                         ::testing::Values("tests/probes/sims/geometry-4way-lru.json",
                                           "tests/probes/sims/geometry-8way-fifo.json",
                                           "tests/probes/sims/geometry-16way-random.json",
                                           "tests/probes/sims/geometry-weighted.json",
                                           "tests/probes/sims/geometry-fully-associative.json",
                                           "tests/probes/sims/geometry-24k-24sets.json",
                                           "tests/probes/sims/geometry-unequal.json",
                                           "tests/probes/sims/geometry-bits-7-8.json",
                                           "tests/sims/l1-24k.json", "tests/sims/l1-96k.json",
                                           "tests/sims/l1-227k.json", "tests/sims/tiny.json",
                                           "sims/hopper-like.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// The weighted policy's estimated per-way victim probabilities, on the full simulated memory
// system, match the configured weights within 0.05, with no inconsistency in the victim model.
TEST(Geometry, WeightedVictimsEstimateTheConfiguredWeights) {
  const ProbeRun run = run_on_sim("tests/probes/sims/geometry-weighted.json", kGeometryIds);
  const Property& policy = property(run, "l1", "policy");
  ASSERT_EQ(policy.value, "weighted");
  const auto weights = policy.evidence.at("estimated_weights").get<std::vector<double>>();
  const auto configured = read_truth("tests/probes/sims/geometry-weighted.json")
                              .cache("L1")
                              .at("policy")
                              .at("victim_weights")
                              .get<std::vector<double>>();
  ASSERT_EQ(weights.size(), configured.size());
  double total = 0;
  for (double w : configured) total += w;
  // About 20000 loads give some thousands of victims: a way's share has a standard error near
  // 0.01, so 0.05 is five of them. A model that swapped two ways' lines would miss by 0.33.
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_NEAR(weights[i], configured[i] / total, 0.05) << "way " << i;
  }
  EXPECT_EQ(policy.evidence.at("inconsistencies").get<std::uint64_t>(), 0u);
}

TEST(Geometry, LoadsAndBatchesOnHopperLike) {
  const ProbeRun sizes = run_on_sim("sims/hopper-like.json", {"l1.size"});
  const ProbeRun all = run_on_sim("sims/hopper-like.json", kGeometryIds);
  const std::uint64_t loads = all.loads - sizes.loads;
  const std::uint64_t batches = all.batches - sizes.batches;
  std::printf("geometry on hopper-like: %llu loads, %llu batches, %.2f s (with l1.size)\n",
              static_cast<unsigned long long>(loads), static_cast<unsigned long long>(batches),
              all.seconds);
  EXPECT_LE(loads, 1'000'000u);
  EXPECT_LE(batches, 12u);
}

TEST(Geometry, SkippedWithoutASize) {
  const ProbeRun run = run_on_sim("tests/probes/sims/geometry-4way-lru.json", {"l1.ways"});
  ASSERT_EQ(run.skipped.count("l1.ways"), 1u);
  EXPECT_NE(run.skipped.at("l1.ways").find("l1.size"), std::string::npos);
}

TEST(Geometry, UsesTheMeasuredLineWhenPresent) {
  const std::string file = "tests/probes/sims/geometry-8way-fifo.json";
  const ProbeRun run =
      run_on_sim(file, {"l1.size", "l1.sector", "l1.line", "l1.ways", "l1.sets", "l1.policy"});
  const Property& ways = property(run, "l1", "ways");
  if (const Element* l1 = run.topology.find("l1");
      !l1 || !l1->find("line") || l1->find("line")->inconclusive) {
    GTEST_SKIP() << "l1.line gave no conclusive line on this device";
  }
  EXPECT_EQ(ways.evidence.at("line_source"), "l1.line");
  EXPECT_EQ(ways.value, geometry_truth(file).ways);
  EXPECT_EQ(property(run, "l1", "policy").value, "fifo");
}

// The constant L1 has no load path that skips only it: its row takes the threshold of the
// constant staircase (against the L1.5) and finds ways, sets, set bits and policy as described.
TEST(Geometry, ConstantL1RowFindsItsGeometryWithTheStaircaseThreshold) {
  const std::string file = "tests/probes/sims/geometry-constant-2way-fifo.json";
  const GeometryTruth truth = geometry_truth(file, "constant L1");
  const ProbeRun run =
      run_on_sim(file, {"constant_l1.size", "constant_l1.line", "constant_l1.ways",
                        "constant_l1.sets", "constant_l1.set_bits", "constant_l1.policy"});
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  const Element* c = run.topology.find("constant_l1");
  ASSERT_NE(c, nullptr);
  const Property* ways = c->find("ways");
  ASSERT_NE(ways, nullptr);
  EXPECT_EQ(ways->value, truth.ways) << ways->note << "\n" << ways->evidence.dump();
  EXPECT_EQ(ways->evidence.at("threshold_source"), "constant_l1.size");
  EXPECT_EQ(ways->evidence.at("line_source"), "constant_l1.line");
  // Its confidence comes from the 8 passes of the chase over C + 1 lines (each overflowed the
  // set again), from the sets verified with m lines each, and from ways x sets x line against
  // the measured size (exact here: 1).
  expect_every_check_agreed(*ways);
  ASSERT_EQ(own_factors(*ways).size(), 3u);
  EXPECT_EQ(own_factors(*ways)[2].at("rule"), "capacity_agreement");
  EXPECT_EQ(ways->evidence.at("capacity_check").at("relative_gap"), 0.0);
  const auto sets = static_cast<double>(truth.sets);
  EXPECT_NEAR(own_confidence(*ways), (8.0 + 1) / (8 + 2) * (sets + 1) / (sets + 2), 1e-12);
  ASSERT_NE(c->find("sets"), nullptr);
  EXPECT_EQ(c->find("sets")->value, truth.sets);
  ASSERT_NE(c->find("set_bits"), nullptr);
  EXPECT_EQ(c->find("set_bits")->value, truth.set_bits);
  ASSERT_NE(c->find("policy"), nullptr);
  EXPECT_EQ(c->find("policy")->value, truth.policy) << c->find("policy")->evidence.dump();
}

}  // namespace
}  // namespace memtopo::testing
