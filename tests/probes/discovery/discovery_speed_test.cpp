// The whole set of probes on the Hopper-like simulated device: how much it asks of the device
// and how long it takes. Loads and batches are the budget (the time depends on the machine and
// the build; bench/analysis-time checks the analysis time on an optimised build).
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kL1Sizes = {"l1.size", "tex.size", "ro.size"};
// The structure inference of issue 3 on the L1: sector, line, ways, sets, set bits, policy.
const std::vector<std::string> kL1Inference = {"l1.sector", "l1.line",     "l1.ways",
                                               "l1.sets",   "l1.set_bits", "l1.policy"};

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Discovery, StructureInferenceAddsAtMostHalfOfThePlainSizeSweep) {
  const ProbeRun size_alone = run_on_sim("sims/hopper-like.json", {"l1.size"});
  const ProbeRun with_inference =
      run_on_sim("sims/hopper-like.json", joined({"l1.size"}, kL1Inference));
  const std::uint64_t inference_loads = with_inference.loads - size_alone.loads;
  std::cout << "[ discovery ] l1.size " << size_alone.loads << " loads, inference "
            << inference_loads << " loads\n";
  EXPECT_LE(inference_loads, size_alone.loads / 2);
}

// The same for the L2, whose geometry chases run alone over the whole device-wide cache:
// sector, line, ways, sets, set bits and policy against the L2 staircase that finds the size.
TEST(Discovery, L2StructureInferenceAddsAtMostHalfOfItsSizeStaircase) {
  const std::vector<std::string> before_l2 = {"l1.size", "l1.sector", "l1.line"};
  const ProbeRun size_alone = run_on_sim("sims/hopper-like.json", joined(before_l2, {"l2.size"}));
  const ProbeRun with_inference = run_on_sim(
      "sims/hopper-like.json", joined(before_l2, {"l2.size", "l2.sector", "l2.line", "l2.ways",
                                                  "l2.sets", "l2.set_bits", "l2.policy"}));
  const ProbeRun before = run_on_sim("sims/hopper-like.json", before_l2);
  const std::uint64_t size_loads = size_alone.loads - before.loads;
  const std::uint64_t inference_loads = with_inference.loads - size_alone.loads;
  std::cout << "[ discovery ] l2.size " << size_loads << " loads, inference " << inference_loads
            << " loads\n";
  EXPECT_TRUE(with_inference.skipped.empty())
      << with_inference.skipped.begin()->first << ": " << with_inference.skipped.begin()->second;
  EXPECT_LE(inference_loads, size_loads / 2);
}

TEST(Discovery, AllProbesOnHopperLikeStayWithinTheLoadBudget) {
  const ProbeRun sizes = run_on_sim("sims/hopper-like.json", kL1Sizes);
  const ProbeRun all = run_on_sim("sims/hopper-like.json");
  // Only the Hopper group skips (clusters, TMA, instruction caches are not simulated).
  for (const auto& [id, reason] : all.skipped) {
    EXPECT_NE(reason.find("the simulated device does not model"), std::string::npos)
        << id << ": " << reason;
  }
  std::cout << "[ discovery ] hopper-like: " << all.seconds << " s, " << all.loads << " loads, "
            << all.batches << " batches (l1/tex/ro sizes " << sizes.loads << " loads, "
            << sizes.batches << " batches)\n";
  // Everything but the backend is planning and analysis of the traces. Its time is printed
  // and recorded, not asserted: a time depends on the machine, its load and the build (9.5 s
  // under the sanitizers against 0.5 s optimised). bench/analysis-time holds it to its budget
  // of 1 s of one core on an optimised build; this test holds the work to its budget.
  const double analysis_seconds = all.cpu_seconds - all.backend_cpu_seconds;
  std::cout << "[ discovery ] CPU: analysis and planning " << analysis_seconds
            << " s, simulated device " << all.backend_cpu_seconds << " s\n";
  ::testing::Test::RecordProperty("analysis_seconds", std::to_string(analysis_seconds));
  ::testing::Test::RecordProperty("batches", std::to_string(all.batches));
  ::testing::Test::RecordProperty("seconds", std::to_string(all.seconds));
  ::testing::Test::RecordProperty("loads", std::to_string(all.loads));
  // Each of the three SM size searches takes 3 doubling batches, 2 sections of 31 footprints
  // and a 9-footprint scan, 3 passes each: about 1.9 million loads; tex and ro (one cache
  // with l1 on this device) take as many. A plan that regressed to a scan at every stride
  // would need hundreds of millions.
  EXPECT_LT(sizes.loads, 3 * 2'500'000u);
  EXPECT_LT(sizes.batches, 3 * 16u);
  // The L2 staircase dominates the rest: footprints up to 3x its 50 MiB at one load per
  // 128 B line are about 13 million loads (one warm pass and the timed loads of each); every
  // other probe together stays below the SM size searches.
  EXPECT_LT(all.loads, 40'000'000u);
  // Experiments: each batch is one launch on a GPU, with its fixed cost. About 420 today, of
  // which the TLB row takes 174: its scan of the L2 TLB's 64 sets alone 72 chain lengths, each a
  // chase of its own; since f7eabfd the L1 TLB's 9 lengths 3 chases each, and since 529f601 the
  // confirmation of each level's first count (5 chases) and a batch per block of hit baselines.
  // The latency patterns take 12. On the H200 the TLB row took 2.0-2.5 s with all of that
  // (docs/results/nvidia-h200/2026-11-28_f7eabfd), as before it.
  EXPECT_LT(all.batches, 450u);
}

}  // namespace
}  // namespace memtopo::testing
