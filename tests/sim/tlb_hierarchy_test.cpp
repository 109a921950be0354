#include <gtest/gtest.h>

#include "backend/sim/tlb_hierarchy.hpp"

namespace memtopo::sim {
namespace {

constexpr std::uint64_t kPage = 4096;

TlbDescription level(std::uint32_t entries, Associativity ways, std::uint32_t miss_extra) {
  return TlbDescription{"tlb", entries, std::move(ways), kPage, miss_extra};
}

TEST(TlbHierarchy, MissesAddEachMissedLevelsExtraAndAHitStops) {
  // L1: 2 entries fully associative; L2: 4 entries in 2 sets of 2 (even pages in set 0).
  TlbHierarchy tlbs({level(2, {0, {}}, 10), level(4, {2, {}}, 100)});
  tlbs.clear();
  EXPECT_EQ(tlbs.translate(0), 110u);  // both miss; both fill
  EXPECT_EQ(tlbs.translate(100), 0u);  // same page: L1 hit
  EXPECT_EQ(tlbs.translate(kPage), 110u);
  EXPECT_EQ(tlbs.translate(2 * kPage), 110u);  // L1 evicts page 0 (LRU)
  EXPECT_EQ(tlbs.translate(0), 10u);           // L1 miss, L2 hit
  EXPECT_EQ(tlbs.translate(0), 0u);            // refilled into L1
}

TEST(TlbHierarchy, FootprintWithinReachHitsAfterOnePassAndBeyondItMissesEveryTime) {
  TlbHierarchy tlbs({level(4, {0, {}}, 30)});
  tlbs.clear();
  for (std::uint64_t page = 0; page < 4; ++page) EXPECT_EQ(tlbs.translate(page * kPage), 30u);
  for (int pass = 0; pass < 3; ++pass) {
    for (std::uint64_t page = 0; page < 4; ++page) EXPECT_EQ(tlbs.translate(page * kPage), 0u);
  }
  // Five pages cycled through four LRU entries: after the first four hits, each page was
  // evicted just before its turn.
  for (int pass = 0; pass < 3; ++pass) {
    for (std::uint64_t page = 0; page < 5; ++page) {
      const bool still_held = pass == 0 && page < 4;
      EXPECT_EQ(tlbs.translate(page * kPage), still_held ? 0u : 30u);
    }
  }
}

TEST(TlbHierarchy, UnequalSetsLimitEachSetToItsWays) {
  // Set 0 (even pages) holds 3 entries, set 1 (odd pages) one.
  TlbHierarchy tlbs({level(4, {0, {3, 1}}, 50)});
  tlbs.clear();
  for (std::uint64_t page : {0, 2, 4}) EXPECT_EQ(tlbs.translate(page * kPage), 50u);
  for (std::uint64_t page : {0, 2, 4}) EXPECT_EQ(tlbs.translate(page * kPage), 0u);
  EXPECT_EQ(tlbs.translate(1 * kPage), 50u);
  EXPECT_EQ(tlbs.translate(3 * kPage), 50u);
  EXPECT_EQ(tlbs.translate(1 * kPage), 50u);
}

TEST(TlbHierarchy, ClearForgetsEveryTranslation) {
  TlbHierarchy tlbs({level(2, {0, {}}, 10), level(4, {0, {}}, 100)});
  tlbs.clear();
  tlbs.translate(0);
  EXPECT_EQ(tlbs.translate(0), 0u);
  tlbs.clear();
  EXPECT_EQ(tlbs.translate(0), 110u);
}

TEST(TlbHierarchy, NoLevelsTranslateForFree) {
  TlbHierarchy tlbs({});
  tlbs.clear();
  EXPECT_EQ(tlbs.translate(123456789), 0u);
}

}  // namespace
}  // namespace memtopo::sim
