// The one line fit on points of known truth: an exact line, a noisy line of known seed, a line
// with outliers (least squares tilts, Theil-Sen does not), parallel lines sharing a slope, and
// the inputs that have no line (fewer than two points, all x equal, sizes that differ).
#include "analysis/line_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace memtopo {
namespace {

constexpr LineMethod kBothMethods[] = {LineMethod::least_squares, LineMethod::theil_sen};

std::vector<double> on_line(const std::vector<double>& x, double slope, double intercept) {
  std::vector<double> y;
  for (const double v : x) y.push_back(intercept + slope * v);
  return y;
}

TEST(LineFit, ExactLineComesBackByEitherMethod) {
  const std::vector<double> x = {0, 80, 200, 328, 512};
  const std::vector<double> y = on_line(x, 0.5, 130);
  for (const LineMethod method : kBothMethods) {
    const auto fit = fit_line(x, y, method);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->slope, 0.5, 1e-12);
    EXPECT_NEAR(fit->intercept, 130, 1e-9);
    EXPECT_NEAR(fit->r_squared, 1, 1e-12);
    EXPECT_NEAR(fit->residual_stdev, 0, 1e-9);
    EXPECT_EQ(fit->points, 5u);
  }
}

TEST(LineFit, NoisyLineOfKnownSeedGivesItsSlopeAndSpread) {
  // y = 3 x - 7 plus normal noise of sigma 2 (seed 34): 200 points over x in [0, 100).
  std::mt19937_64 random(34);
  std::normal_distribution<double> noise(0, 2);
  std::vector<double> x, y;
  for (int i = 0; i < 200; ++i) {
    x.push_back(i * 0.5);
    y.push_back(3 * x.back() - 7 + noise(random));
  }
  for (const LineMethod method : kBothMethods) {
    const auto fit = fit_line(x, y, method);
    ASSERT_TRUE(fit);
    // The slope's standard error is sigma / sqrt(sum (x - mean)^2) = 2 / 408 = 0.005.
    EXPECT_NEAR(fit->slope, 3, 0.02);
    EXPECT_NEAR(fit->intercept, -7, 1.2);
    EXPECT_GT(fit->r_squared, 0.99);
    EXPECT_LT(fit->r_squared, 1);
    EXPECT_NEAR(fit->residual_stdev, 2, 0.3);
  }
}

TEST(LineFit, OutliersTiltLeastSquaresButNotTheilSen) {
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(i);
    y.push_back(10 + 2.0 * i);
  }
  // Three of twenty points far above the line at its end (an interrupt, a refresh).
  for (const int i : {17, 18, 19}) y[i] += 500;
  const auto robust = fit_line(x, y, LineMethod::theil_sen);
  const auto squares = fit_line(x, y, LineMethod::least_squares);
  ASSERT_TRUE(robust);
  ASSERT_TRUE(squares);
  EXPECT_NEAR(robust->slope, 2, 1e-9);
  EXPECT_NEAR(robust->intercept, 10, 1e-9);
  EXPECT_GT(std::fabs(squares->slope - 2), 10);
  EXPECT_LT(squares->r_squared, 0.6);
  // The Theil-Sen line leaves the outliers as residuals: its R^2 says the line misses them.
  EXPECT_LT(robust->r_squared, 0.5);
  EXPECT_GE(robust->r_squared, 0);
}

TEST(LineFit, DegenerateInputsHaveNoLine) {
  for (const LineMethod method : kBothMethods) {
    EXPECT_FALSE(fit_line(std::vector<double>{}, std::vector<double>{}, method));
    EXPECT_FALSE(fit_line(std::vector<double>{1}, std::vector<double>{2}, method));
    EXPECT_FALSE(fit_line(std::vector<double>{3, 3, 3}, std::vector<double>{2, 3, 4}, method));
    EXPECT_FALSE(fit_line(std::vector<double>{1, 2}, std::vector<double>{2}, method));
  }
}

TEST(LineFit, FlatPointsHaveSlopeZeroAndNothingLeftToExplain) {
  for (const LineMethod method : kBothMethods) {
    const auto flat = fit_line(std::vector<double>{1, 2, 4}, std::vector<double>{5, 5, 5}, method);
    ASSERT_TRUE(flat);
    EXPECT_EQ(flat->slope, 0);
    EXPECT_EQ(flat->intercept, 5);
    EXPECT_EQ(flat->r_squared, 1);
    EXPECT_EQ(flat->residual_stdev, 0);
  }
}

TEST(LineFit, TwoPointsLeaveNoDegreeOfFreedomForASpread) {
  const auto fit = fit_line(std::vector<double>{1, 3}, std::vector<double>{4, 10});
  ASSERT_TRUE(fit);
  EXPECT_DOUBLE_EQ(fit->slope, 3);
  EXPECT_DOUBLE_EQ(fit->intercept, 1);
  EXPECT_EQ(fit->residual_stdev, 0);
}

TEST(LineFit, TheilSenSkipsPairsOfEqualX) {
  // Repeated x (two measurements at one setting) give no slope of their own.
  const auto fit = fit_line(std::vector<double>{1, 1, 2, 2, 3, 3},
                            std::vector<double>{4, 4, 6, 6, 8, 8}, LineMethod::theil_sen);
  ASSERT_TRUE(fit);
  EXPECT_DOUBLE_EQ(fit->slope, 2);
  EXPECT_DOUBLE_EQ(fit->intercept, 2);
}

TEST(ParallelLines, GroupsShareTheSlopeAndKeepTheirIntercepts) {
  // Cost 30 + 2 (d - 1) for group 4 and 33 + 2 (d - 1) for group 8, a +-0.25 jitter.
  std::vector<double> x, y;
  std::vector<std::size_t> group;
  for (int d = 0; d < 16; ++d) {
    const double jitter = d % 2 == 0 ? 0.25 : -0.25;
    x.push_back(d), y.push_back(30 + 2.0 * d + jitter), group.push_back(4);
    x.push_back(d), y.push_back(33 + 2.0 * d - jitter), group.push_back(8);
  }
  const auto fit = fit_parallel_lines(x, y, group);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->slope, 2, 0.01);
  ASSERT_EQ(fit->intercepts.size(), 2u);
  EXPECT_EQ(fit->intercepts[0].first, 4u);
  EXPECT_NEAR(fit->intercepts[0].second, 30, 0.1);
  EXPECT_EQ(fit->intercepts[1].first, 8u);
  EXPECT_NEAR(fit->intercepts[1].second, 33, 0.1);
  EXPECT_GT(fit->r_squared, 0.999);
  EXPECT_NEAR(fit->residual_stdev, 0.25, 0.02);
  EXPECT_EQ(fit->points, 32u);
}

TEST(ParallelLines, OneGroupIsTheLeastSquaresLine) {
  const std::vector<double> x = {0, 1, 2, 5, 9};
  const std::vector<double> y = {1.0, 2.9, 5.2, 11.1, 18.8};
  const auto line = fit_line(x, y);
  const auto lines = fit_parallel_lines(x, y, std::vector<std::size_t>(x.size(), 7));
  ASSERT_TRUE(line);
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->slope, line->slope);
  EXPECT_EQ(lines->intercepts.front().second, line->intercept);
  EXPECT_EQ(lines->r_squared, line->r_squared);
}

TEST(ParallelLines, NoGroupWithTwoDifferentXHasNoSlope) {
  // Each group has one x only: the offsets explain everything, nothing is left for a slope.
  EXPECT_FALSE(fit_parallel_lines(std::vector<double>{1, 1, 2, 2}, std::vector<double>{3, 4, 5, 6},
                                  std::vector<std::size_t>{0, 0, 1, 1}));
  EXPECT_FALSE(
      fit_parallel_lines(std::vector<double>{}, std::vector<double>{}, std::vector<std::size_t>{}));
  EXPECT_FALSE(fit_parallel_lines(std::vector<double>{1, 2}, std::vector<double>{3, 4},
                                  std::vector<std::size_t>{0}));
}

}  // namespace
}  // namespace memtopo
