// Knee detection on synthetic bandwidth-versus-footprint curves: sharp steps (an LRU cache on a
// simulated device), gradual ones (a real L2 with hashed sets), noise and curves without knees.
#include "analysis/knees.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;

// Footprints from `first` upwards, `per_octave` points per doubling, `count` points.
std::vector<double> geometric(double first, int per_octave, int count) {
  std::vector<double> footprints;
  for (int i = 0; i < count; ++i) footprints.push_back(first * std::exp2(double(i) / per_octave));
  return footprints;
}

// A staircase: `levels[i]` while the footprint is at most `sizes[i]`, the last level beyond.
std::vector<double> staircase(const std::vector<double>& footprints,
                              const std::vector<double>& sizes, const std::vector<double>& levels) {
  std::vector<double> bandwidths;
  for (double f : footprints) {
    std::size_t level = 0;
    while (level < sizes.size() && f > sizes[level]) ++level;
    bandwidths.push_back(levels[level]);
  }
  return bandwidths;
}

TEST(Knees, OneSharpStepLandsOnTheSizeWithinTheResolution) {
  const auto f = geometric(4 * kKiB, 4, 33);  // 4 KiB .. 1 MiB
  const double size = 240 * kKiB;
  const auto b = staircase(f, {size}, {120, 40});
  const auto knees = find_knees(f, b);
  ASSERT_EQ(knees.size(), 1u);
  const double resolution = sweep_resolution(f);
  EXPECT_NEAR(resolution, std::exp2(0.25), 1e-9);
  EXPECT_TRUE(knee_agrees(knees[0], size, resolution));
  EXPECT_LE(knees[0].last_high_bytes, size);
  EXPECT_GT(knees[0].first_low_bytes, size);
  EXPECT_LT(std::fabs(std::log(knees[0].footprint_bytes / size)), std::log(resolution));
  EXPECT_DOUBLE_EQ(knees[0].upper_bandwidth, 120);
  EXPECT_DOUBLE_EQ(knees[0].lower_bandwidth, 40);
}

TEST(Knees, TwoStepsGiveTwoKneesInOrder) {
  const auto f = geometric(16 * kKiB, 4, 45);  // 16 KiB .. 32 MiB
  const auto b = staircase(f, {192 * kKiB, 4 * kMiB}, {100, 40, 10});
  const auto knees = find_knees(f, b);
  ASSERT_EQ(knees.size(), 2u);
  EXPECT_TRUE(knee_agrees(knees[0], 192 * kKiB, sweep_resolution(f)));
  EXPECT_TRUE(knee_agrees(knees[1], 4 * kMiB, sweep_resolution(f)));
  EXPECT_EQ(nearest_knee(knees, 5 * kMiB), &knees[1]);
  EXPECT_EQ(nearest_knee(knees, 100 * kKiB), &knees[0]);
}

TEST(Knees, AGradualFallIsOneKneeWhoseIntervalHoldsTheSize) {
  // The shape of an H200's L2 -> DRAM transition (gpu-l2-cache): a slow decline on the
  // plateau, then a fall over several points to the DRAM level.
  const std::vector<double> f = {24, 28, 32, 36, 40,  44,  48,  53,  58,  63,
                                 70, 76, 83, 92, 100, 110, 120, 135, 150, 165};  // MB
  const std::vector<double> b = {10.6, 10.3, 9.8, 9.9,  9.8,  9.6, 9.1,  7.5,  6.5,  5.1,
                                 4.5,  4.2,  4.0, 3.95, 3.92, 3.9, 3.89, 3.89, 3.89, 3.89};
  const auto knees = find_knees(f, b);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_TRUE(knee_agrees(knees[0], 50, sweep_resolution(f)));
  EXPECT_FALSE(knee_agrees(knees[0], 25, sweep_resolution(f)));
  EXPECT_GT(knees[0].footprint_bytes, 48);
  EXPECT_LT(knees[0].footprint_bytes, 63);
}

TEST(Knees, OneSlowLaunchMakesNoKnee) {
  const auto f = geometric(4 * kKiB, 4, 20);
  std::vector<double> b(f.size(), 100.0);
  b[7] = 30;  // one launch interrupted
  EXPECT_TRUE(find_knees(f, b).empty());
}

TEST(Knees, NoiseOnPlateausMovesNothing) {
  const auto f = geometric(4 * kKiB, 4, 33);
  auto b = staircase(f, {64 * kKiB}, {100, 50});
  for (std::size_t i = 0; i < b.size(); ++i) b[i] *= 1 + 0.03 * std::sin(3.0 * double(i));
  const auto knees = find_knees(f, b);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_TRUE(knee_agrees(knees[0], 64 * kKiB, sweep_resolution(f)));
}

TEST(Knees, RisingStartsAndSmallStepsAreNoKnees) {
  const auto f = geometric(1 * kKiB, 4, 16);
  // Small windows are slow (launch overhead), then the curve levels off: no fall at all.
  std::vector<double> rising;
  for (double x : f) rising.push_back(100 * x / (x + 2 * kKiB));
  EXPECT_TRUE(find_knees(f, rising).empty());
  // A 15 % step is less than the 25 % a knee needs.
  EXPECT_TRUE(find_knees(f, staircase(f, {8 * kKiB}, {100, 85})).empty());
}

TEST(Knees, AKneeFarFromTheSizeDisagrees) {
  const auto f = geometric(4 * kKiB, 4, 33);
  const auto knees = find_knees(f, staircase(f, {128 * kKiB}, {120, 40}));
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_FALSE(knee_agrees(knees[0], 256 * kKiB, sweep_resolution(f)));
  EXPECT_FALSE(knee_agrees(knees[0], 64 * kKiB, sweep_resolution(f)));
}

TEST(Knees, BadInputThrowsAndShortCurvesHaveNoKnee) {
  const std::vector<double> f = {1, 2, 3};
  EXPECT_THROW(find_knees(f, std::vector<double>{1, 2}), std::invalid_argument);
  EXPECT_THROW(find_knees(std::vector<double>{2, 1, 3}, std::vector<double>{1, 1, 1}),
               std::invalid_argument);
  EXPECT_TRUE(find_knees(std::vector<double>{1, 2}, std::vector<double>{10, 1}).empty());
  EXPECT_EQ(nearest_knee({}, 5), nullptr);
}

}  // namespace
}  // namespace memtopo
