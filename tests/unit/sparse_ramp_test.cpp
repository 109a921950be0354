// The sampled ramp of a TLB level too large to scan length by length (sparse_ramp_lengths), read
// by equal_sets_from_ramp as a full scan is: counts from a model of S equal LRU sets of W ways
// filled by consecutive pages (set = page mod S).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "analysis/set_overflows.hpp"

namespace memtopo {
namespace {

// Elements missing on every pass of a cyclic chain over pages 0 .. n-1: the pages of the sets
// that hold more than `ways` of them.
std::uint64_t missing_in_equal_sets(std::uint64_t n, std::uint64_t sets, std::uint64_t ways) {
  std::uint64_t missing = 0;
  for (std::uint64_t set = 0; set < sets; ++set) {
    const std::uint64_t pages = n / sets + (set < n % sets ? 1 : 0);
    if (pages > ways) missing += pages;
  }
  return missing;
}

TEST(SparseRamp, FifteenLengthsReadSixteenThousandEntriesOfSixteenWays) {
  const std::uint64_t sets = 1024, ways = 16, entries = sets * ways;
  const std::vector<std::uint64_t> lengths =
      sparse_ramp_lengths(entries + 1, static_cast<double>(ways + 1), 4 * entries);
  ASSERT_EQ(lengths.size(), kSparseRampPoints + kSparseTailPoints);
  std::vector<std::uint64_t> missing;
  for (const std::uint64_t n : lengths) missing.push_back(missing_in_equal_sets(n, sets, ways));
  // The first kSparseRampPoints lie on the ramp (between 10 % and 90 % of their chain), the rest
  // past its end, where every element misses.
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const double share = static_cast<double>(missing[i]) / static_cast<double>(lengths[i]);
    if (i < kSparseRampPoints) {
      EXPECT_GT(share, kRampLow) << lengths[i];
      EXPECT_LT(share, kRampHigh) << lengths[i];
    } else {
      EXPECT_EQ(missing[i], lengths[i]);
    }
  }
  const RampFit fit = equal_sets_from_ramp(lengths, missing);
  ASSERT_TRUE(fit.found) << fit.why;
  EXPECT_EQ(fit.ways, ways);
  EXPECT_EQ(fit.sets, sets);
}

TEST(SparseRamp, NoLengthsWithoutAWholeWayNorPastTheLongestChain) {
  EXPECT_TRUE(sparse_ramp_lengths(4097, 1.2, 100000).empty());  // no set overflows at once
  const std::vector<std::uint64_t> cut = sparse_ramp_lengths(4097, 9.0, 4096 + 512 + 2);
  ASSERT_FALSE(cut.empty());
  EXPECT_LE(cut.back(), 4096u + 512 + 2);
  EXPECT_LT(cut.size(), kSparseRampPoints + kSparseTailPoints);  // the tail did not fit
}

}  // namespace
}  // namespace memtopo
