// Hashed set indices on SM caches end to end: L1s whose sets are XOR functions of address bits,
// under LRU and random replacement. The overfull set gives the ways (not evenly spaced: its
// confidence says no set could be verified); the single-bit flips cannot explain the sets, so
// minimal eviction sets give the functions, which must span the configured ones. On modulo and
// bit-selected indices no eviction set is searched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "geometry/geometry_support.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kHashedIndexIds = {"l1.size", "l1.ways", "l1.sets", "l1.set_bits",
                                               "l1.policy"};
// With the line measured first, as in a discovery: the ways' own line search (power-of-two
// hypotheses) reads random replacement over a hashed index as 32 B lines.
const std::vector<std::string> kWithLine = {"l1.size", "l1.sector",   "l1.line",  "l1.ways",
                                            "l1.sets", "l1.set_bits", "l1.policy"};

class HashedL1OnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(HashedL1OnSim, WaysSetsAndXorFunctionsAsConfigured) {
  const GeometryTruth truth = geometry_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), kWithLine);
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;

  const Property& ways = property(run, "l1", "ways");
  EXPECT_EQ(ways.value, truth.ways) << ways.note << "\n" << ways.evidence.dump();
  EXPECT_EQ(property(run, "l1", "sets").value, truth.sets);

  const Property& bits = property(run, "l1", "set_bits");
  ASSERT_FALSE(bits.inconclusive) << bits.note << "\n" << bits.evidence.dump(1);
  expect_same_index_functions(bits.value, truth.set_bits);
  const auto& search = bits.evidence.at("eviction_sets");
  EXPECT_EQ(search.at("mapping"), "xor");
  EXPECT_TRUE(search.at("complete").get<bool>());
  EXPECT_EQ(search.at("sets"), truth.sets);
  // Every target's minimal eviction set had the ways' size, and every prediction held.
  EXPECT_EQ(search.at("ways_vote").at("ways"), truth.ways);
  EXPECT_EQ(search.at("ways_vote").at("agreeing"), search.at("ways_vote").at("targets"));
  EXPECT_EQ(search.at("checks_agreeing"), search.at("checks_total"));
  EXPECT_GE(search.at("checks_total").get<int>(), 14);  // a flip of every bit 7..20 at least
  expect_every_check_agreed(bits);
  ASSERT_TRUE(bits.confidence.has_value());
  // Its own evidence is sure; planned from the ways, it is no surer than they (the runner's
  // factor), low where they are.
  EXPECT_GE(own_confidence(bits), kLowConfidence) << bits.evidence.at("confidence_factors").dump(1);
  EXPECT_LE(*bits.confidence, *ways.confidence);
  std::printf("%s: set_bits %s, %s, %llu loads (critical path %llu) in %llu batches\n",
              GetParam().c_str(), bits.value.dump().c_str(),
              search.at("deterministic").get<bool>() ? "deterministic" : "random-like",
              search.at("cost").at("loads").get<unsigned long long>(),
              search.at("cost").at("critical_path_loads").get<unsigned long long>(),
              search.at("cost").at("batches").get<unsigned long long>());

  EXPECT_EQ(property(run, "l1", "policy").value, truth.policy);
}

INSTANTIATE_TEST_SUITE_P(Devices, HashedL1OnSim,
                         ::testing::Values("tests/probes/sims/geometry-xor-lru.json",
                                           "tests/probes/sims/geometry-xor-random.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// A hashed L1 whose sets hold unequal ways (56 of 4, 8 of 3), as the H200's L1 behaves: every
// minimal eviction set has 4 lines and the XOR functions select 64 sets, but 4 x 64 x 128 B is
// far more than the size the search measures (the smallest set overflows first). The ways keep
// their value with a confidence the capacity gap makes low; the sets, which would claim a
// capacity nobody measured, are inconclusive with the gap as the reason.
TEST(HashedIndex, WaysTimesSetsThatContradictTheSizeAreNotConclusive) {
  const std::string file = "tests/probes/sims/geometry-xor-unequal.json";
  const GeometryTruth truth = geometry_truth(file);
  const ProbeRun run = run_on_sim(file, kHashedIndexIds);
  const Property& size = property(run, "l1", "size");
  const Property& ways = property(run, "l1", "ways");
  const Property& sets = property(run, "l1", "sets");
  ASSERT_TRUE(size.value.is_number()) << size.note;
  ASSERT_FALSE(ways.inconclusive) << ways.note;
  // The configured ways: 4 in most sets, 3 in a few; the voted value is the most common one.
  const auto configured = truth.ways.get<std::vector<std::uint64_t>>();
  const auto most = std::count(configured.begin(), configured.end(), 4);
  ASSERT_GT(most, static_cast<std::ptrdiff_t>(configured.size() / 2));
  EXPECT_EQ(ways.value, 4);

  const auto& check = ways.evidence.at("capacity_check");
  EXPECT_TRUE(check.at("contradicts").get<bool>()) << check.dump(1);
  EXPECT_EQ(check.at("accounted_bytes").get<double>(), 4.0 * truth.sets * 128);
  EXPECT_EQ(check.at("measured_size_bytes"), size.value);
  ASSERT_TRUE(ways.confidence.has_value());
  EXPECT_LT(*ways.confidence, kLowConfidence) << ways.evidence.at("confidence_factors").dump(1);
  bool named = false;
  for (const auto& f : ways.evidence.at("confidence_factors"))
    named = named || f.at("rule") == "capacity_agreement";
  EXPECT_TRUE(named);

  EXPECT_TRUE(sets.inconclusive) << sets.value.dump();
  EXPECT_TRUE(sets.value.is_null());
  EXPECT_FALSE(sets.confidence.has_value());
  EXPECT_NE(sets.note.find("do not account for the capacity"), std::string::npos) << sets.note;
  // What the chases said is kept: the XOR functions' 2^6 sets, as configured.
  EXPECT_EQ(sets.evidence.at("sets_from_the_chases"), truth.sets);
}

// Where ways x sets x line is the size (within what random replacement moves the size search's
// edge), the check holds and costs the confidence next to nothing.
TEST(HashedIndex, WaysTimesSetsThatAccountForTheSizeStayConclusive) {
  for (const std::string file :
       {"tests/probes/sims/geometry-xor-lru.json", "tests/probes/sims/geometry-xor-random.json"}) {
    SCOPED_TRACE(file);
    const ProbeRun run = run_on_sim(file, kWithLine);
    const Property& ways = property(run, "l1", "ways");
    const Property& sets = property(run, "l1", "sets");
    ASSERT_TRUE(ways.evidence.contains("capacity_check")) << ways.evidence.dump();
    const auto& check = ways.evidence.at("capacity_check");
    EXPECT_FALSE(check.at("contradicts").get<bool>()) << check.dump(1);
    EXPECT_LE(check.at("relative_gap").get<double>(), 0.005);
    EXPECT_FALSE(sets.inconclusive) << sets.note;
  }
}

// Modulo and bit-selected indices: the overfull-set chases and the bit flips answer as before,
// and no eviction set is searched.
TEST(HashedIndex, NoEvictionSetsWhereModuloOrBitsExplainTheSets) {
  for (const std::string file :
       {"tests/probes/sims/geometry-4way-lru.json", "tests/probes/sims/geometry-bits-7-8.json",
        "tests/probes/sims/geometry-16way-random.json"}) {
    SCOPED_TRACE(file);
    const GeometryTruth truth = geometry_truth(file);
    const ProbeRun run = run_on_sim(file, kHashedIndexIds);
    const Property& ways = property(run, "l1", "ways");
    const Property& bits = property(run, "l1", "set_bits");
    EXPECT_EQ(ways.value, truth.ways);
    EXPECT_EQ(bits.value, truth.set_bits);
    EXPECT_FALSE(ways.evidence.contains("eviction_sets"));
    EXPECT_FALSE(bits.evidence.contains("eviction_sets"));
  }
}

}  // namespace
}  // namespace memtopo::testing
