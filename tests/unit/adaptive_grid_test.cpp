// The rules of the adaptive grid (analysis/adaptive_grid): the coarse pass, the least rise, which
// gaps are refined and why, and the noise the whole grid would show. That a ladder measured so
// finds the TLB row's levels where the whole grid does: tests/probes/tlb/tlb_adaptive_grid_test.
#include "analysis/adaptive_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "analysis/changepoint.hpp"

namespace memtopo {
namespace {

// Chain lengths of a sqrt(2) grid from 2 to 64 (the ladders' footprint_grid, in elements).
const std::vector<std::uint64_t> kGrid{2, 4, 5, 8, 11, 16, 22, 32, 45, 64};

// The staircase of `values` at `lengths`: each trace the value, +-1 on alternate accesses.
Staircase staircase_of(const std::vector<std::uint64_t>& lengths,
                       const std::vector<double>& values) {
  std::vector<std::vector<double>> traces;
  for (const double v : values) {
    std::vector<double> trace;
    for (int k = 0; k < 256; ++k) trace.push_back(v + (k % 2 == 0 ? 1.0 : -1.0));
    traces.push_back(trace);
  }
  return analyze_staircase(lengths, traces);
}

const GapToRefine* gap_from(const std::vector<GapToRefine>& gaps, std::uint64_t from) {
  const auto it =
      std::find_if(gaps.begin(), gaps.end(), [&](const GapToRefine& g) { return g.from == from; });
  return it == gaps.end() ? nullptr : &*it;
}

TEST(CoarsePoints, EveryOtherPointAndTheLast) {
  EXPECT_EQ(coarse_points(kGrid, 2), (std::vector<std::uint64_t>{2, 5, 11, 22, 45, 64}));
  EXPECT_EQ(coarse_points(kGrid, 1), kGrid);
  EXPECT_EQ(coarse_points(std::vector<std::uint64_t>{2, 4, 5}, 2),
            (std::vector<std::uint64_t>{2, 5}));
}

TEST(LeastRiseToRefine, ALevelsLeastRiseLessThreeSigmasOfAPlateausDifference) {
  // 0.5 x 10 sigma (the least rise of a level) - 3 sqrt(2) sigma.
  EXPECT_NEAR(least_rise_to_refine(1.0, 0.5), 5.0 - 3.0 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(least_rise_to_refine(2.0, 0.5), 2 * (5.0 - 3.0 * std::sqrt(2.0)), 1e-12);
  EXPECT_EQ(least_rise_to_refine(1.0, 0.1), 0.0);  // never below 0
}

// A step of 30 between 11 and 22 on the coarse pass 2, 5, 11, 22, 45, 64: its gap rises and gets
// its middle length, 16; the gaps of the plateau after it stay coarse (it is the last); the plateau
// before it (2, 5, 11: 3 of the grid's 5 lengths) is thin, its widest gap refined.
TEST(GapsToRefine, ARisingGapGetsItsMiddleLengthAThinPlateauItsWidestGap) {
  const std::vector<std::uint64_t> coarse = coarse_points(kGrid, 2);
  const Staircase s = staircase_of(coarse, {260, 260.2, 260.1, 290, 290.1, 290.2});
  const auto gaps = gaps_to_refine(s, kGrid, least_rise_to_refine(s.noise_sigma, 0.5));
  const GapToRefine* step = gap_from(gaps, 11);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->to, 22u);
  EXPECT_EQ(step->middle, 16u);
  EXPECT_EQ(step->reason, GapReason::rises);
  const GapToRefine* thin = gap_from(gaps, 2);
  ASSERT_NE(thin, nullptr);
  EXPECT_EQ(thin->middle, 4u);
  EXPECT_EQ(thin->reason, GapReason::thin_plateau);
  EXPECT_EQ(gap_from(gaps, 22), nullptr);
  EXPECT_EQ(gap_from(gaps, 45), nullptr);
  EXPECT_EQ(gaps.size(), 2u);
}

// A rise of 0.3 over a noise of 0.5 (the floor) is below the least rise (0.38): no gap refined on
// a staircase without steps.
TEST(GapsToRefine, ARiseWithinTheNoiseIsLeftCoarse) {
  const std::vector<std::uint64_t> coarse = coarse_points(kGrid, 2);
  const Staircase s = staircase_of(coarse, {260, 260.3, 260, 260.3, 260, 260.3});
  ASSERT_TRUE(s.steps.empty());
  EXPECT_TRUE(gaps_to_refine(s, kGrid, least_rise_to_refine(s.noise_sigma, 0.5)).empty());
}

TEST(GapsToRefine, NothingInsideOneIntervalOfTheFineGrid) {
  const Staircase s = staircase_of(kGrid, {260, 260, 260, 260, 260, 290, 290, 290, 290, 290});
  EXPECT_TRUE(gaps_to_refine(s, kGrid, 0.0).empty());
}

// Differences across a gap of two grid intervals count twice: the noise of 2, 5 (+1), 11 (-1),
// 16 (+1), 22 (-1) is that of differences +1, +1, -1, -1 (the gaps 2-5 and 5-11 count twice), +1,
// -1, not of +1, -1, +1, -1 alone.
TEST(GridNoiseSigma, CountsADifferenceOnceForEveryIntervalOfTheGridItSpans) {
  const std::vector<std::uint64_t> lengths{2, 5, 11, 16, 22};
  const std::vector<double> series{0, 1, 0, 1, 0};
  const std::vector<double> weighted{1, 1, -1, -1, 1, -1};
  EXPECT_DOUBLE_EQ(grid_noise_sigma(series, lengths, kGrid),
                   robust_noise_sigma_of_differences(weighted));
  // A grid measured whole: the series' own noise.
  const std::vector<double> whole{0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  EXPECT_DOUBLE_EQ(grid_noise_sigma(whole, kGrid, kGrid), robust_noise_sigma(whole));
}

}  // namespace
}  // namespace memtopo
