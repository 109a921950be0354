// The constant staircase on constant caches that end close to the bank's end (64 KiB on a
// simulated device), where the coarse grid's last interval (45.25 to 64 KiB) holds the step:
// found exactly when footprints after it can form a plateau, a true lower bound otherwise; and
// on a device whose staircase ends at the L2, which is no constant cache.
// (Sizes well inside or beyond the bank: staircase_probe_test.cpp.)
#include <gtest/gtest.h>

#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

TEST(ConstantCachesNearTheBankEnd, A46KiBL15EndingInTheGridsLastIntervalIsFound) {
  const std::string path = "tests/probes/sims/constant-l15-46k.json";
  const SimTruth truth = read_truth(path);
  const ProbeRun run = run_on_sim(path, {"constant_l1.size"});
  const Property& size = property(run, "constant_l15", "size");
  ASSERT_TRUE(size.value.is_number()) << size.note;
  EXPECT_FALSE(size.inconclusive) << size.note;  // was "> 64 KiB": a bound excluding 46 KiB
  EXPECT_EQ(size.value.get<double>(), truth.cache("constant L1.5").at("size_bytes").get<double>());
  // 0.60 here: the split footprints, 8 % apart, sample the overflow ramp of an 8-way LRU cache
  // (half its sets overfull 8 % past its size) in pieces, and the step's sharpness says so.
  EXPECT_GE(*size.confidence, 0.5);
  EXPECT_NEAR(property(run, "constant_l15", "latency").value.get<double>(),
              truth.cache("constant L1.5").at("hit_latency").get<double>(), truth.jitter());
}

TEST(ConstantCachesNearTheBankEnd, A63KiBL15EndingJustBeforeTheBankIsATrueLowerBound) {
  const std::string path = "tests/probes/sims/constant-l15-63k.json";
  const SimTruth truth = read_truth(path);
  const ProbeRun run = run_on_sim(path, {"constant_l1.size"});
  const Property& size = property(run, "constant_l15", "size");
  const double configured = truth.cache("constant L1.5").at("size_bytes").get<double>();
  ASSERT_TRUE(size.value.is_number()) << size.note;
  if (!size.inconclusive) {  // a step the split of the last interval reached: exact
    EXPECT_EQ(size.value.get<double>(), configured);
    return;
  }
  EXPECT_EQ(size.bound, Bound::lower);
  EXPECT_LE(size.value.get<double>(), configured) << size.note;
  EXPECT_NE(size.note.find("already misses to L2"), std::string::npos) << size.note;
}

// A device with one constant cache (tests/sims/tiny.json): the staircase's second level is the
// L2 (no faster than a cg chase), not a constant L1.5: no constant_l15 size is reported (it was
// "> 64 KiB", then, with the bank-end check, "> 1.38 KiB": claims of a cache there is not).
TEST(ConstantCachesNearTheBankEnd, TheL2LevelIsNoConstantCache) {
  const std::string path = "tests/sims/tiny.json";
  const SimTruth truth = read_truth(path);
  const ProbeRun run = run_on_sim(path, {"constant_l1.size"});
  EXPECT_EQ(property(run, "constant_l1", "size").value.get<double>(),
            truth.cache("constant L1").at("size_bytes").get<double>());
  const Element* l15 = run.topology.find("constant_l15");
  EXPECT_TRUE(l15 == nullptr || l15->find("size") == nullptr);
}

}  // namespace
}  // namespace memtopo::testing
