// l1.carveout and l1.unified_size on simulated devices: the L1 size at every reservation within
// one line of what the description's carveout rule leaves (docs/sim-format.md).
#include <gtest/gtest.h>

#include <algorithm>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kIds = {"l1.size", "l1.sector", "l1.line", "l1.carveout"};

// The L1 the description leaves with `reserved` bytes of shared memory reserved.
std::uint64_t true_l1_bytes(const SimTruth& truth, std::uint64_t reserved) {
  const auto& shared = truth.description.at("shared_memory");
  const std::uint64_t size = truth.cache("L1").at("size_bytes");
  if (!shared.contains("carveout_steps_bytes")) return size;
  const auto& steps = shared.at("carveout_steps_bytes");
  for (const auto& step : steps) {
    if (step.get<std::uint64_t>() >= reserved)
      return size - (step.get<std::uint64_t>() - steps[0].get<std::uint64_t>());
  }
  ADD_FAILURE() << "reservation " << reserved << " beyond the last carveout step";
  return 0;
}

TEST(Carveout, EveryReservationsL1IsWithinOneLineOfTheTruth) {
  const std::string file = "tests/probes/sims/hopper-like-small.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, kIds);
  const Property& table = property(run, "l1", "carveout");
  const double line = truth.cache("L1").at("line_bytes").get<double>();
  ASSERT_EQ(table.value.size(), 5u) << table.value;
  std::uint64_t previous_reserved = 0;
  for (std::size_t i = 0; i < table.value.size(); ++i) {
    const auto& row = table.value[i];
    const std::uint64_t reserved = row.at("reserved_shared_bytes");
    SCOPED_TRACE("reserved " + std::to_string(reserved));
    if (i > 0) {
      EXPECT_GT(reserved, previous_reserved);
    }
    previous_reserved = reserved;
    ASSERT_TRUE(row.at("l1_bytes").is_number()) << table.note;
    EXPECT_NEAR(row.at("l1_bytes").get<double>(), true_l1_bytes(truth, reserved), line);
    EXPECT_GE(row.at("confidence").get<double>(), 0.8);
    // The search's step, which the truth lies within (rows the search found, row 0 included):
    // every placement of a modulo-indexed sim finds the same edge.
    EXPECT_EQ(row.at("resolution_bytes").get<double>(), line);
    if (i == 0) continue;  // l1.size's own row
    ASSERT_EQ(row.at("placements").size(), 2u) << row;
    for (const auto& placed : row.at("placements")) {
      EXPECT_EQ(placed.at("l1_bytes"), row.at("l1_bytes")) << placed;
    }
  }
  // The largest reservation is the API's opt-in maximum, which is the last carveout step here:
  // the bound L1(R) + R is then the unified capacity itself.
  EXPECT_EQ(previous_reserved, run.topology.device.shared_per_block_optin_bytes);
  const Property& unified = property(run, "l1", "unified_size");
  EXPECT_EQ(unified.source, Source::derived);
  EXPECT_EQ(unified.bound, Bound::lower);
  const double truth_unified =
      truth.cache("L1").at("size_bytes").get<double>() +
      truth.description.at("shared_memory").at("carveout_steps_bytes")[0].get<double>();
  EXPECT_NEAR(unified.value.get<double>(), truth_unified, line);
  // A bound carries no confidence; the table is no surer than its least sure row (the rows it
  // measured by its own factors, l1.size's row by the runner's cap at l1.size, which the plan
  // read).
  EXPECT_FALSE(unified.confidence);
  double least = 1;
  for (const auto& row : table.value) least = std::min(least, row.at("confidence").get<double>());
  ASSERT_TRUE(table.confidence);
  EXPECT_LE(*table.confidence, least);
}

TEST(Carveout, AnL1ApartFromSharedMemoryKeepsItsSizeAndHasNoUnifiedSize) {
  const std::string file = "tests/probes/sims/kepler-like.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, kIds);
  const Property& table = property(run, "l1", "carveout");
  for (const auto& row : table.value) {
    ASSERT_TRUE(row.at("l1_bytes").is_number());
    EXPECT_NEAR(row.at("l1_bytes").get<double>(), truth.cache("L1").at("size_bytes").get<double>(),
                truth.cache("L1").at("line_bytes").get<double>());
  }
  EXPECT_EQ(run.topology.find("l1")->find("unified_size"), nullptr);
  EXPECT_NE(table.note.find("separate"), std::string::npos) << table.note;
}

TEST(Carveout, SkippedWithTheReasonWhenTheL1DoesNotCacheCa) {
  const ProbeRun run = run_on_sim("tests/probes/sims/maxwell-like.json", kIds);
  ASSERT_TRUE(run.skipped.count("l1.carveout"));
  EXPECT_NE(run.skipped.at("l1.carveout").find("does not cache ca"), std::string::npos)
      << run.skipped.at("l1.carveout");
  EXPECT_TRUE(run.skipped.count("l1.size"));
}

}  // namespace
}  // namespace memtopo::testing
