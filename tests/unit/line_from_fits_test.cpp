// The line from one fit verdict per unit (the L2 line probe's analysis).
#include "analysis/line_from_fits.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace memtopo {
namespace {

constexpr std::uint64_t kSector = 32;

UnitFit fit(std::uint64_t unit, double score = 0.0) {
  return {unit, true, score};
}
UnitFit miss(std::uint64_t unit, double score = 1.0) {
  return {unit, false, score};
}

TEST(LineFromFits, SmallestFittingUnitAboveAMissIsTheLine) {
  // Descending order, as the probe runs it: the analysis sorts.
  const std::vector<UnitFit> fits = {fit(1024), fit(512), fit(256), fit(128), miss(64)};
  const auto r = infer_line_from_unit_fits(fits, kSector, miss(128));
  ASSERT_TRUE(r.line_bytes.has_value()) << r.note;
  EXPECT_EQ(*r.line_bytes, 128u);
  EXPECT_EQ(r.smallest_fitting_unit, 128u);
  EXPECT_EQ(r.largest_missing_unit, 64u);
  EXPECT_TRUE(r.cross_check_agrees);
  // By hand: contrast 1 (clean verdicts); 5 unit verdicts and the cross-check agree: agreement
  // (6 + 1) / (6 + 2).
  EXPECT_DOUBLE_EQ(r.confidence.value(), 7.0 / 8.0);
  ASSERT_EQ(r.confidence.factors().size(), 2u);
  EXPECT_EQ(r.confidence.factors()[0].rule, "contrast");
  EXPECT_EQ(r.confidence.factors()[1].rule, "agreement");
  // size / capacity-in-elements lies in (4/5, 4/3] x line: around the line.
  EXPECT_LT(r.size_over_capacity_low_bytes, 128.0);
  EXPECT_GT(r.size_over_capacity_high_bytes, 128.0);
}

TEST(LineFromFits, ContrastLowersTheConfidence) {
  const std::vector<UnitFit> fits = {fit(256, 0.1), fit(128, 0.2), miss(64, 0.8)};
  const auto r = infer_line_from_unit_fits(fits, kSector, miss(128));
  ASSERT_TRUE(r.line_bytes.has_value());
  // By hand: contrast (0.8 - 0.2) / 0.8 = 0.75; 3 verdicts and the cross-check agree: 5 / 6.
  EXPECT_NEAR(r.contrast, 0.75, 1e-12);
  EXPECT_NEAR(r.confidence.value(), 0.75 * 5.0 / 6.0, 1e-12);
}

TEST(LineFromFits, UnsectoredLineAtTheSmallestUnitNeedsNoMissBelow) {
  const std::vector<UnitFit> fits = {fit(256), fit(128), fit(64)};
  const auto r = infer_line_from_unit_fits(fits, 64, miss(64));
  ASSERT_TRUE(r.line_bytes.has_value()) << r.note;
  EXPECT_EQ(*r.line_bytes, 64u);
  EXPECT_EQ(r.largest_missing_unit, 0u);
  // By hand: contrast 1 - 0 (no miss: against a full miss score); 3 fits and the cross-check
  // agree: (4 + 1) / (4 + 2). No miss below is one check fewer, nothing else.
  EXPECT_DOUBLE_EQ(r.confidence.value(), 5.0 / 6.0);
}

TEST(LineFromFits, AFitAtTheSmallestTriedUnitAboveTheSectorIsOnlyABound) {
  const std::vector<UnitFit> fits = {fit(256), fit(128)};
  const auto r = infer_line_from_unit_fits(fits, kSector, miss(128));
  EXPECT_FALSE(r.line_bytes.has_value());
  EXPECT_NE(r.note.find("at most"), std::string::npos) << r.note;
}

TEST(LineFromFits, NoFitIsInconclusive) {
  const std::vector<UnitFit> fits = {miss(1024)};
  const auto r = infer_line_from_unit_fits(fits, kSector, std::nullopt);
  EXPECT_FALSE(r.line_bytes.has_value());
  EXPECT_EQ(r.smallest_fitting_unit, 0u);
  EXPECT_NE(r.note.find("no unit held"), std::string::npos) << r.note;
  EXPECT_FALSE(infer_line_from_unit_fits({}, kSector, std::nullopt).line_bytes.has_value());
}

TEST(LineFromFits, VerdictsThatFlipTwiceAreInconclusive) {
  const std::vector<UnitFit> fits = {fit(1024), miss(512), fit(256), miss(128)};
  const auto r = infer_line_from_unit_fits(fits, kSector, std::nullopt);
  EXPECT_FALSE(r.line_bytes.has_value());
  EXPECT_NE(r.note.find("flip"), std::string::npos) << r.note;
}

TEST(LineFromFits, ACrossCheckThatFitsIsACheckThatDisagrees) {
  const std::vector<UnitFit> fits = {fit(256), fit(128), miss(64)};
  const auto agrees = infer_line_from_unit_fits(fits, kSector, miss(128));
  const auto disagrees = infer_line_from_unit_fits(fits, kSector, fit(128));
  const auto missing = infer_line_from_unit_fits(fits, kSector, std::nullopt);
  ASSERT_TRUE(disagrees.line_bytes.has_value());
  EXPECT_FALSE(disagrees.cross_check_agrees);
  // By hand, with contrast 1: agrees 4 of 4 checks (5 / 6), disagrees 3 of 4 (4 / 6), missing
  // 3 of 3 (4 / 5).
  EXPECT_DOUBLE_EQ(agrees.confidence.value(), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(disagrees.confidence.value(), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(missing.confidence.value(), 4.0 / 5.0);
  EXPECT_NE(disagrees.note.find("cross-check disagrees"), std::string::npos);
}

}  // namespace
}  // namespace memtopo
