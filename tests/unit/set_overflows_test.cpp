// Sets and ways from the miss counts of a growing cyclic chain (analysis/set_overflows): the
// counts come from a model of an LRU array, so every expectation is its configuration.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "analysis/set_overflows.hpp"
#include "backend/chain.hpp"

namespace memtopo {
namespace {

// Elements missing on every pass of a cyclic chain over pages 0 .. n-1 under LRU: those of the
// sets that hold more pages than ways.
std::uint64_t missing_on(std::uint64_t n, const std::vector<std::uint64_t>& ways,
                         const std::function<std::size_t(std::uint64_t)>& set_of) {
  std::map<std::size_t, std::uint64_t> pages;
  for (std::uint64_t page = 0; page < n; ++page) ++pages[set_of(page)];
  std::uint64_t missing = 0;
  for (const auto& [set, count] : pages) {
    if (count > ways[set]) missing += count;
  }
  return missing;
}

// The counts from the first chain that misses up to `last` pages.
struct Scan {
  std::uint64_t first = 0;
  std::vector<std::uint64_t> missing;
};
Scan scan(const std::vector<std::uint64_t>& ways,
          const std::function<std::size_t(std::uint64_t)>& set_of, std::uint64_t last) {
  Scan s;
  for (std::uint64_t n = 1; n <= last; ++n) {
    const std::uint64_t m = missing_on(n, ways, set_of);
    if (m == 0 && s.missing.empty()) continue;
    if (s.missing.empty()) s.first = n;
    s.missing.push_back(m);
  }
  return s;
}

TEST(SetOverflows, UnequalSetsOfThePaperModuloSeven) {
  const std::vector<std::uint64_t> ways = {17, 8, 8, 8, 8, 8, 8};
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    SCOPED_TRACE(rotation);
    const Scan s = scan(
        ways, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
    ASSERT_TRUE(sets.complete);
    EXPECT_EQ(sets.entries, 65u);
    EXPECT_EQ(sets.ways.size(), 7u);
    EXPECT_EQ(sets.consistent, sets.steps);
    EXPECT_EQ(ways_value(sets.ways), nlohmann::json({17, 8, 8, 8, 8, 8, 8}));
    // The first overflow comes before the capacity: the reason a step alone reads it wrong.
    EXPECT_LT(s.first, 66u);
    // The first chain on which every page missed: the set of 17 ways overflowed last.
    std::uint64_t all_missing = 0;
    for (std::size_t i = 0; i < s.missing.size() && all_missing == 0; ++i) {
      if (s.missing[i] == s.first + i) all_missing = s.first + i;
    }
    EXPECT_EQ(sets.all_missing_elements, all_missing);
    EXPECT_GT(all_missing, 65u);
  }
}

TEST(SetOverflows, EqualSetsGiveOneIntegerAndFullyAssociativeOneSet) {
  const Scan equal = scan(
      std::vector<std::uint64_t>(16, 4), [](std::uint64_t page) { return page % 16; }, 200);
  const SetsFromOverflows sets = sets_from_overflows(equal.first, equal.missing);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(equal.first, 65u);
  EXPECT_EQ(sets.entries, 64u);
  EXPECT_EQ(ways_value(sets.ways), nlohmann::json(4));
  EXPECT_EQ(sets.all_missing_elements, 80u);  // 16 sets x 5 pages

  const Scan full = scan(
      {16}, [](std::uint64_t) { return 0; }, 40);
  const SetsFromOverflows one = sets_from_overflows(full.first, full.missing);
  ASSERT_TRUE(one.complete);
  EXPECT_EQ(one.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(one.all_missing_elements, 17u);
}

TEST(SetOverflows, AnyMappingOfPagesToSets) {
  // A hashed mapping: every set still overflows once, by its ways + 1.
  std::vector<std::uint64_t> ways = {6, 6, 6, 6, 6, 6, 6, 6};
  const auto hashed = [](std::uint64_t page) {
    SplitMix64 rng(page * 7919 + 3);
    return static_cast<std::size_t>(rng.below(8));
  };
  const Scan s = scan(ways, hashed, 400);
  const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(sets.entries, 48u);
  EXPECT_EQ(ways_value(sets.ways), nlohmann::json(6));
}

TEST(SetOverflows, IncompleteScanAndInconsistentCounts) {
  const SetsFromOverflows partial = sets_from_overflows(65, std::vector<std::uint64_t>{5, 10, 11});
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.ways, (std::vector<std::uint64_t>{4, 4}));
  EXPECT_EQ(partial.consistent, 3u);

  // A count that falls, and one above the chain length: not explained, not counted as sets.
  const SetsFromOverflows noisy = sets_from_overflows(9, std::vector<std::uint64_t>{3, 2, 20, 12});
  EXPECT_EQ(noisy.steps, 4u);
  EXPECT_EQ(noisy.consistent, 2u);
  EXPECT_EQ(noisy.ways, std::vector<std::uint64_t>{2});
  EXPECT_TRUE(noisy.complete);
  EXPECT_EQ(noisy.all_missing_elements, 12u);
}

TEST(SetOverflows, LongerChainsConfirmOrContradictACompleteScan) {
  // A fully associative 16-entry level: 17 elements all miss at once, then longer chains too.
  const SetsFromOverflows confirmed =
      sets_from_overflows(17, std::vector<std::uint64_t>{17, 18, 19, 20});
  EXPECT_TRUE(confirmed.complete);
  EXPECT_EQ(confirmed.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(confirmed.steps, 4u);
  EXPECT_EQ(confirmed.consistent, 4u);
  const SetsFromOverflows contradicted =
      sets_from_overflows(17, std::vector<std::uint64_t>{17, 10, 19});
  EXPECT_EQ(contradicted.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(contradicted.consistent, 2u);
}

TEST(SetOverflows, ALoneMissBeforeAnyOverflowIsAMisjudgedWord) {
  // An H200 L1 TLB scan at 59c91cd (run 5 of docs/results/nvidia-h200/2026-11-28_59c91cd): one
  // word slow at 15 and 16 elements, then all 17 at once. Read as counted, the jump of 16 was a
  // set of 15 ways, every count explained; the four other runs counted 0 there and read 16.
  const std::vector<std::uint64_t> counts = {1, 1, 17, 18, 19, 20, 21, 22, 23, 24, 25};
  const SetsFromOverflows sets = sets_from_overflows(15, counts);
  EXPECT_TRUE(sets.complete);
  EXPECT_EQ(sets.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(sets.entries, 16u);
  EXPECT_EQ(sets.all_missing_elements, 17u);
  EXPECT_EQ(sets.steps, 11u);
  EXPECT_EQ(sets.consistent, 10u);  // the lone miss is not explained
  // After a set overflowed, one more miss is that set taking one more page: explained.
  const SetsFromOverflows later = sets_from_overflows(9, std::vector<std::uint64_t>{3, 4, 5});
  EXPECT_EQ(later.ways, std::vector<std::uint64_t>{2});
  EXPECT_EQ(later.consistent, 3u);
}

// Counts from runs of (increment, lengths) from `first` elements on.
std::vector<std::uint64_t> counts_of(const std::vector<std::pair<std::uint64_t, int>>& runs) {
  std::vector<std::uint64_t> counts;
  std::uint64_t now = 0;
  for (const auto& [increment, lengths] : runs) {
    for (int i = 0; i < lengths; ++i) counts.push_back(now += increment);
  }
  return counts;
}

TEST(SetOverflows, SetsFilledInTurnFitTheEvenFillBound) {
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Scan s = scan(
        {17, 8, 8, 8, 8, 8, 8}, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
    ASSERT_EQ(sets.overflowed_at.size(), sets.ways.size());
    EXPECT_TRUE(overflows_fit_even_fill(sets)) << rotation;
  }
  const Scan equal = scan(
      std::vector<std::uint64_t>(16, 4), [](std::uint64_t page) { return page % 16; }, 200);
  const SetsFromOverflows four = sets_from_overflows(equal.first, equal.missing);
  EXPECT_EQ(four.overflowed_at.front(), 65u);
  EXPECT_TRUE(overflows_fit_even_fill(four));
  const Scan full = scan(
      {16}, [](std::uint64_t) { return 0; }, 40);
  EXPECT_TRUE(overflows_fit_even_fill(sets_from_overflows(full.first, full.missing)));
  // 120 sets of 16 ways and 8 of 15 (a sim whose ramp is straight too): the 15-way sets first.
  std::vector<std::uint64_t> mixed(128, 16);
  for (std::size_t set = 0; set < 8; ++set) mixed[set * 16] = 15;
  const Scan m = scan(
      mixed, [](std::uint64_t page) { return page % 128; }, 2200);
  EXPECT_TRUE(overflows_fit_even_fill(sets_from_overflows(m.first, m.missing)));
}

// An H200 L2 TLB scan at 529f601 (run 2, aligned start): 0 missing from 2025 to 2048 elements,
// 25 at 2049, then 9 more per element but twice only 1, and every element missing at 2305. Read
// as counted: a first set of 24 ways and 253 of 8, 2048 entries. Two sets of 8 ways lost a way
// when the first walks began (16 extra misses at 2049, paid back by the two +1 later): a set of
// 24 ways could hold 25 pages at 2049 elements only if the sets did not fill evenly, and the
// straight ramp (slope 9.0) says they did: 256 x 8.
TEST(SetOverflows, TheH200L2TlbsFirstOverflowBreaksTheEvenFill) {
  const std::vector<std::uint64_t> counts =
      counts_of({{0, 24}, {25, 1}, {9, 170}, {1, 1}, {9, 55}, {1, 1}, {9, 28}, {1, 8}});
  const SetsFromOverflows sets = sets_from_overflows(2025, counts);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(sets.ways.front(), 24u);
  EXPECT_EQ(sets.overflowed_at.front(), 2049u);
  EXPECT_EQ(sets.entries, 2048u);
  EXPECT_EQ(sets.ways.size(), 254u);
  EXPECT_FALSE(overflows_fit_even_fill(sets));
  const RampFit ramp = equal_sets_from_ramp(2025, counts);
  ASSERT_TRUE(ramp.found) << ramp.why;
  EXPECT_EQ(ramp.ways, 8u);
  EXPECT_EQ(ramp.sets, 256u);
}

// Sets filled in turn overflow fewest ways first; the H200 L1 TLB scan at a860e43 (run 5) that
// counted 0, 0, 16, 17, 19 at 15-19 elements did not.
TEST(SetOverflows, SetsFilledInTurnOverflowFewestWaysFirst) {
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Scan s = scan(
        {17, 8, 8, 8, 8, 8, 7}, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    EXPECT_TRUE(overflows_in_fill_order(sets_from_overflows(s.first, s.missing))) << rotation;
  }
  const SetsFromOverflows h200 =
      sets_from_overflows(15, std::vector<std::uint64_t>{0, 0, 16, 17, 19, 20, 21, 22});
  ASSERT_TRUE(h200.complete);
  EXPECT_EQ(h200.ways, (std::vector<std::uint64_t>{15, 1}));
  EXPECT_EQ(h200.consistent, h200.steps);  // every count explained, and still not sets
  EXPECT_FALSE(overflows_in_fill_order(h200));
}

TEST(SetOverflows, WaysValueOfNothingIsNull) {
  EXPECT_TRUE(ways_value({}).is_null());
}

}  // namespace
}  // namespace memtopo
