#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "backend/sim/noise.hpp"

namespace memtopo::sim {
namespace {

std::vector<std::uint32_t> samples(const NoiseDescription& description, std::uint64_t seed,
                                   std::uint32_t cycles, int count) {
  Noise noise(description, seed);
  std::vector<std::uint32_t> values;
  for (int i = 0; i < count; ++i) values.push_back(noise.apply(cycles));
  return values;
}

TEST(Noise, WithoutNoiseEveryRecordIsExact) {
  for (std::uint32_t value : samples(NoiseDescription{}, 1, 77, 1000)) ASSERT_EQ(value, 77u);
}

TEST(Noise, JitterIsUniformOverTheSymmetricRange) {
  NoiseDescription description;
  description.jitter_cycles = 3;
  const auto values = samples(description, 9, 100, 70000);
  std::map<std::uint32_t, int> counts;
  double sum = 0;
  for (std::uint32_t value : values) {
    ++counts[value];
    sum += value;
  }
  ASSERT_EQ(counts.size(), 7u);
  EXPECT_EQ(counts.begin()->first, 97u);
  EXPECT_EQ(counts.rbegin()->first, 103u);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count / 70000.0, 1.0 / 7, 0.01) << value;
  EXPECT_NEAR(sum / values.size(), 100.0, 0.05);
}

TEST(Noise, JitterNeverTakesARecordBelowZero) {
  NoiseDescription description;
  description.jitter_cycles = 3;
  const auto values = samples(description, 4, 1, 10000);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 0u);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 4u);
  // -3 and -2 and -1 all clamp to 0: three sevenths of the draws.
  EXPECT_NEAR(std::count(values.begin(), values.end(), 0u) / 10000.0, 3.0 / 7, 0.02);
}

TEST(Noise, OutliersAppearWithTheirProbabilityAndSize) {
  NoiseDescription description;
  description.outlier_probability = 0.01;
  description.outlier_cycles = 1000;
  const auto values = samples(description, 5, 50, 100000);
  const auto outliers = std::count(values.begin(), values.end(), 1050u);
  EXPECT_EQ(std::count(values.begin(), values.end(), 50u) + outliers, 100000);
  EXPECT_NEAR(static_cast<double>(outliers), 1000.0, 160.0);
}

TEST(Noise, ASeedRepeatsItsNoiseAndAnotherSeedDoesNot) {
  NoiseDescription description;
  description.jitter_cycles = 2;
  description.outlier_probability = 0.01;
  description.outlier_cycles = 300;
  EXPECT_EQ(samples(description, 42, 200, 1000), samples(description, 42, 200, 1000));
  EXPECT_NE(samples(description, 42, 200, 1000), samples(description, 43, 200, 1000));
}

}  // namespace
}  // namespace memtopo::sim
