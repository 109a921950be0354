#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "analysis/reduction.hpp"

namespace memtopo {
namespace {

TEST(Reduction, GeometricPointAgainstAllOnes) {
  const std::vector<double> x{1, 2, 3}, ones{1, 1, 1};
  const auto p = geometric_point(x, ones);
  EXPECT_NEAR(p.along, 6.0 / std::sqrt(3.0), 1e-12);  // <x, 1> / ||1|| = sqrt(3) * mean
  EXPECT_NEAR(p.off_line, std::sqrt(2.0), 1e-12);     // residual (-1, 0, 1)
  EXPECT_NEAR(p.radius, std::sqrt(14.0), 1e-12);
  EXPECT_NEAR(p.angle, std::atan(std::sqrt(2.0) / (6.0 / std::sqrt(3.0))), 1e-12);
}

TEST(Reduction, GeometricPointAgainstAnAxis) {
  const std::vector<double> x{3, 4}, axis{2, 0};  // the reference's length does not matter
  const auto p = geometric_point(x, axis);
  EXPECT_NEAR(p.along, 3, 1e-12);
  EXPECT_NEAR(p.off_line, 4, 1e-12);
  EXPECT_NEAR(p.radius, 5, 1e-12);
  EXPECT_NEAR(p.angle, std::atan2(4.0, 3.0), 1e-12);
  const std::vector<double> opposite{-3, 0};
  EXPECT_NEAR(geometric_point(opposite, axis).angle, std::numbers::pi, 1e-12);
}

TEST(Reduction, DistanceToLineIsBlindToACleanStepButTheRadiusIsNot) {
  const std::vector<double> hits(8, 33.0), misses(8, 260.0), ones(8, 1.0);
  EXPECT_NEAR(geometric_point(hits, ones).off_line, 0, 1e-9);
  EXPECT_NEAR(geometric_point(misses, ones).off_line, 0, 1e-9);
  const std::vector<std::vector<double>> traces{hits, misses};
  const auto g = reduce_traces(traces, Reduction::geometric);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_NEAR(g[0], 33, 1e-9);
  EXPECT_NEAR(g[1], 260, 1e-9);
}

TEST(Reduction, MeanAndRmsFromMinimum) {
  const std::vector<double> x{3, 5, 7};
  EXPECT_DOUBLE_EQ(mean_of(x), 5);
  EXPECT_NEAR(rms_from_min(x), std::sqrt(20.0 / 3.0), 1e-12);  // (0, 2, 4) from the minimum
  const std::vector<double> flat(5, 260.0);
  EXPECT_DOUBLE_EQ(rms_from_min(flat), 0);
}

TEST(Reduction, GeometricTruncatesToTheCommonLengthMeanAndRmsUseEverything) {
  const std::vector<std::vector<double>> traces{{1, 2, 3, 100}, {2, 2}, {0, 4, 9}};
  EXPECT_EQ(common_length(traces), 2u);
  const auto g = reduce_traces(traces, Reduction::geometric);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_NEAR(g[0], std::sqrt(5.0 / 2.0), 1e-12);  // (1, 2)
  EXPECT_NEAR(g[1], 2, 1e-12);                     // (2, 2)
  EXPECT_NEAR(g[2], std::sqrt(16.0 / 2.0), 1e-12);  // (0, 4)
  const auto m = reduce_traces(traces, Reduction::mean);
  EXPECT_DOUBLE_EQ(m[0], 26.5);
  EXPECT_DOUBLE_EQ(m[1], 2);
  EXPECT_DOUBLE_EQ(m[2], 13.0 / 3.0);
  const auto r = reduce_traces(traces, Reduction::rms_from_min);
  EXPECT_NEAR(r[0], std::sqrt((0.0 + 1 + 4 + 99 * 99) / 4.0), 1e-12);
  EXPECT_DOUBLE_EQ(r[1], 0);
  EXPECT_NEAR(r[2], std::sqrt((16.0 + 81) / 3.0), 1e-12);
}

TEST(Reduction, ReferenceIsTruncatedToo) {
  const std::vector<std::vector<double>> traces{{3, 4, 50}, {0, 5}};
  const std::vector<double> axis{1, 0, 7};  // only (1, 0) is used
  const auto angles = geometric_angles(traces, axis);
  ASSERT_EQ(angles.size(), 2u);
  EXPECT_NEAR(angles[0], std::atan2(4.0, 3.0), 1e-12);
  EXPECT_NEAR(angles[1], std::numbers::pi / 2, 1e-12);
  const std::vector<double> ones_angles = geometric_angles(traces);
  EXPECT_NEAR(ones_angles[0], std::atan2(1.0 / std::sqrt(2.0), 7.0 / std::sqrt(2.0)), 1e-12);
}

TEST(Reduction, BadInputIsAnError) {
  const std::vector<std::vector<double>> none;
  EXPECT_THROW(reduce_traces(none, Reduction::mean), std::invalid_argument);
  EXPECT_THROW(common_length(none), std::invalid_argument);
  const std::vector<std::vector<double>> with_empty{{1, 2}, {}};
  EXPECT_THROW(reduce_traces(with_empty, Reduction::geometric), std::invalid_argument);
  EXPECT_THROW(reduce_traces(with_empty, Reduction::mean), std::invalid_argument);
  const std::vector<std::vector<double>> traces{{1, 2, 3}, {4, 5, 6}};
  const std::vector<double> short_ref{1, 1}, zero_ref{0, 0, 0};
  EXPECT_THROW(reduce_traces(traces, Reduction::geometric, short_ref), std::invalid_argument);
  EXPECT_THROW(reduce_traces(traces, Reduction::geometric, zero_ref), std::invalid_argument);
  const std::vector<double> x{1, 2}, r{1, 1, 1};
  EXPECT_THROW(geometric_point(x, r), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
