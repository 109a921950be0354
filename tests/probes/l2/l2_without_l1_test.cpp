// The L2 staircase on a GPU whose L1 does not cache global loads (ca ≈ cg), so that no l1.size
// plans its start: it starts from the API's L2 size instead of a fixed 1 MiB, which left a
// 1 MiB L2 a sweep of 1 to 3 MiB, too short to run, and no l2.size at all.
#include <gtest/gtest.h>

#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

TEST(L2StaircaseWithoutAnL1, A1MiBL2IsMeasuredFromTheApiSize) {
  for (const std::string path : {"tests/probes/sims/maxwell-like.json",
                                 "tests/validation/generations/maxwell-gm108.json"}) {
    SCOPED_TRACE(path);
    const SimTruth truth = read_truth(path);
    const ProbeRun run = run_on_sim(path, {"l1.size", "l2.size"});
    EXPECT_EQ(run.topology.find("l1"), nullptr);  // l1.size skipped: ca is not cached
    const Property& size = property(run, "l2", "size");
    ASSERT_TRUE(size.value.is_number()) << size.note;
    EXPECT_EQ(size.source, Source::measured);
    EXPECT_FALSE(size.inconclusive) << size.note;
    const double l2 = truth.cache("L2").at("size_bytes").get<double>();
    EXPECT_NEAR(size.value.get<double>(), l2, truth.cache("L2").at("line_bytes").get<double>());
    EXPECT_GT(*size.confidence, 0.9);
  }
}

}  // namespace
}  // namespace memtopo::testing
