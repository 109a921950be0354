// DRAM's launch shape judged at the largest footprints (probes/bandwidth/shape_at_footprints):
// the rule that sweeps the shape that lost at the search's footprint when it read faster than
// the finding, on synthetic measurements, and end to end on simulated devices whose looping warps
// win at the search's footprint and lose beyond it (by 4 %: the rule swaps; by 0.1 %: it does
// not) and whose shapes are equal (it does not run). Ground truth is read from the descriptions.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "probes/bandwidth/shape_at_footprints.hpp"
#include "support/probe_harness.hpp"
#include "support/stream_launches.hpp"

namespace memtopo::testing {
namespace {

constexpr std::uint64_t kShapeMiB = 1ull << 20;
constexpr double kMinGain = 0.003;

// A sweep of `placement` at 8, 4 and 2 GiB at `rate`, all agreeing.
DramFootprintSweep sweep_at(double rate, StreamPlacement placement) {
  DramFootprintSweep sweep;
  for (const std::uint64_t gib : {8, 4, 2}) {
    const double r = rate;
    sweep.points.push_back(
        measured_launches({r * 0.999, r, r * 1.001, r}, gib << 30, placement));
  }
  sweep.agreeing = 3;
  sweep.planned_bytes = 960 * kShapeMiB;
  return sweep;
}

// An H200 at the figures (TB/s): the looping shape won at 960 MiB (4.667) and read 4.555
// at the largest footprints; the one-pass shape had read 4.634 at 960 MiB.
OpOutcome looping_won(double looping_beyond, double one_pass_at_search) {
  OpOutcome outcome;
  outcome.search.min_gain = kMinGain;
  const auto loop = StreamPlacement::shared_by_all;
  outcome.final = measured_launches({4.667, 4.666, 4.668}, 960 * kShapeMiB, loop);
  outcome.other_shape = measured_launches(
      {one_pass_at_search, one_pass_at_search * 1.0005, one_pass_at_search * 0.9995},
      960 * kShapeMiB, StreamPlacement::one_pass);
  outcome.footprint_sweep = sweep_at(looping_beyond, loop);
  outcome.ties.push_back(outcome.final);
  return outcome;
}

TEST(ShapeAtFootprints, TheOtherShapeIsSweptWhenItReadFasterThanTheFindingBeyondTheGain) {
  EXPECT_NEAR(*largest_footprints_rate(sweep_at(4.555, StreamPlacement::shared_by_all)), 4.555,
              1e-12);
  EXPECT_TRUE(other_shape_may_be_faster(looping_won(4.555, 4.634)));  // +1.7 %
  // Within the search's minimum gain (0.3 %) of the finding: no sweep.
  EXPECT_FALSE(other_shape_may_be_faster(looping_won(4.63, 4.634)));  // +0.09 %
  EXPECT_FALSE(other_shape_may_be_faster(looping_won(4.7, 4.634)));   // slower
  // Launches that scatter by a few per cent cannot tell 1.7 % apart.
  OpOutcome noisy = looping_won(4.555, 4.634);
  noisy.other_shape =
      measured_launches({4.45, 4.634, 4.80}, 960 * kShapeMiB, StreamPlacement::one_pass);
  EXPECT_FALSE(other_shape_may_be_faster(noisy));
  // Nothing to sweep without another shape or a sweep of the winner.
  OpOutcome alone = looping_won(4.555, 4.634);
  alone.other_shape.reset();
  EXPECT_FALSE(other_shape_may_be_faster(alone));
  OpOutcome unswept = looping_won(4.555, 4.634);
  unswept.footprint_sweep.reset();
  EXPECT_FALSE(other_shape_may_be_faster(unswept));
}

TEST(ShapeAtFootprints, TheShapeFasterAtTheLargestFootprintsIsTheFinding) {
  OpOutcome outcome = looping_won(4.555, 4.634);
  OpOutcome other = other_shape_outcome(outcome);
  EXPECT_EQ(other.final.spec.placement, StreamPlacement::one_pass);
  EXPECT_EQ(other.search.min_gain, kMinGain);
  other.footprint_sweep = sweep_at(4.63, StreamPlacement::one_pass);
  keep_faster_shape(outcome, std::move(other));
  EXPECT_EQ(outcome.final.spec.placement, StreamPlacement::one_pass);
  EXPECT_NEAR(*largest_footprints_rate(*outcome.footprint_sweep), 4.63, 1e-12);
  ASSERT_TRUE(outcome.other_shape && outcome.other_shape_sweep);
  EXPECT_EQ(outcome.other_shape->spec.placement, StreamPlacement::shared_by_all);
  EXPECT_EQ(outcome.other_shape_sweep->points.front().spec.placement,
            StreamPlacement::shared_by_all);
  EXPECT_TRUE(outcome.ties.empty());  // they tied with the looping shape, which lost
  EXPECT_NE(outcome.shape_choice.find("the finding is one_pass's"), std::string::npos)
      << outcome.shape_choice;
  EXPECT_NE(outcome.shape_choice.find("-2.4"), std::string::npos) << outcome.shape_choice;
}

TEST(ShapeAtFootprints, AnOtherShapeNoFasterAtTheLargestFootprintsLeavesTheFinding) {
  OpOutcome outcome = looping_won(4.555, 4.634);
  OpOutcome other = other_shape_outcome(outcome);
  other.footprint_sweep = sweep_at(4.54, StreamPlacement::one_pass);
  keep_faster_shape(outcome, std::move(other));
  EXPECT_EQ(outcome.final.spec.placement, StreamPlacement::shared_by_all);
  EXPECT_NEAR(*largest_footprints_rate(*outcome.footprint_sweep), 4.555, 1e-12);
  ASSERT_TRUE(outcome.other_shape && outcome.other_shape_sweep);
  EXPECT_EQ(outcome.other_shape->spec.placement, StreamPlacement::one_pass);
  EXPECT_EQ(outcome.ties.size(), 1u);
  EXPECT_NE(outcome.shape_choice.find("the finding stays shared_by_all's"), std::string::npos)
      << outcome.shape_choice;
}

double looping_beyond(const SimTruth& truth) {
  return truth.description.at("throughput").at("looping_dram").at("factor_beyond").get<double>();
}

struct Op {
  const char* name;
  double factor;  // the description's write_factor, copy_factor
};
constexpr Op kOps[] = {{"bandwidth", 1.0}, {"write_bandwidth", 0.8}, {"copy_bandwidth", 0.7}};

// Looping warps read 1 % faster than a one-pass grid over 16 MiB (the search's footprint) and
// 4 % slower over 256 MiB-1 GiB: the looping shape wins where the search looks and the one-pass
// shape is DRAM's rate where the finding is measured.
TEST(DramShapeOnSim, AShapeThatWinsAtTheSearchFootprintButLosesBeyondItIsDisplaced) {
  const char* kSim = "tests/probes/sims/bandwidth-looping-loses-beyond.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth"});
  const SimTruth truth = read_truth(kSim);
  const double dram = truth.dram_bytes_per_second();
  for (const Op& op : kOps) {
    SCOPED_TRACE(op.name);
    const Property& p = property(run, "dram", op.name);
    const double one_pass = op.factor * dram;
    EXPECT_EQ(p.evidence.at("placement").get<std::string>(), "one_pass");
    EXPECT_NEAR(p.value.get<double>(), one_pass, 0.01 * one_pass);
    EXPECT_GE(*p.confidence, 0.9);
    // The displaced shape: faster at the search's footprint, 4 % slower at every swept one.
    const nlohmann::json& other = p.evidence.at("other_launch_shape");
    EXPECT_EQ(other.at("placement").get<std::string>(), "shared_by_all");
    EXPECT_GT(other.at("p50_bytes_per_second").get<double>(), 1.005 * one_pass);
    const nlohmann::json& points = other.at("footprint_sweep").at("points");
    ASSERT_EQ(points.size(), p.evidence.at("footprint_sweep").at("points").size());
    for (const nlohmann::json& point : points) {
      EXPECT_NEAR(point.at("p50_bytes_per_second").get<double>(), looping_beyond(truth) * one_pass,
                  0.01 * one_pass);
    }
    const std::string reason = other.at("reason").get<std::string>();
    EXPECT_NE(reason.find("the finding is one_pass's"), std::string::npos) << reason;
    EXPECT_NE(p.method.find("both launch shapes swept"), std::string::npos) << p.method;
  }
  EXPECT_TRUE(run.topology.warnings.empty()) << run.topology.warnings.front();
}

// The same looping shape losing 0.1 % beyond 128 MiB, less than the search's minimum gain: the
// one-pass shape is not swept, and the finding is the looping shape's at the largest footprints.
TEST(DramShapeOnSim, AShapeThatLosesLessThanTheSearchCanTellStaysTheFinding) {
  const char* kSim = "tests/probes/sims/bandwidth-looping-loses-little.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth"});
  const SimTruth truth = read_truth(kSim);
  const double dram = truth.dram_bytes_per_second();
  for (const Op& op : kOps) {
    SCOPED_TRACE(op.name);
    const Property& p = property(run, "dram", op.name);
    const double looping = looping_beyond(truth) * op.factor * dram;
    EXPECT_EQ(p.evidence.at("placement").get<std::string>(), "shared_by_all");
    EXPECT_NEAR(p.value.get<double>(), looping, 0.01 * looping);
    EXPECT_FALSE(p.evidence.at("other_launch_shape").contains("footprint_sweep"));
    EXPECT_EQ(p.method.find("both launch shapes swept"), std::string::npos) << p.method;
  }
}

// Shapes that read alike (bandwidth-small's model gives both DRAM's peak at every footprint):
// the rule does not run, whichever shape won.
TEST(DramShapeOnSim, ShapesThatReadAlikeAreNotSweptTwice) {
  const ProbeRun run = run_on_sim("tests/probes/sims/bandwidth-small.json", {"dram.bandwidth"});
  for (const Op& op : kOps) {
    SCOPED_TRACE(op.name);
    const Property& p = property(run, "dram", op.name);
    EXPECT_FALSE(p.evidence.at("other_launch_shape").contains("footprint_sweep"));
    EXPECT_FALSE(p.evidence.at("other_launch_shape").contains("reason"));
  }
}

}  // namespace
}  // namespace memtopo::testing
