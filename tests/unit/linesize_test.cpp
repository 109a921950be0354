// analysis/linesize: fetch granularity from miss gaps, line from the capacity per stride.
#include "analysis/linesize.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

constexpr double kHit = 33, kMiss = 300, kThreshold = 150;

struct SyntheticTrace {
  std::vector<double> cycles;
  std::vector<std::uint32_t> indices;
};

// A sequential 4 B-stride chase from word `first`: the first word of every `block` bytes
// misses, the rest hit; `outlier_rate` of all accesses get +400 cycles (seeded).
SyntheticTrace sequential_trace(std::uint32_t loads, std::uint64_t block, double outlier_rate = 0,
                                std::uint32_t first = 0, std::uint32_t wrap_words = 0) {
  SyntheticTrace t;
  std::mt19937_64 rng(42);
  std::bernoulli_distribution outlier(outlier_rate);
  std::normal_distribution<double> jitter(0, 1.5);
  for (std::uint32_t k = 0; k < loads; ++k) {
    std::uint32_t word = first + k;
    if (wrap_words) word %= wrap_words;
    const bool miss = (std::uint64_t{word} * 4) % block == 0;
    double c = (miss ? kMiss : kHit) + jitter(rng);
    if (outlier(rng)) c += 400;
    t.cycles.push_back(c);
    t.indices.push_back(word);
  }
  return t;
}

class GapBlocks : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(GapBlocks, ModeOfTheGapsIsTheBlock) {
  const auto t = sequential_trace(4096, GetParam());
  const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
  ASSERT_TRUE(g.granularity_bytes.has_value()) << g.note;
  EXPECT_EQ(*g.granularity_bytes, GetParam());
  EXPECT_DOUBLE_EQ(g.consistency, 1.0);
  EXPECT_EQ(g.slow_accesses, 4096 * 4 / GetParam());
  EXPECT_EQ(g.histogram.size(), 1u);
  EXPECT_DOUBLE_EQ(g.median_gap_bytes, static_cast<double>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Blocks, GapBlocks, ::testing::Values(16u, 32u, 64u, 128u, 256u));

TEST(FetchGranularity, PointOnePercentOutliersDoNotChangeTheResult) {
  for (std::uint64_t block : {32u, 128u, 256u}) {
    // 0.1 % of 8192 samples at +400 cycles: about 8 hits turned slow.
    const auto t = sequential_trace(8192, block, 0.001);
    const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
    ASSERT_TRUE(g.granularity_bytes.has_value()) << g.note;
    EXPECT_EQ(*g.granularity_bytes, block);
    // The outliers were there: they split some gaps, so the histogram has other entries.
    EXPECT_GT(g.histogram.size(), 1u) << block;
    EXPECT_LT(g.consistency, 1.0);
    EXPECT_GT(g.consistency, 0.9);
  }
}

TEST(FetchGranularity, ConfidenceIsTheShareOfGapsEqualToTheMode) {
  // 0.1 % outliers split a few gaps: the share of the gaps equal to the mode, as the rule says.
  const auto t = sequential_trace(8192, 128, 0.001);
  const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
  ASSERT_TRUE(g.granularity_bytes.has_value()) << g.note;
  const Confidence c = gap_confidence(g);
  EXPECT_DOUBLE_EQ(c.value(),
                   static_cast<double>(g.histogram.at(128)) / static_cast<double>(g.gaps));
  ASSERT_EQ(c.factors().size(), 1u);
  EXPECT_EQ(c.factors()[0].rule, "share");
}

TEST(FetchGranularity, ManyOutliersMakeItInconclusive) {
  // 20 % of accesses slow at random: the gaps no longer agree on one value.
  const auto t = sequential_trace(4096, 1u << 20, 0.2);
  const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
  EXPECT_FALSE(g.granularity_bytes.has_value());
  EXPECT_NE(g.note.find("not consistent"), std::string::npos) << g.note;
}

TEST(FetchGranularity, NoMissesAndOnlyMissesAreInconclusive) {
  std::vector<double> hits(1000, kHit), misses(1000, kMiss);
  std::vector<std::uint32_t> idx(1000);
  for (std::uint32_t i = 0; i < 1000; ++i) idx[i] = i;
  const auto none = estimate_fetch_granularity(hits, idx, kThreshold);
  EXPECT_FALSE(none.granularity_bytes.has_value());
  EXPECT_EQ(none.slow_accesses, 0u);
  const auto all = estimate_fetch_granularity(misses, idx, kThreshold);
  EXPECT_FALSE(all.granularity_bytes.has_value());
  EXPECT_NE(all.note.find("nearly every"), std::string::npos);
}

TEST(FetchGranularity, TooFewGapsAreInconclusive) {
  const auto t = sequential_trace(256, 128);  // 8 misses, 7 gaps
  const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
  EXPECT_FALSE(g.granularity_bytes.has_value());
  EXPECT_EQ(g.mode_gap_bytes, 128u);
}

TEST(FetchGranularity, AWrapOfTheChainIsSkipped) {
  // A chain of 1000 words (not a multiple of the 32 B block) wraps twice: the wrap must not add
  // a gap of its own.
  const auto t = sequential_trace(3000, 32, 0, 0, 1000);
  const auto g = estimate_fetch_granularity(t.cycles, t.indices, kThreshold);
  ASSERT_TRUE(g.granularity_bytes.has_value());
  EXPECT_EQ(*g.granularity_bytes, 32u);
  EXPECT_EQ(g.histogram.size(), 1u);
}

TEST(FetchGranularity, MismatchedSpansThrow) {
  std::vector<double> c(3, kHit);
  std::vector<std::uint32_t> i(2);
  EXPECT_THROW(estimate_fetch_granularity(c, i, kThreshold), std::invalid_argument);
}

TEST(StrideLadder, PrimeTimesPowersOfTwoOfTheSector) {
  EXPECT_EQ(line_stride_ladder(32, 7, 1024),
            (std::vector<std::uint64_t>{224, 448, 896, 1792, 3584, 7168}));
  EXPECT_EQ(line_stride_ladder(64, 3, 300), (std::vector<std::uint64_t>{192, 384, 768}));
  EXPECT_TRUE(line_stride_ladder(0, 7, 4096).empty());
  EXPECT_TRUE(line_stride_ladder(32, 9, 4096).empty());  // not a prime
  EXPECT_TRUE(line_stride_ladder(32, 2, 4096).empty());  // not odd
}

TEST(NearestPowerOfTwo, OnALogScale) {
  EXPECT_EQ(nearest_power_of_two(128), 128u);
  EXPECT_EQ(nearest_power_of_two(170), 128u);  // log2 7.41
  EXPECT_EQ(nearest_power_of_two(190), 256u);  // log2 7.57
  EXPECT_EQ(nearest_power_of_two(0.3), 1u);
  EXPECT_THROW(nearest_power_of_two(0), std::invalid_argument);
}

constexpr std::uint64_t kP = 7;

// What a set-indexed LRU cache of `sets` sets holds at a stride (the model the inference
// inverts): the size below the line; beyond it, with a stride of k whole lines, the sets
// reached are sets / gcd(k, sets), each holding size / (line x sets) elements; a stride that is
// not a whole number of lines fills the sets unevenly and holds 10 % less than size / line.
StrideCapacity modelled(std::uint64_t size, std::uint64_t line, std::uint64_t sets,
                        std::uint64_t stride) {
  StrideCapacity c;
  c.stride_bytes = stride;
  c.probe_footprint_bytes = size * kP * 3 / 4 / stride * stride;
  std::uint64_t elements = 0;
  if (stride <= line) {
    elements = size / stride;
  } else if (stride % line == 0) {
    elements = size / line / std::gcd(stride / line, sets);
  } else {
    elements = size / line * 9 / 10;
  }
  const std::uint64_t capacity = elements * stride;
  c.fits_at_probe = capacity >= c.probe_footprint_bytes;
  if (c.fits_at_probe) c.capacity_footprint_bytes = capacity;
  return c;
}

std::vector<StrideCapacity> ladder_model(std::uint64_t size, std::uint64_t sector,
                                         std::uint64_t line, std::uint64_t sets) {
  std::vector<StrideCapacity> out;
  for (std::uint64_t s : line_stride_ladder(sector, kP, 1024)) {
    out.push_back(modelled(size, line, sets, s));
  }
  return out;
}

TEST(InferLine, SectoredLinesFromTheCapacityPerStride) {
  for (std::uint64_t sets : {480u, 227u, 256u}) {
    for (std::uint64_t line : {64u, 128u, 256u, 512u, 1024u}) {
      const std::uint64_t size = sets * 4 * line;
      const auto inf = infer_line(size, 32, kP, ladder_model(size, 32, line, sets));
      ASSERT_TRUE(inf.line_bytes.has_value()) << line << ": " << inf.note;
      EXPECT_EQ(*inf.line_bytes, line) << sets;
      EXPECT_NEAR(inf.raw_ratio, static_cast<double>(line), 1e-9);
      EXPECT_TRUE(inf.sectored);
      EXPECT_EQ(inf.first_beyond_stride, kP * line);
      // By hand: the ratio is the line exactly (octave_closeness 1) and each of the 6 strides
      // (units 32 B to 1 KiB) behaves as the line predicts: agreement (6 + 1) / (6 + 2).
      EXPECT_DOUBLE_EQ(inf.confidence.value(), 7.0 / 8.0) << line << " " << inf.note;
      for (const auto& v : inf.strides) {
        EXPECT_EQ(v.cls, v.stride_bytes < kP * line ? StrideClass::below_line
                         : v.capacity_elements      ? StrideClass::beyond_line
                                                    : StrideClass::unsearched)
            << v.stride_bytes;
      }
    }
  }
}

TEST(InferLine, UnsectoredLineEqualsTheSector) {
  const auto inf = infer_line(49152, 64, kP, ladder_model(49152, 64, 64, 128));
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 64u);
  EXPECT_FALSE(inf.sectored);
  EXPECT_EQ(inf.first_beyond_stride, kP * 64);
}

TEST(InferLine, APrimeDividingTheSetsIsInconclusiveWithABound) {
  // 7 x 32 sets: every stride reaches a seventh of the sets at most.
  const std::uint64_t size = 224 * 4 * 128;
  const auto inf = infer_line(size, 32, kP, ladder_model(size, 32, 128, 224));
  EXPECT_FALSE(inf.line_bytes.has_value());
  ASSERT_TRUE(inf.lower_bound.has_value());
  EXPECT_NE(inf.note.find("prime divides"), std::string::npos);
}

TEST(InferLine, ALaterStrideThatHeldLessIsNamedAliased) {
  auto strides = ladder_model(245760, 32, 128, 480);
  for (auto& s : strides) {
    if (s.stride_bytes == 7 * 512) s.capacity_footprint_bytes = 245760;  // held only the size
  }
  const auto inf = infer_line(245760, 32, kP, strides);
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  // By hand: 5 of the 6 strides agree with the line (3584 B does not): agreement 6 / 8; the ratio
  // is exact.
  EXPECT_DOUBLE_EQ(inf.confidence.value(), 0.75);
  bool named = false;
  for (const auto& v : inf.strides) named |= v.cls == StrideClass::aliased;
  EXPECT_TRUE(named);
  EXPECT_NE(inf.note.find("aliasing"), std::string::npos);
}

TEST(InferLine, ARawRatioSlightlyOffAPowerOfTwoLowersTheConfidence) {
  auto strides = ladder_model(245760, 32, 128, 480);
  for (auto& s : strides) {
    if (s.stride_bytes == 7 * 128) s.capacity_footprint_bytes = 245760 / 136 * (7 * 128);
  }
  const auto inf = infer_line(245760, 32, kP, strides);
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  // By hand: 245760 / 136 = 1807 elements, ratio 245760 / 1807 = 136.0 B, 0.0875 octaves from
  // 128 B: octave_closeness 1 - 2 x 0.0875 = 0.825; all 6 strides agree: x 7 / 8.
  const double octaves = std::log2(245760.0 / 1807.0 / 128.0);
  EXPECT_NEAR(inf.confidence.value(), (1 - 2 * octaves) * 7.0 / 8.0, 1e-12);
  EXPECT_NEAR(inf.confidence.value(), 0.722, 1e-3);
  ASSERT_EQ(inf.confidence.factors().size(), 2u);
  EXPECT_EQ(inf.confidence.factors()[0].rule, "octave_closeness");
  EXPECT_EQ(inf.confidence.factors()[1].rule, "agreement");
}

// As on an H200 (docs/results, l1.line): the capacity at the first stride holding 7 x the size
// gave a ratio of 421.6 B, between 256 and 512. No line is reported rather than 512.
TEST(InferLine, ARawRatioBetweenPowersOfTwoIsInconclusive) {
  auto strides = ladder_model(245760, 32, 128, 480);
  for (auto& s : strides) {
    if (s.stride_bytes == 7 * 128) s.capacity_footprint_bytes = 245760 / 150 * (7 * 128);
  }
  const auto inf = infer_line(245760, 32, kP, strides);
  EXPECT_FALSE(inf.line_bytes.has_value());
  EXPECT_NE(inf.note.find("power of two"), std::string::npos);
}

TEST(InferLine, AStrideBeyondTheLineThatWasNotSearchedStillChecksIt) {
  // Only 896 B is searched: the larger strides fitted at their probe footprint, which no stride
  // below the line can, so they agree with the line as their units predict.
  auto strides = ladder_model(245760, 32, 128, 480);
  for (auto& s : strides) {
    if (s.stride_bytes > 7 * 128) s.capacity_footprint_bytes.reset();
  }
  const auto inf = infer_line(245760, 32, kP, strides);
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  EXPECT_NE(inf.note.find("single stride"), std::string::npos) << inf.note;
  // By hand: 6 of 6 strides agree: (6 + 1) / (6 + 2); the ratio is exact.
  EXPECT_DOUBLE_EQ(inf.confidence.value(), 7.0 / 8.0);
}

TEST(InferLine, FewerStridesAreFewerChecks) {
  // The ladder ends at the first stride beyond the line (a small cache): 3 strides.
  auto strides = ladder_model(245760, 32, 128, 480);
  strides.resize(3);
  const auto inf = infer_line(245760, 32, kP, strides);
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  // By hand: 3 of 3 agree: (3 + 1) / (3 + 2).
  EXPECT_DOUBLE_EQ(inf.confidence.value(), 0.8);
}

TEST(InferLine, AStrideBelowTheLineThatFittedDisagrees) {
  // 448 B (unit 64 B) fitted at its probe footprint but was not searched: below a 128 B line it
  // cannot hold that much.
  auto strides = ladder_model(245760, 32, 128, 480);
  strides[1].fits_at_probe = true;
  const auto inf = infer_line(245760, 32, kP, strides);
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  EXPECT_NE(inf.note.find("not searched"), std::string::npos) << inf.note;
  // By hand: 5 of 6 agree: (5 + 1) / (6 + 2).
  EXPECT_DOUBLE_EQ(inf.confidence.value(), 0.75);
}

TEST(InferLine, ALineBelowTheMeasuredSectorIsOneOfTwoMethods) {
  // The strides say 128 B, the sector probe said 256 B: the two disagree.
  const auto inf = infer_line(245760, 256, kP, ladder_model(245760, 32, 128, 480));
  ASSERT_TRUE(inf.line_bytes.has_value());
  EXPECT_EQ(*inf.line_bytes, 128u);
  EXPECT_NE(inf.note.find("smaller than the measured sector"), std::string::npos) << inf.note;
  // By hand: 6 of 6 strides agree (7 / 8) x methods_agreeing 1 of 2 (1 / 2).
  EXPECT_DOUBLE_EQ(inf.confidence.value(), 7.0 / 16.0);
  EXPECT_EQ(inf.confidence.weakest()->rule, "methods_agreeing");
}

TEST(InferLine, ZeroSizeThrows) {
  EXPECT_THROW(infer_line(0, 32, kP, {}), std::invalid_argument);
  EXPECT_THROW(infer_line(1024, 32, 2, {}), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo

namespace memtopo {
namespace {

StrideCapacity pow2_stride(std::uint64_t stride, bool fits, std::uint64_t capacity = 0) {
  StrideCapacity c;
  c.stride_bytes = stride;
  c.fits_at_probe = fits;
  if (capacity) c.capacity_footprint_bytes = capacity;
  return c;
}

TEST(PowerOfTwoLine, TheFirstStrideBeyondTheSizeIsTwiceTheLine) {
  // 16 KiB, 128 B lines: up to 128 B the cache holds the size; at 256 B, 128 lines = 32 KiB; at
  // 512 B (every fourth line, evenly spread) 64 KiB.
  const std::vector<StrideCapacity> strides = {pow2_stride(64, false), pow2_stride(128, false),
                                               pow2_stride(256, true, 32768),
                                               pow2_stride(512, true)};
  const auto r = infer_line_from_power_of_two_strides(16384, strides);
  ASSERT_TRUE(r.line_bytes.has_value()) << r.note;
  EXPECT_EQ(*r.line_bytes, 128u);
  EXPECT_EQ(r.first_beyond_stride, 256u);
  EXPECT_DOUBLE_EQ(r.raw_ratio, 128.0);
  // By hand: exact ratio; 4 of 4 strides fit exactly from twice the line on: (4 + 1) / (4 + 2).
  EXPECT_DOUBLE_EQ(r.confidence.value(), 5.0 / 6.0);
}

TEST(PowerOfTwoLine, ALargerStrideThatHeldOnlyTheSizeDisagrees) {
  // As above, but 512 B held only the size: the index does not spread every fourth line evenly.
  const std::vector<StrideCapacity> strides = {pow2_stride(64, false), pow2_stride(128, false),
                                               pow2_stride(256, true, 32768),
                                               pow2_stride(512, false)};
  const auto r = infer_line_from_power_of_two_strides(16384, strides);
  ASSERT_TRUE(r.line_bytes.has_value()) << r.note;
  EXPECT_EQ(*r.line_bytes, 128u);
  // By hand: 3 of 4 strides agree: (3 + 1) / (4 + 2).
  EXPECT_DOUBLE_EQ(r.confidence.value(), 4.0 / 6.0);
}

TEST(PowerOfTwoLine, NothingBeyondTheSizeSaysWhy) {
  // Modulo over 2^n sets: every stride beyond the line reaches fewer sets, never more bytes.
  const std::vector<StrideCapacity> strides = {pow2_stride(64, false), pow2_stride(256, false)};
  const auto r = infer_line_from_power_of_two_strides(16384, strides);
  EXPECT_FALSE(r.line_bytes.has_value());
  EXPECT_NE(r.note.find("modulo"), std::string::npos) << r.note;
}

TEST(PowerOfTwoLine, ARatioBetweenPowersOfTwoIsInconclusive) {
  const std::vector<StrideCapacity> strides = {pow2_stride(512, true, 512 * 39)};
  const auto r = infer_line_from_power_of_two_strides(16384, strides);  // 16384 / 39 = 420 B
  EXPECT_FALSE(r.line_bytes.has_value());
  EXPECT_NE(r.note.find("420"), std::string::npos) << r.note;
}

}  // namespace
}  // namespace memtopo
