#include "analysis/histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace memtopo {
namespace {

std::size_t total(const Histogram& h) {
  return std::accumulate(h.counts.begin(), h.counts.end(), std::size_t{0}) + h.below + h.above;
}

TEST(Histogram, WholeCycleBinsForANarrowLevel) {
  std::vector<double> samples;
  for (int i = 0; i < 1000; ++i) samples.push_back(33 + i % 3);  // 33, 34, 35
  const Histogram h = make_histogram(samples, 64);
  EXPECT_DOUBLE_EQ(h.from, 33);
  EXPECT_DOUBLE_EQ(h.bin_width, 1);
  ASSERT_EQ(h.counts.size(), 3u);
  EXPECT_EQ(h.counts[0], 334u);
  EXPECT_EQ(h.counts[1], 333u);
  EXPECT_EQ(h.counts[2], 333u);
  EXPECT_EQ(total(h), samples.size());
}

TEST(Histogram, RareOutliersAreCountedOutsideNotStretchingTheBins) {
  std::vector<double> samples(2000, 260.0);
  for (int i = 0; i < 1000; ++i) samples[static_cast<std::size_t>(i)] = 260 + i % 20;
  samples[0] = 5000;  // an interrupt
  samples[1] = 1;
  const Histogram h = make_histogram(samples, 64);
  EXPECT_DOUBLE_EQ(h.from, 260);
  EXPECT_DOUBLE_EQ(h.bin_width, 1);
  EXPECT_EQ(h.above, 1u);
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(total(h), samples.size());
}

TEST(Histogram, WideSpreadsGetWiderBinsWithinTheLimit) {
  std::vector<double> samples;
  for (int i = 0; i < 10000; ++i) samples.push_back(200 + i % 700);  // 200 .. 899
  const Histogram h = make_histogram(samples, 50);
  EXPECT_LE(h.counts.size(), 50u);
  EXPECT_GE(h.bin_width, 14);
  EXPECT_EQ(h.bin_width, std::floor(h.bin_width)) << "whole cycles";
  EXPECT_EQ(total(h), samples.size());
}

TEST(Histogram, NothingInNothingOut) {
  EXPECT_TRUE(make_histogram({}, 64).counts.empty());
  const std::vector<double> one = {42.5};
  const Histogram h = make_histogram(one, 64);
  EXPECT_DOUBLE_EQ(h.from, 42);
  ASSERT_EQ(h.counts.size(), 1u);
  EXPECT_EQ(h.counts[0], 1u);
  EXPECT_TRUE(make_histogram(one, 0).counts.empty());
}

}  // namespace
}  // namespace memtopo
