// The whole set of probes on the Hopper-like simulated device: how much it asks of the device
// and how long it takes. Loads are the budget (the wall time depends on the machine).
#include <gtest/gtest.h>

#include <iostream>

#include "probe_harness.hpp"

namespace memtopo::testing {
namespace {

TEST(Discovery, AllProbesOnHopperLikeStayWithinTheLoadBudget) {
  const ProbeRun run = run_on_sim("sims/hopper-like.json");
  EXPECT_TRUE(run.skipped.empty());
  std::cout << "[ discovery ] hopper-like: " << run.seconds << " s, " << run.loads << " loads, "
            << run.batches << " batches\n";
  ::testing::Test::RecordProperty("seconds", std::to_string(run.seconds));
  ::testing::Test::RecordProperty("loads", std::to_string(run.loads));
  // l1.size dominates: 3 doubling batches, 2 sections of 31 footprints around 192 KiB, a
  // 9-footprint scan, 3 passes each: about 1.9 million loads; the latencies add about 0.2
  // million. A plan that regresses to a scan at every stride would need hundreds of millions.
  EXPECT_LT(run.loads, 2'500'000u);
  EXPECT_LT(run.batches, 16u);
}

}  // namespace
}  // namespace memtopo::testing
