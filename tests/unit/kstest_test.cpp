#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/kstest.hpp"

namespace memtopo {
namespace {

TEST(KsTest, IdenticalSamplesDoNotDiffer) {
  const std::vector<double> a{5, 1, 3, 3, 9, 2};
  const auto r = ks_two_sample(a, a);
  EXPECT_DOUBLE_EQ(r.statistic, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 1);
  EXPECT_FALSE(r.different);
  EXPECT_DOUBLE_EQ(change_confidence(r), 0);
}

TEST(KsTest, DisjointSamplesDifferCompletely) {
  std::vector<double> low, high;
  for (int i = 0; i < 50; ++i) {
    low.push_back(33 + i % 3);
    high.push_back(260 + i % 5);
  }
  const auto r = ks_two_sample(high, low);
  EXPECT_DOUBLE_EQ(r.statistic, 1);
  EXPECT_TRUE(r.different);
  EXPECT_LT(r.p_value, 1e-15);
  EXPECT_GT(change_confidence(r), 1 - 1e-15);
}

TEST(KsTest, HandComputedStatistic) {
  // F - G: at 2: 2/4 - 0; at 3: 3/4 - 1/4; at 4: 1 - 2/4; afterwards G catches up.
  const std::vector<double> a{1, 2, 3, 4}, b{3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), 0.5);
  EXPECT_DOUBLE_EQ(ks_statistic(b, a), 0.5);
  const std::vector<double> c{1}, d{2, 3};
  EXPECT_DOUBLE_EQ(ks_statistic(c, d), 1);
}

TEST(KsTest, StatisticIsExactForTies) {
  // At 1: 1/4 - 0; at 2, every tied sample of both counted: 3/4 - 3/4 = 0; at 3:
  // 1 - 3/4. Stepping through tied samples one at a time would report 2/4 or more.
  const std::vector<double> a{2, 1, 3, 2}, b{2, 2, 4, 2};
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), 0.25);
  const std::vector<double> same_value_a(7, 260.0), same_value_b(3, 260.0);
  EXPECT_DOUBLE_EQ(ks_statistic(same_value_a, same_value_b), 0);
}

TEST(KsTest, CriticalValueFormula33) {
  EXPECT_NEAR(ks_critical_value(100, 100, 0.05), 0.192065, 1e-6);
  // sqrt(-0.5 ln(0.005) * 30 / 200)
  EXPECT_NEAR(ks_critical_value(10, 20, 0.01), std::sqrt(-0.5 * std::log(0.005) * 0.15), 1e-15);
  EXPECT_GT(ks_critical_value(100, 100, 0.01), ks_critical_value(100, 100, 0.05));
  EXPECT_THROW(ks_critical_value(0, 5, 0.05), std::invalid_argument);
  EXPECT_THROW(ks_critical_value(5, 5, 0.0), std::invalid_argument);
  EXPECT_THROW(ks_critical_value(5, 5, 1.0), std::invalid_argument);
}

TEST(KsTest, KolmogorovDistributionKnownQuantiles) {
  // Upper quantiles of the Kolmogorov distribution: 10 %, 5 %, 1 %.
  EXPECT_NEAR(kolmogorov_q(1.2238), 0.10, 1e-4);
  EXPECT_NEAR(kolmogorov_q(1.3581), 0.05, 1e-4);
  EXPECT_NEAR(kolmogorov_q(1.6276), 0.01, 1e-5);
  // Values of the alternating series (summed to 200 terms elsewhere), on both sides of the
  // switch between the two forms.
  EXPECT_NEAR(kolmogorov_q(0.5), 0.9639452436648751, 1e-12);
  EXPECT_NEAR(kolmogorov_q(0.8), 0.5441424115741981, 1e-12);
  EXPECT_NEAR(kolmogorov_q(1.0), 0.26999967167735456, 1e-12);
  EXPECT_NEAR(kolmogorov_q(2.0), 0.0006709252557796953, 1e-15);
  EXPECT_NEAR(kolmogorov_q(1.18 - 1e-9), kolmogorov_q(1.18 + 1e-9), 1e-8);
  EXPECT_DOUBLE_EQ(kolmogorov_q(0), 1);
  EXPECT_DOUBLE_EQ(kolmogorov_q(0.01), 1);
}

TEST(KsTest, PValueWithEffectiveSizeCorrection) {
  // D = 0.5, n = m = 4: ne = 2, lambda = (sqrt 2 + 0.12 + 0.11 / sqrt 2) * 0.5 = 0.80600.
  const std::vector<double> a{1, 2, 3, 4}, b{3, 4, 5, 6};
  const auto r = ks_two_sample(a, b);
  EXPECT_NEAR(r.p_value, 0.5344157192165071, 1e-9);
  EXPECT_FALSE(r.different);  // d_0.05 = sqrt(-0.5 ln(0.025) * 8 / 16) = 0.960
  EXPECT_NEAR(r.critical_value, 0.960322791, 1e-8);
}

TEST(KsTest, ChangeSplitsTheSeriesAtTheChangePoint) {
  std::vector<double> series;
  for (int i = 0; i < 30; ++i) series.push_back(33 + i % 2);
  for (int i = 0; i < 30; ++i) series.push_back(260 + i % 2);
  EXPECT_DOUBLE_EQ(ks_test_change(series, 30).statistic, 1);
  // Two too early: the right side holds two samples of the low level.
  EXPECT_NEAR(ks_test_change(series, 28).statistic, 1 - 2.0 / 32.0, 1e-12);
  EXPECT_TRUE(ks_test_change(series, 30).different);
  EXPECT_THROW(ks_test_change(series, 0), std::invalid_argument);
  EXPECT_THROW(ks_test_change(series, 60), std::invalid_argument);
}

TEST(KsTest, EmptySampleIsAnError) {
  const std::vector<double> none, some{1, 2};
  EXPECT_THROW(ks_statistic(none, some), std::invalid_argument);
  EXPECT_THROW(ks_two_sample(some, none), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
