// The geometry row of the device-wide L2 (l2.ways, .sets, .set_bits, .policy) end to end on
// simulated devices: what the description configures, with every chase alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "backend/sim/sim_backend.hpp"
#include "geometry/geometry_support.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/inheritance.hpp"
#include "probes/core/probe.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kL2GeometryIds = {"l2.ways", "l2.sets", "l2.set_bits", "l2.policy"};

struct L2Run {
  Topology topology;
  std::map<std::string, std::string> skipped;
  std::size_t largest_l2_batch = 0;
};

// The L1 size and line (where the L2 staircase starts and its stride), the L2 size, sector and
// line, then the L2 geometry row with its batches watched.
L2Run run_l2_geometry(const std::string& file) {
  auto sim = make_sim_backend_from_file(source_path(file));
  BatchSizeWatcher backend(*sim);
  L2Run run;
  run.topology.device = backend.facts();
  ProbeContext ctx{backend, run.topology, [](const std::string&) {}, [] { return false; }, 1, {}};
  std::vector<std::string> ids = {"l1.size",   "l1.sector", "l1.line",
                                  "l2.sector", "l2.size",   "l2.line"};
  ids.insert(ids.end(), kL2GeometryIds.begin(), kL2GeometryIds.end());
  for (const auto& probe : all_probes()) {
    if (std::find(ids.begin(), ids.end(), probe->id()) == ids.end()) continue;
    backend.watching = std::find(kL2GeometryIds.begin(), kL2GeometryIds.end(), probe->id()) !=
                       kL2GeometryIds.end();
    try {
      run_inheriting(*probe, ctx);  // as the runner does
    } catch (const ProbeSkipped& skipped) {
      run.skipped[probe->id()] = skipped.what();
    }
  }
  run.largest_l2_batch = backend.largest;
  return run;
}

class L2GeometryOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(L2GeometryOnSim, WaysSetsAndPolicyAsConfiguredWithEveryChaseAlone) {
  const GeometryTruth truth = geometry_truth(GetParam(), "L2");
  const L2Run run = run_l2_geometry(GetParam());
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  EXPECT_EQ(run.largest_l2_batch, 1u);

  const Element* l2 = run.topology.find("l2");
  ASSERT_NE(l2, nullptr);
  const Property* ways = l2->find("ways");
  ASSERT_NE(ways, nullptr);
  EXPECT_FALSE(ways->inconclusive) << ways->note << "\n" << ways->evidence.dump();
  EXPECT_EQ(ways->value, truth.ways) << ways->evidence.dump();
  EXPECT_EQ(ways->evidence.at("threshold_source"), "l2.size");
  EXPECT_EQ(ways->evidence.at("line_source"), "l2.line");
  EXPECT_EQ(ways->evidence.at("path"), "cg");
  ASSERT_NE(l2->find("sets"), nullptr);
  EXPECT_EQ(l2->find("sets")->value, truth.sets);
  ASSERT_NE(l2->find("set_bits"), nullptr);
  EXPECT_EQ(l2->find("set_bits")->value, truth.set_bits) << l2->find("set_bits")->evidence.dump();
  const Property* policy = l2->find("policy");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->value, truth.policy) << policy->note << "\n" << policy->evidence.dump();
  // The runs gave the ways; every sampled set agreed with them, and sets and set bits inherit.
  expect_every_check_agreed(*ways);
  const auto factors = own_factors(*ways);
  ASSERT_EQ(factors.size(), 2u) << factors.dump(1);
  EXPECT_EQ(factors[1].at("rule"), "capacity_agreement");  // ways x sets x line is the size
  EXPECT_GE(factors[1].at("value").get<double>(), 0.99) << factors.dump(1);
  EXPECT_EQ(l2->find("sets")->confidence, ways->confidence);
}

// In a whole discovery, every probe before the L2's geometry in registry order: the sampled
// sets' chases of the device with far-partition hits near the threshold once collected two noise
// outliers on two lines of one set (seed 1), which counted as an overflow at W lines, and the
// ways fell back to eviction sets. A set overflows only with more slow accesses than outliers
// explain: the runs and every sampled set give the configured ways again.
TEST(Geometry, L2WaysFromTheRunsInAWholeDiscovery) {
  const std::string file = "tests/probes/sims/geometry-l2-far-tlb.json";
  const GeometryTruth truth = geometry_truth(file, "L2");
  const ProbeRun run = run_on_sim(file);
  const Property& ways = property(run, "l2", "ways");
  ASSERT_FALSE(ways.inconclusive) << ways.note;
  EXPECT_EQ(ways.value, truth.ways);
  EXPECT_FALSE(ways.evidence.contains("eviction_sets")) << ways.evidence.dump(1);
  const auto& sampled = ways.evidence.at("sampled_sets");
  EXPECT_EQ(sampled.at("fit_with_ways_lines"), sampled.at("sets"));
  EXPECT_EQ(sampled.at("overflowed_with_ways_plus_one_lines"), sampled.at("sets"));
  EXPECT_EQ(property(run, "l2", "sets").value, truth.sets);
}

INSTANTIATE_TEST_SUITE_P(Devices, L2GeometryOnSim,
                         ::testing::Values("tests/probes/sims/geometry-l2-16way-lru.json",
                                           "tests/probes/sims/geometry-l2-8way-fifo.json",
                                           "tests/probes/sims/geometry-l2-far-tlb.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// An L2 with random replacement: the chase past its size misses scattered lines, not W + 1
// runs. Minimal eviction sets take over (their pool: the lines that chase missed, chased again
// with many passes): the ways, the sets and the (modulo) set bits come back as configured.
TEST(Geometry, L2WithRandomReplacementFindsTheWaysByEvictionSets) {
  const std::string file = "tests/probes/sims/geometry-l2-16way-random.json";
  const GeometryTruth truth = geometry_truth(file, "L2");
  const L2Run run = run_l2_geometry(file);
  const Element* l2 = run.topology.find("l2");
  ASSERT_NE(l2, nullptr);
  const Property* ways = l2->find("ways");
  ASSERT_NE(ways, nullptr);
  EXPECT_FALSE(ways->inconclusive) << ways->evidence.dump();
  EXPECT_EQ(ways->value, truth.ways) << ways->evidence.dump(1);
  EXPECT_NE(ways->evidence.at("overfull_set_note").get<std::string>().find("runs"),
            std::string::npos);
  EXPECT_GT(ways->evidence.at("missing_lines").get<int>(), 0);
  const auto& search = ways->evidence.at("eviction_sets");
  EXPECT_FALSE(search.at("deterministic").get<bool>());
  EXPECT_EQ(search.at("mapping"), "modulo");
  expect_every_check_agreed(*ways);
  ASSERT_NE(l2->find("sets"), nullptr);
  EXPECT_EQ(l2->find("sets")->value, truth.sets);
  ASSERT_NE(l2->find("set_bits"), nullptr);
  EXPECT_EQ(l2->find("set_bits")->value, truth.set_bits);
  EXPECT_EQ(run.largest_l2_batch, 1u);
}

// L2s whose sets are XOR functions of address bits, under LRU and random replacement: eviction
// sets give the ways, and the functions span the configured ones; every chase alone.
class HashedL2OnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(HashedL2OnSim, WaysSetsAndXorFunctionsAsConfiguredWithEveryChaseAlone) {
  const GeometryTruth truth = geometry_truth(GetParam(), "L2");
  const L2Run run = run_l2_geometry(GetParam());
  for (const auto& [id, reason] : run.skipped) {
    if (id != "l2.policy") ADD_FAILURE() << id << " skipped: " << reason;
  }
  EXPECT_EQ(run.largest_l2_batch, 1u);
  const Element* l2 = run.topology.find("l2");
  ASSERT_NE(l2, nullptr);
  const Property* ways = l2->find("ways");
  ASSERT_NE(ways, nullptr);
  EXPECT_EQ(ways->value, truth.ways) << ways->note << "\n" << ways->evidence.dump(1);
  const auto& search = ways->evidence.at("eviction_sets");
  EXPECT_EQ(search.at("mapping"), "xor");
  EXPECT_EQ(search.at("checks_agreeing"), search.at("checks_total"));
  expect_every_check_agreed(*ways);
  ASSERT_TRUE(ways->confidence.has_value());
  EXPECT_GE(*ways->confidence, kLowConfidence);
  ASSERT_NE(l2->find("sets"), nullptr);
  EXPECT_EQ(l2->find("sets")->value, truth.sets);
  const Property* bits = l2->find("set_bits");
  ASSERT_NE(bits, nullptr);
  expect_same_index_functions(bits->value, truth.set_bits);
  EXPECT_GE(bits->confidence.value_or(0), kLowConfidence);
  std::printf("%s: l2.ways %s, %llu chases alone, %llu loads\n", GetParam().c_str(),
              ways->value.dump().c_str(), search.at("cost").at("batches").get<unsigned long long>(),
              search.at("cost").at("loads").get<unsigned long long>());
}

INSTANTIATE_TEST_SUITE_P(Devices, HashedL2OnSim,
                         ::testing::Values("tests/probes/sims/geometry-l2-xor-lru.json",
                                           "tests/probes/sims/geometry-l2-xor-random.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// Without the L2 size nothing is planned: the row skips, naming what it needs.
TEST(Geometry, L2RowSkipsWithoutASize) {
  const ProbeRun run = run_on_sim("tests/probes/sims/geometry-l2-16way-lru.json", {"l2.ways"});
  ASSERT_EQ(run.skipped.count("l2.ways"), 1u);
  EXPECT_NE(run.skipped.at("l2.ways").find("l2.size"), std::string::npos);
}

// Where l2.line is only an upper bound (the contiguous check contradicted the odd strides, as on
// Hopper) that the size staircase's stride reaches, the L2 row chases at that stride: one line
// per element, and "past the size" as the size search meant it. The ways come back right.
TEST(Geometry, L2RowChasesAtTheSizeStrideUnderAnUpperBoundLine) {
  const std::string file = "tests/probes/sims/geometry-l2-16way-lru.json";
  const GeometryTruth truth = geometry_truth(file, "L2");
  ProbeRun run = run_on_sim(file, {"l1.size", "l1.sector", "l1.line", "l2.size"});
  const Element* l2 = run.topology.find("l2");
  ASSERT_TRUE(l2 && l2->find("size"));
  const auto stride =
      l2->find("size")->evidence.at("staircase").at("stride_bytes").get<std::uint64_t>();
  Property line;
  line.name = "line";
  line.unit = "bytes";
  line.source = Source::measured;
  line.value = 2 * stride;  // line < 2 x stride: the stride is at least the line
  line.bound = Bound::upper;
  line.inconclusive = true;
  element_for(run.topology, "l2").set(line);
  auto backend = make_sim_backend_from_file(source_path(file));
  ProbeContext ctx{*backend, run.topology, [](const std::string&) {}, [] { return false; }, 1, {}};
  for (const auto& probe : all_probes()) {
    if (probe->id() == "l2.ways" || probe->id() == "l2.sets") probe->run(ctx);
  }
  const Property* ways = run.topology.find("l2")->find("ways");
  ASSERT_NE(ways, nullptr);
  EXPECT_EQ(ways->value, truth.ways) << ways->note << "\n" << ways->evidence.dump();
  EXPECT_EQ(ways->evidence.at("line_bytes").get<std::uint64_t>(), stride);
  EXPECT_NE(ways->evidence.at("line_source").get<std::string>().find("staircase stride"),
            std::string::npos);
  EXPECT_EQ(run.topology.find("l2")->find("sets")->value, truth.sets);

  // A bound the stride does not reach (line < 4 x stride) leaves the row skipped.
  line.value = 4 * stride;
  element_for(run.topology, "l2").set(line);
  for (const auto& probe : all_probes()) {
    if (probe->id() == "l2.ways") {
      EXPECT_THROW(probe->run(ctx), ProbeSkipped);
    }
  }
}

}  // namespace
}  // namespace memtopo::testing
