// Staircase analysis on synthetic traces: clean levels, noise, outliers, a ramp, no step; and the
// split of a latency sample into two modes.
#include "analysis/staircase.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "backend/chain.hpp"  // SplitMix64: seeded, portable

namespace memtopo {
namespace {

constexpr std::size_t kSamples = 2048;

// Footprints 1 KiB * 2^(i/2), i = 0 .. count-1 (a sqrt(2) grid like the probes').
std::vector<std::uint64_t> grid(std::size_t count) {
  std::vector<std::uint64_t> f;
  for (std::size_t i = 0; i < count; ++i)
    f.push_back(static_cast<std::uint64_t>(std::llround(1024.0 * std::pow(2.0, i / 2.0))));
  return f;
}

struct Noise {
  int jitter = 2;               // uniform integer in [-jitter, +jitter]
  double outlier_rate = 0.0;    // share of samples made slow
  double outlier_cycles = 400;  // what an outlier adds
};

// One trace per footprint: each access draws its latency from `latency_of(footprint index, rng)`.
std::vector<std::vector<double>> traces(
    std::size_t count, const Noise& noise,
    const std::function<double(std::size_t, SplitMix64&)>& latency_of, std::uint64_t seed = 7) {
  SplitMix64 rng(seed);
  std::vector<std::vector<double>> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t k = 0; k < kSamples; ++k) {
      double x = latency_of(i, rng);
      x += static_cast<double>(rng.below(2 * noise.jitter + 1)) - noise.jitter;
      if (rng.uniform() < noise.outlier_rate) x += noise.outlier_cycles;
      out[i].push_back(x);
    }
  }
  return out;
}

// L1-like hits up to 8 KiB (index 6), L1.5-like up to 64 KiB (index 12), then L2-like.
double three_levels(std::size_t i, SplitMix64&) {
  return i <= 6 ? 30 : i <= 12 ? 90 : 300;
}
constexpr std::size_t kCount = 18;

TEST(Staircase, CleanThreeLevels) {
  const auto f = grid(kCount);
  const auto c = traces(kCount, {}, three_levels);
  const Staircase s = analyze_staircase(f, c);
  ASSERT_EQ(s.levels.size(), 3u);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].index, 7u);
  EXPECT_EQ(s.steps[0].before_bytes, 8192u);
  EXPECT_EQ(s.steps[1].index, 13u);
  EXPECT_EQ(s.steps[1].before_bytes, 65536u);
  EXPECT_NEAR(s.levels[0].latency, 30, 1);
  EXPECT_NEAR(s.levels[1].latency, 90, 1);
  EXPECT_NEAR(s.levels[2].latency, 300, 1);
  EXPECT_EQ(s.levels[0].from_bytes, 1024u);
  EXPECT_EQ(s.levels[1].to_bytes, 65536u);
  for (const auto& step : s.steps) {
    EXPECT_DOUBLE_EQ(step.ks.statistic, 1.0);
    EXPECT_DOUBLE_EQ(step.ks.critical_value, ks_critical_value(kSamples, kSamples, 0.05));
    EXPECT_LT(step.ks.p_value, 1e-9);
    EXPECT_GT(step.confidence, 0.99);
  }
  EXPECT_EQ(s.geometric.size(), kCount);
  EXPECT_EQ(s.mean.size(), kCount);
  EXPECT_EQ(s.rms_from_min.size(), kCount);
  EXPECT_EQ(s.series, s.geometric);  // geometric by default
}

TEST(Staircase, HeavyNoiseKeepsTheSteps) {
  const auto f = grid(kCount);
  const auto c = traces(kCount, {.jitter = 12}, three_levels);
  const Staircase s = analyze_staircase(f, c);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].index, 7u);
  EXPECT_EQ(s.steps[1].index, 13u);
  EXPECT_GT(s.steps[0].confidence, 0.9);
}

TEST(Staircase, OutliersNeitherCreateNorMoveSteps) {
  const auto f = grid(kCount);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    auto c = traces(kCount, {.outlier_rate = 0.001}, three_levels, seed);
    // And one burst: 0.5 % outliers at a single footprint inside a level.
    for (std::size_t k = 0; k < kSamples / 200; ++k) c[4][k * 200] += 400;
    const Staircase s = analyze_staircase(f, c);
    ASSERT_EQ(s.steps.size(), 2u);
    EXPECT_EQ(s.steps[0].index, 7u);
    EXPECT_EQ(s.steps[1].index, 13u);
    EXPECT_NEAR(s.levels[0].latency, 30, 1);
  }
  // One level with outliers: still one level.
  const auto flat =
      traces(kCount, {.outlier_rate = 0.001}, [](std::size_t, SplitMix64&) { return 260.0; });
  EXPECT_TRUE(analyze_staircase(f, flat).steps.empty());
}

// A cache whose replacement is not LRU: from index 8 on, the share of misses grows by a fifth
// per footprint (20 % .. 80 %), then every access misses from index 12.
double ramp_miss_share(std::size_t i) {
  return i < 8 ? 0.0 : i >= 12 ? 1.0 : 0.2 * static_cast<double>(i - 7);
}

TEST(Staircase, GradualRampIsOneStepWithLowConfidence) {
  const auto f = grid(kCount);
  const auto c = traces(kCount, {}, [](std::size_t i, SplitMix64& rng) {
    return rng.uniform() < ramp_miss_share(i) ? 300.0 : 100.0;
  });
  const Staircase s = analyze_staircase(f, c);
  ASSERT_EQ(s.levels.size(), 2u);
  ASSERT_EQ(s.steps.size(), 1u);
  const StaircaseStep& step = s.steps[0];
  // Where the level changes: the reduced series crosses the midpoint of the plateaus within the
  // ramp, at the footprint that first misses about half its accesses (quadratic mean: 40 %).
  EXPECT_GE(step.index, 9u);
  EXPECT_LE(step.index, 10u);
  EXPECT_NEAR(s.levels[0].latency, 100, 1);
  EXPECT_NEAR(s.levels[1].latency, 300, 1);
  // Only a fraction of the jump happens inside the bracket: the confidence says so.
  EXPECT_LT(step.sharpness, 0.4);
  EXPECT_LT(step.confidence, 0.4);
  EXPECT_GT(step.confidence, 0.1);
}

// A small step (an L1 TLB's 10 cycles) onto a plateau that scatters by a cycle or two, whose
// end PELT cuts off with the next level's first partial misses: the series of a simulated
// H200-like TLB ladder at one noise seed. Against that two-point piece the smaller jump is 3.6
// cycles, and the plateau's range (2.1) made it a ramp, so the 10-cycle level was lost; its
// interquartile spread (analysis/staircase.cpp, is_ramp) keeps it a level.
TEST(Staircase, AScatteredPlateauBeforeTheNextLevelsFirstMissesIsALevel) {
  constexpr double kSeries[] = {256.8, 257.1, 257.6, 257.2, 257.3, 267.4, 268.5,
                                267.5, 267.5, 266.4, 268.4, 267.5, 267.4, 268.5,
                                267.5, 267.4, 266.4, 267.4, 274.8, 356.6, 356.5};
  constexpr std::size_t kPoints = std::size(kSeries);
  const auto c =
      traces(kPoints, {.jitter = 0}, [&](std::size_t i, SplitMix64&) { return kSeries[i]; });
  const Staircase s = analyze_staircase(grid(kPoints), c);
  ASSERT_EQ(s.levels.size(), 3u) << "the 10-cycle level was taken for a ramp";
  EXPECT_NEAR(s.levels[0].latency, 257, 1);
  EXPECT_NEAR(s.levels[1].latency, 267.5, 1);
  EXPECT_NEAR(s.levels[2].latency, 356.5, 1);
}

TEST(Staircase, NoStep) {
  const auto f = grid(10);
  const auto c = traces(10, {.jitter = 3}, [](std::size_t, SplitMix64&) { return 480.0; });
  const Staircase s = analyze_staircase(f, c);
  ASSERT_EQ(s.levels.size(), 1u);
  EXPECT_TRUE(s.steps.empty());
  EXPECT_EQ(s.levels[0].from_bytes, f.front());
  EXPECT_EQ(s.levels[0].to_bytes, f.back());
  EXPECT_NEAR(s.levels[0].latency, 480, 1);
}

TEST(Staircase, RejectsMismatchedInput) {
  const std::vector<std::uint64_t> f = {1024, 2048};
  const std::vector<std::vector<double>> one = {{1.0}};
  EXPECT_THROW(analyze_staircase(f, one), std::invalid_argument);
  const std::vector<std::vector<double>> empty = {{1.0}, {}};
  EXPECT_THROW(analyze_staircase(f, empty), std::invalid_argument);
}

std::vector<double> sample(std::size_t n, double far_share, double near, double far,
                           const Noise& noise, std::uint64_t seed = 3) {
  SplitMix64 rng(seed);
  std::vector<double> out;
  for (std::size_t k = 0; k < n; ++k) {
    double x = rng.uniform() < far_share ? far : near;
    x += static_cast<double>(rng.below(2 * noise.jitter + 1)) - noise.jitter;
    if (rng.uniform() < noise.outlier_rate) x += noise.outlier_cycles;
    out.push_back(x);
  }
  return out;
}

TEST(ModeSplit, NearAndFarPartitions) {
  const auto x = sample(4096, 0.5, 260, 440, {.jitter = 2, .outlier_rate = 0.001});
  const ModeSplit m = split_two_modes(x);
  ASSERT_TRUE(m.bimodal) << m.reason;
  EXPECT_NEAR(m.fast.p50, 260, 1);
  EXPECT_NEAR(m.slow.p50, 440, 1);
  EXPECT_NEAR(m.slow_share, 0.5, 0.03);
  EXPECT_GT(m.threshold, 262);
  EXPECT_LT(m.threshold, 438);
}

TEST(ModeSplit, FourPartitionsGiveAFarShareOfThreeQuarters) {
  const ModeSplit m = split_two_modes(sample(4096, 0.75, 200, 260, {.jitter = 1}));
  ASSERT_TRUE(m.bimodal) << m.reason;
  EXPECT_NEAR(m.slow_share, 0.75, 0.03);
}

TEST(ModeSplit, JitterAndOutliersAreOneMode) {
  const ModeSplit m =
      split_two_modes(sample(4096, 0.0, 260, 0, {.jitter = 2, .outlier_rate = 0.001}));
  EXPECT_FALSE(m.bimodal) << m.reason;
  EXPECT_NEAR(m.fast.p50, 260, 1);
  EXPECT_FALSE(split_two_modes(std::vector<double>{1.0, 2.0}).bimodal);
}

}  // namespace
}  // namespace memtopo
