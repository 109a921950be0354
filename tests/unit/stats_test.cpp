#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "analysis/stats.hpp"

namespace memtopo {
namespace {

std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = n; i >= 1; --i) v.push_back(i);  // descending: summarize must sort
  return v;
}

TEST(Stats, OneToHundred) {
  const auto s = summarize(one_to(100));
  EXPECT_EQ(s.samples, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);   // h = 49.5: midway between 50 and 51
  EXPECT_DOUBLE_EQ(s.p5, 5.95);    // h = 4.95: 5 + 0.95
  EXPECT_DOUBLE_EQ(s.p95, 95.05);  // h = 94.05: 95 + 0.05
  // Sample stdev of 1..n is sqrt(n (n + 1) / 12).
  EXPECT_NEAR(s.stdev, std::sqrt(100.0 * 101.0 / 12.0), 1e-12);
}

TEST(Stats, ConstantSeriesHasNoSpread) {
  const std::vector<double> v(1000, 260.0);
  const auto s = summarize(v);
  EXPECT_DOUBLE_EQ(s.p5, 260);
  EXPECT_DOUBLE_EQ(s.p50, 260);
  EXPECT_DOUBLE_EQ(s.p95, 260);
  EXPECT_DOUBLE_EQ(s.mean, 260);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
}

TEST(Stats, SingleSample) {
  const std::vector<double> v{33.0};
  const auto s = summarize(v);
  EXPECT_EQ(s.samples, 1u);
  EXPECT_DOUBLE_EQ(s.p5, 33);
  EXPECT_DOUBLE_EQ(s.p50, 33);
  EXPECT_DOUBLE_EQ(s.p95, 33);
  EXPECT_DOUBLE_EQ(s.min, 33);
  EXPECT_DOUBLE_EQ(s.max, 33);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
}

TEST(Stats, EmptyIsAnError) {
  const std::vector<double> none;
  EXPECT_THROW(summarize(none), std::invalid_argument);
  EXPECT_THROW(median(none), std::invalid_argument);
  EXPECT_THROW(percentile_of_sorted(none, 0.5), std::invalid_argument);
}

TEST(Stats, SampleStdevUsesNMinusOne) {
  const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};  // population stdev 2, sample sqrt(32/7)
  EXPECT_NEAR(summarize(v).stdev, std::sqrt(32.0 / 7.0), 1e-12);
}

TEST(Stats, PercentileInterpolatesBetweenOrderStatistics) {
  const std::vector<double> sorted{10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.0), 10);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 1.0), 40);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.5), 25);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.25), 17.5);  // h = 0.75
  EXPECT_THROW(percentile_of_sorted(sorted, 1.5), std::invalid_argument);
}

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
}

TEST(Stats, FractionAboveIsStrict) {
  const auto v = one_to(100);
  EXPECT_EQ(count_above(v, 90), 10u);
  EXPECT_DOUBLE_EQ(fraction_above(v, 90), 0.1);
  EXPECT_DOUBLE_EQ(fraction_above(v, 100), 0.0);
  EXPECT_DOUBLE_EQ(fraction_above(std::vector<double>{}, 1), 0.0);
}

TEST(Stats, FractionWithinABandAroundACenter) {
  const std::vector<double> bimodal{260, 261, 259, 260, 440, 441, 439, 440, 260, 440};
  EXPECT_DOUBLE_EQ(fraction_within(bimodal, 260, 0.1), 0.5);
  EXPECT_DOUBLE_EQ(fraction_within(bimodal, 350, 0.1), 0.0);
  EXPECT_DOUBLE_EQ(fraction_within(std::vector<double>{90, 100, 110, 111}, 100, 0.1), 0.75);
  EXPECT_DOUBLE_EQ(fraction_within(std::vector<double>{}, 100, 0.1), 0.0);
}

TEST(Stats, ClearlyFasterNeedsSeparatedBulkAndGap) {
  Spread l1{.p50 = 33, .p5 = 31, .p95 = 35};
  Spread l2{.p50 = 260, .p5 = 258, .p95 = 262};
  Spread l2_again{.p50 = 261, .p5 = 258, .p95 = 263};
  EXPECT_TRUE(clearly_faster(l1, l2));
  EXPECT_FALSE(clearly_faster(l2, l1));
  EXPECT_FALSE(clearly_faster(l2, l2_again));  // overlapping: the same level twice
  Spread tight_but_close{.p50 = 250, .p5 = 250, .p95 = 250};
  EXPECT_FALSE(clearly_faster(tight_but_close, l2));  // separated but only 4 % apart
}

TEST(Stats, ScalingASpreadScalesEveryFigureAndANegativeFactorSwapsTheEnds) {
  const std::vector<double> v = one_to(100);
  std::vector<double> halved, negated;
  for (const double x : v) {
    halved.push_back(x / 2);
    negated.push_back(-x);
  }
  const Spread a = scaled(summarize(v), 0.5), b = summarize(halved);
  EXPECT_DOUBLE_EQ(a.p50, b.p50);
  EXPECT_DOUBLE_EQ(a.p5, b.p5);
  EXPECT_DOUBLE_EQ(a.p95, b.p95);
  EXPECT_DOUBLE_EQ(a.stdev, b.stdev);
  EXPECT_EQ(a.samples, 100u);
  const Spread c = scaled(summarize(v), -1), d = summarize(negated);
  EXPECT_DOUBLE_EQ(c.p5, d.p5);
  EXPECT_DOUBLE_EQ(c.p95, d.p95);
  EXPECT_DOUBLE_EQ(c.min, -100);
  EXPECT_DOUBLE_EQ(c.max, -1);
  EXPECT_DOUBLE_EQ(c.stdev, d.stdev);
  EXPECT_THROW(scaled(a, std::nan("")), std::invalid_argument);
}

TEST(Stats, PairwiseDifferencesHoldBothSidesVariation) {
  const std::vector<double> after{10, 12}, before{1, 2, 3};
  const std::vector<double> d = pairwise_differences(after, before);
  EXPECT_EQ(d, (std::vector<double>{9, 8, 7, 11, 10, 9}));
  const Spread s = summarize(d);
  EXPECT_DOUBLE_EQ(s.min, 7);
  EXPECT_DOUBLE_EQ(s.max, 11);
  EXPECT_DOUBLE_EQ(s.p50, 9);
  EXPECT_THROW(pairwise_differences(after, std::vector<double>{}), std::invalid_argument);
}

// The summary as std::sort and the formulas of stats.hpp give it: what summarize must equal
// exactly, however it orders the samples.
Spread sorted_reference(std::vector<double> sorted) {
  std::sort(sorted.begin(), sorted.end());
  Spread s;
  s.samples = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.p5 = percentile_of_sorted(sorted, 0.05);
  s.p50 = percentile_of_sorted(sorted, 0.50);
  s.p95 = percentile_of_sorted(sorted, 0.95);
  const double n = static_cast<double>(sorted.size());
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  double squares = 0;
  for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
  s.stdev = std::sqrt(squares / (n - 1));
  return s;
}

void expect_identical(const Spread& a, const Spread& b) {
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.p5, b.p5);
  EXPECT_EQ(a.p50, b.p50);
  EXPECT_EQ(a.p95, b.p95);
  EXPECT_EQ(a.mean, b.mean);  // summed in the same (ascending) order: bit for bit
  EXPECT_EQ(a.stdev, b.stdev);
}

// Long traces of whole cycles less a fractional overhead (few distinct values, the case
// summarize counts instead of sorting) and of values all distinct (sorted): both summaries
// equal the std::sort reference bit for bit, and so does the median.
TEST(Stats, LongTracesSummariseExactlyAsSortingThem) {
  std::uint64_t state = 7;
  const auto next = [&] {
    return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33;
  };
  std::vector<double> levels, distinct;
  for (int i = 0; i < 20001; ++i) {
    const double cycles =
        next() % 100 == 0 ? 400 + next() % 50 : (next() % 2 ? 33 : 260) + next() % 3;
    levels.push_back(cycles - 20.37);
    distinct.push_back(static_cast<double>(next()) * 1e-3);
  }
  expect_identical(summarize(levels), sorted_reference(levels));
  expect_identical(summarize(distinct), sorted_reference(distinct));
  EXPECT_EQ(median(levels), sorted_reference(levels).p50);
  levels.pop_back();  // an even count: the mean of the middle two
  EXPECT_EQ(median(levels), sorted_reference(levels).p50);
}

}  // namespace
}  // namespace memtopo
