// The whole set of probes on the Hopper-like simulated device: how much it asks of the device
// and how long it takes. Loads are the budget (the wall time depends on the machine).
#include <gtest/gtest.h>

#include <iostream>

#include "probe_harness.hpp"

namespace memtopo::testing {
namespace {

TEST(Discovery, AllProbesOnHopperLikeStayWithinTheLoadBudget) {
  const ProbeRun sizes_and_latencies = run_on_sim(
      "sims/hopper-like.json",
      {"l1.size", "tex.size", "ro.size", "l1.latency", "tex.latency", "ro.latency",
       "shared.latency", "l2.latency", "dram.latency"});
  const ProbeRun size_alone = run_on_sim("sims/hopper-like.json", {"l1.size"});
  const ProbeRun all = run_on_sim("sims/hopper-like.json");
  EXPECT_TRUE(all.skipped.empty());
  std::cout << "[ discovery ] hopper-like: " << all.seconds << " s, " << all.loads << " loads, "
            << all.batches << " batches (l1.size alone " << size_alone.loads << " loads, "
            << size_alone.batches << " batches)\n";
  ::testing::Test::RecordProperty("seconds", std::to_string(all.seconds));
  ::testing::Test::RecordProperty("loads", std::to_string(all.loads));
  // The size searches dominate: l1's takes 3 doubling batches, 2 sections of 31 footprints and a
  // 9-footprint scan, 3 passes each, about 1.9 million loads, and tex and ro (one cache with l1
  // on this device) take as many; the latencies add about 0.2 million each. A plan that
  // regresses to a scan at every stride would need hundreds of millions.
  EXPECT_LT(sizes_and_latencies.loads, 3 * 2'500'000u);
  EXPECT_LT(sizes_and_latencies.batches, 3 * 16u);
  // The structure inference (sector, line, ways, sets, set bits, policy) may add at most half
  // of what the plain size sweep costs.
  const std::uint64_t inference_loads = all.loads - sizes_and_latencies.loads;
  EXPECT_LE(inference_loads, size_alone.loads / 2);
}

}  // namespace
}  // namespace memtopo::testing
