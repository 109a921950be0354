// Which steps of a TLB ladder's staircase are levels (steps_up): sure steps up onto a plateau
// above every one before; a step passed over does not hide the levels after it.
#include <gtest/gtest.h>

#include <vector>

#include "probes/staircase/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// A staircase of plateaus at `means`, the step into plateau k + 1 with `confidences[k]`.
Staircase plateaus(const std::vector<double>& means, const std::vector<double>& confidences) {
  Staircase s;
  for (const double mean : means) {
    StaircaseLevel level;
    level.mean = mean;
    s.levels.push_back(level);
  }
  for (std::size_t k = 0; k + 1 < means.size(); ++k) {
    StaircaseStep step;
    step.jump = means[k + 1] - means[k];
    step.confidence = confidences[k];
    s.steps.push_back(step);
  }
  return s;
}

TEST(TlbSteps, ADriftDownBeforeTheLevelsDoesNotHideThem) {
  // The H200's 32 MiB ladder in one process (plateau means, cycles): 270 at 2-4 elements,
  // a drift to 268.5 at 5-16 (confidence 0.16), the L1 TLB at 22 (0.95), the L2 TLB at 2896 (1).
  const Staircase s = plateaus({270.0, 268.5, 278.7, 373.0}, {0.16, 0.95, 1.0});
  EXPECT_EQ(steps_up(s), (std::vector<std::size_t>{1, 2}));
}

TEST(TlbSteps, AStepUpThatOnlyClimbsBackIsNotALevel) {
  // An H100's 2 MiB ladder: +10 (0.44), -7.6, +8.6; here the last one made sure: it climbs
  // back to where the plateaus were, not above them.
  const Staircase s = plateaus({270.0, 280.0, 272.4, 281.0}, {0.44, 0.25, 0.9});
  EXPECT_TRUE(steps_up(s).empty());
  // Sure and well above every plateau before: a level.
  const Staircase higher = plateaus({270.0, 280.0, 272.4, 300.0}, {0.44, 0.25, 0.9});
  EXPECT_EQ(steps_up(higher), (std::vector<std::size_t>{2}));
}

TEST(TlbSteps, UnsureOrDownStepsAreNeverLevels) {
  EXPECT_TRUE(steps_up(plateaus({270.0, 280.0}, {0.49})).empty());
  EXPECT_TRUE(steps_up(plateaus({280.0, 270.0}, {1.0})).empty());
  EXPECT_EQ(steps_up(plateaus({270.0, 280.0}, {0.5})), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(steps_up(Staircase{}).empty());
}

}  // namespace
}  // namespace memtopo::staircase
