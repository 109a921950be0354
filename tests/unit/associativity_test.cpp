// Sets and ways from synthetic overfull-chase traces.
#include "analysis/associativity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace memtopo {
namespace {

// A sequential chase over `lines` lines of a modulo, LRU cache with `sets` sets of `ways` ways
// (every pass thrashes the overfull sets): cycles 40 hit, 200 miss.
void lru_chase(std::uint64_t lines, std::uint64_t sets, std::uint64_t ways, std::uint32_t passes,
               std::vector<double>& cycles, std::vector<std::uint32_t>& indices) {
  for (std::uint32_t p = 0; p < passes; ++p) {
    for (std::uint64_t l = 0; l < lines; ++l) {
      const std::uint64_t set = l % sets;
      const std::uint64_t in_set = (lines - set + sets - 1) / sets;
      cycles.push_back(in_set > ways ? 200 : 40);
      indices.push_back(static_cast<std::uint32_t>(l * 32));  // 128-byte lines
    }
  }
}

TEST(Associativity, FourWaysThirtyTwoSetsFromOneExtraLine) {
  std::vector<double> c;
  std::vector<std::uint32_t> i;
  lru_chase(129, 32, 4, 4, c, i);
  const auto over = overflow_lines(slow_counts_per_line(c, i, 128, 120), 2);
  EXPECT_TRUE(over.deterministic());
  const auto g = geometry_from_overflow(over.lines, 128);
  ASSERT_TRUE(g.found) << g.why;
  EXPECT_EQ(g.ways, 4u);
  EXPECT_EQ(g.sets, 32u);
  EXPECT_TRUE(g.arithmetic);
  EXPECT_TRUE(g.equal_sets_consistent);
}

// Every pass of an overfull chase overflows the set again; a pass on which none of its lines was
// slow does not, and an incomplete last pass is not counted.
TEST(Associativity, PassesOnWhichTheOverfullSetOverflowed) {
  std::vector<double> c;
  std::vector<std::uint32_t> i;
  lru_chase(129, 32, 4, 8, c, i);
  const std::vector<std::uint64_t> set = {0, 32, 64, 96, 128};
  auto agree = passes_overflowing(c, i, 128, 120, set, 129);
  EXPECT_EQ(agree.passes, 8u);
  EXPECT_EQ(agree.agreeing, 8u);
  for (std::size_t k = 3 * 129; k < 4 * 129; ++k) c[k] = 40;  // pass 3 hits everywhere
  c.resize(c.size() - 10);                                    // pass 7 incomplete
  i.resize(i.size() - 10);
  agree = passes_overflowing(c, i, 128, 120, set, 129);
  EXPECT_EQ(agree.passes, 7u);
  EXPECT_EQ(agree.agreeing, 6u);
  EXPECT_THROW(passes_overflowing(c, i, 128, 120, set, 0), std::invalid_argument);
}

// A chase several lines past the capacity (a size known only to a search's resolution) overfills
// k sets: runs of k missing lines, one per way + 1, spaced by the sets, say the capacity is n - k.
TEST(Associativity, CapacityFromTheRunsOfSeveralOverfullSets) {
  for (const std::uint64_t k : {1u, 7u, 19u}) {
    std::vector<double> c;
    std::vector<std::uint32_t> i;
    const std::uint64_t sets = 50, ways = 6;  // 300 lines, sets not a power of two
    lru_chase(sets * ways + k, sets, ways, 2, c, i);
    const auto over = overflow_lines(slow_counts_per_line(c, i, 128, 120), 2);
    ASSERT_EQ(over.lines.size(), k * (ways + 1));
    const auto runs = overflow_runs(over.lines, sets * ways + k);
    ASSERT_TRUE(runs.has_value()) << "k = " << k;
    EXPECT_EQ(runs->capacity_lines, sets * ways) << "k = " << k;
    EXPECT_EQ(runs->run_length, k);
    EXPECT_EQ(runs->period, sets);
    EXPECT_EQ(runs->starts, (std::vector<std::uint64_t>{0, 50, 100, 150, 200, 250, 300}));
  }
}

TEST(Associativity, RunsRefuseScatteredOrMergedMisses) {
  const std::vector<std::uint64_t> uneven_lengths = {0, 1, 2, 50, 51, 100, 101, 102};
  EXPECT_FALSE(overflow_runs(uneven_lengths, 303).has_value());
  const std::vector<std::uint64_t> uneven_spacing = {0, 1, 50, 51, 120, 121};
  EXPECT_FALSE(overflow_runs(uneven_spacing, 302).has_value());
  const std::vector<std::uint64_t> one_run = {0, 1, 2, 3, 4, 5, 6, 7};  // fully associative
  EXPECT_FALSE(overflow_runs(one_run, 8).has_value());
  EXPECT_FALSE(overflow_runs({}, 8).has_value());
}

TEST(Associativity, NonPowerOfTwoSetsAndFullyAssociative) {
  std::vector<double> c;
  std::vector<std::uint32_t> i;
  lru_chase(24 * 8 + 1, 24, 8, 2, c, i);
  auto g =
      geometry_from_overflow(overflow_lines(slow_counts_per_line(c, i, 128, 120), 2).lines, 192);
  EXPECT_EQ(g.ways, 8u);
  EXPECT_EQ(g.sets, 24u);
  c.clear();
  i.clear();
  lru_chase(33, 1, 32, 2, c, i);
  g = geometry_from_overflow(overflow_lines(slow_counts_per_line(c, i, 128, 120), 2).lines, 32);
  EXPECT_EQ(g.ways, 32u);
  EXPECT_EQ(g.sets, 1u);
}

TEST(Associativity, UnevenSpacingMeansAnotherMappingAndSetsFromTheCount) {
  // 5 missing lines in pairs: not modulo; 16 lines / 4 ways = 4 sets.
  const std::vector<std::uint64_t> missing = {0, 1, 8, 9, 16};
  const auto g = geometry_from_overflow(missing, 16);
  ASSERT_TRUE(g.found);
  EXPECT_FALSE(g.arithmetic);
  EXPECT_EQ(g.ways, 4u);
  EXPECT_EQ(g.sets, 4u);
  EXPECT_FALSE(geometry_from_overflow(std::vector<std::uint64_t>{0, 1, 5}, 7).found);
  EXPECT_FALSE(geometry_from_overflow(std::vector<std::uint64_t>{3}, 7).found);
}

TEST(Associativity, AnIsolatedOutlierDoesNotMakeALineMiss) {
  std::vector<double> c;
  std::vector<std::uint32_t> i;
  lru_chase(129, 32, 4, 4, c, i);
  c[7] = 900;  // one slow access on a line of a fitting set
  const auto over = overflow_lines(slow_counts_per_line(c, i, 128, 120), 2);
  EXPECT_EQ(over.lines.size(), 5u);
  EXPECT_EQ(overflow_lines(slow_counts_per_line(c, i, 128, 120), 1).lines.size(), 6u);
}

TEST(Associativity, PerSetSearchFindsUnequalWays) {
  const std::vector<std::uint64_t> ways = {8, 4, 4, 4};
  PerSetWaysSearch search(4, 64);
  for (int round = 0; round < 20 && !search.done(); ++round) {
    for (auto m : search.next(3)) {
      std::vector<bool> over;
      for (auto w : ways) over.push_back(m > w);
      search.add(m, over);
    }
  }
  ASSERT_TRUE(search.done());
  const auto found = search.ways();
  for (std::size_t s = 0; s < ways.size(); ++s) {
    ASSERT_TRUE(found[s].has_value()) << s;
    EXPECT_EQ(*found[s], ways[s]) << s;
  }
  EXPECT_EQ(search.contradictions(), 0u);
  search.add(2, {true, false, false, false});  // set 0 fitted 8 lines before
  EXPECT_EQ(search.contradictions(), 1u);
}

TEST(Associativity, OverflowedSetsAndIndexBits) {
  const LineSlowCounts counts({{1, 4, 4}, {2, 4, 1}, {5, 4, 4}});
  EXPECT_EQ(overflowed_sets(counts, 4, 4), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(index_bits_from_tests({{5, true}, {6, true}, {7, false}, {8, false}, {9, true}}),
            (std::vector<std::uint32_t>{7, 8}));
  EXPECT_THROW(slow_counts_per_line(std::vector<double>{1}, std::vector<std::uint32_t>{}, 128, 1),
               std::invalid_argument);
}

// The flat counts on known values: one entry per visited line, ascending, whether the lines
// were counted in a table (close together) or by sorting (spread far apart); lookups of lines
// not visited answer 0, and a line needs at least one slow access to count as missed.
TEST(Associativity, SlowCountsPerLineOnKnownValues) {
  // Lines 3, 1, 3, 7, 1, 3 of 128 bytes (32 words); slow above 100.
  const std::vector<std::uint32_t> close = {96, 32, 100, 224, 60, 127};
  const std::vector<double> cycles = {150, 40, 150, 40, 150, 40};
  const LineSlowCounts near = slow_counts_per_line(cycles, close, 128, 100);
  const std::vector<LineSlowCounts::Line> expected = {{1, 2, 1}, {3, 3, 2}, {7, 1, 0}};
  EXPECT_TRUE(std::ranges::equal(near.lines(), expected));
  EXPECT_EQ(near.visits(3), 3u);
  EXPECT_EQ(near.slow(3), 2u);
  EXPECT_EQ(near.slow(7), 0u);
  EXPECT_EQ(near.visits(2), 0u);
  EXPECT_EQ(near.slow(100), 0u);
  EXPECT_TRUE(near.missed(3, 2));
  EXPECT_FALSE(near.missed(3, 3));
  EXPECT_FALSE(near.missed(7, 0));  // visited, never slow
  EXPECT_TRUE(near.missed(1, 0));
  // The same accesses with each line moved 2^20 lines apart: counted by sorting, same counts.
  std::vector<std::uint32_t> far;
  for (std::uint32_t word : close) far.push_back(word % 32 + (word / 32) * (32u << 10));
  const LineSlowCounts spread = slow_counts_per_line(cycles, far, 128, 100);
  const std::vector<LineSlowCounts::Line> expected_far = {
      {1 << 10, 2, 1}, {3 << 10, 3, 2}, {7 << 10, 1, 0}};
  EXPECT_TRUE(std::ranges::equal(spread.lines(), expected_far));
  EXPECT_EQ(overflow_lines(spread, 1).lines, (std::vector<std::uint64_t>{1 << 10, 3 << 10}));
  EXPECT_EQ(overflow_lines(spread, 1).partial, 2u);
  EXPECT_TRUE(slow_counts_per_line({}, {}, 128, 100).lines().empty());
}

TEST(Associativity, SlowCountsRejectUnorderedOrUnvisitedLines) {
  using Line = LineSlowCounts::Line;
  EXPECT_THROW(LineSlowCounts(std::vector<Line>{{2, 1, 0}, {1, 1, 0}}), std::invalid_argument);
  EXPECT_THROW(LineSlowCounts(std::vector<Line>{{1, 1, 0}, {1, 1, 0}}), std::invalid_argument);
  EXPECT_THROW(LineSlowCounts(std::vector<Line>{{1, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(LineSlowCounts(std::vector<Line>{{1, 1, 2}}), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
