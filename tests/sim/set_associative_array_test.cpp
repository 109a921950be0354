#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "backend/sim/set_associative_array.hpp"

namespace memtopo::sim {
namespace {

constexpr std::uint64_t kLine = 128;

SetAssociativeArray make_array(std::vector<std::uint32_t> ways_per_set, Replacement policy = {},
                               SetIndex index = {}, std::uint64_t sector_bytes = kLine) {
  return SetAssociativeArray(
      ArrayShape{kLine, sector_bytes, std::move(ways_per_set), std::move(index)},
      std::move(policy));
}

std::vector<Lookup> access_all(SetAssociativeArray& array,
                               const std::vector<std::uint64_t>& addresses) {
  std::vector<Lookup> outcomes;
  for (std::uint64_t address : addresses) outcomes.push_back(array.access(address));
  return outcomes;
}

constexpr Lookup H = Lookup::hit;
constexpr Lookup M = Lookup::miss;
constexpr Lookup S = Lookup::sector_miss;
constexpr std::uint64_t A = 0, B = kLine, C = 2 * kLine;

TEST(SetAssociativeArray, LruEvictsTheLeastRecentlyUsedLine) {
  auto array = make_array({2}, {Replacement::Kind::lru, {}});
  // A and B fill the set; A is used again, so C evicts B; then B evicts C (A used last), and
  // C evicts A.
  EXPECT_EQ(access_all(array, {A, B, A, C, A, B, C}), (std::vector<Lookup>{M, M, H, M, H, M, M}));
  EXPECT_FALSE(array.holds(A));
  EXPECT_TRUE(array.holds(B));
  EXPECT_TRUE(array.holds(C));
}

TEST(SetAssociativeArray, FifoEvictsTheOldestFillWhateverItsUse) {
  auto array = make_array({2}, {Replacement::Kind::fifo, {}});
  EXPECT_EQ(access_all(array, {A, B, A, C}), (std::vector<Lookup>{M, M, H, M}));
  EXPECT_FALSE(array.holds(A));  // filled first, evicted first although just used
  EXPECT_TRUE(array.holds(B));
  // B's hit does not save it: A evicts B, the oldest fill; then B evicts C.
  EXPECT_EQ(access_all(array, {B, A, C, B}), (std::vector<Lookup>{H, M, H, M}));
}

TEST(SetAssociativeArray, EmptyWaysFillBeforeAnyEviction) {
  for (Replacement policy : {Replacement{Replacement::Kind::random, {}},
                             Replacement{Replacement::Kind::victim_weights, {1, 3, 1, 1}}}) {
    auto array = make_array({4}, policy);
    array.clear(5);
    EXPECT_EQ(access_all(array, {0, kLine, 2 * kLine, 3 * kLine}),
              (std::vector<Lookup>{M, M, M, M}));
    for (std::uint64_t line = 0; line < 4; ++line) EXPECT_TRUE(array.holds(line * kLine));
  }
}

// Evicts `evictions` times from a full one-set array of four ways and returns how often each
// way was the victim. The way a new line took is found as the way whose old line is gone.
std::array<double, 4> victim_frequencies(Replacement policy, int evictions, std::uint64_t seed) {
  auto array = make_array({4}, std::move(policy));
  array.clear(seed);
  std::array<std::uint64_t, 4> line_in_way{};
  for (std::uint64_t way = 0; way < 4; ++way) {
    line_in_way[way] = way;
    array.access(way * kLine);
  }
  std::array<double, 4> counts{};
  for (int i = 0; i < evictions; ++i) {
    const std::uint64_t fresh = 4 + static_cast<std::uint64_t>(i);
    EXPECT_EQ(array.access(fresh * kLine), Lookup::miss);
    int victims = 0;
    for (std::size_t way = 0; way < 4; ++way) {
      if (array.holds(line_in_way[way] * kLine)) continue;
      ++victims;
      ++counts[way];
      line_in_way[way] = fresh;
    }
    EXPECT_EQ(victims, 1);
  }
  for (double& count : counts) count /= evictions;
  return counts;
}

TEST(SetAssociativeArray, VictimWeightsSetHowOftenEachWayIsEvicted) {
  const auto frequencies =
      victim_frequencies({Replacement::Kind::victim_weights, {1, 3, 1, 1}}, 10000, 11);
  EXPECT_NEAR(frequencies[0], 1.0 / 6, 0.02);
  EXPECT_NEAR(frequencies[1], 3.0 / 6, 0.02);
  EXPECT_NEAR(frequencies[2], 1.0 / 6, 0.02);
  EXPECT_NEAR(frequencies[3], 1.0 / 6, 0.02);
}

TEST(SetAssociativeArray, ZeroVictimWeightProtectsAWay) {
  const auto frequencies =
      victim_frequencies({Replacement::Kind::victim_weights, {0, 1, 0, 1}}, 2000, 3);
  EXPECT_EQ(frequencies[0], 0.0);
  EXPECT_EQ(frequencies[2], 0.0);
  EXPECT_NEAR(frequencies[1], 0.5, 0.04);
}

TEST(SetAssociativeArray, RandomEvictsEveryWayAlike) {
  const auto frequencies = victim_frequencies({Replacement::Kind::random, {}}, 10000, 17);
  for (double frequency : frequencies) EXPECT_NEAR(frequency, 0.25, 0.02);
}

TEST(SetAssociativeArray, RandomVictimsRepeatForASeedAndDifferForAnother) {
  const auto run = [](std::uint64_t seed) {
    auto array = make_array({4}, {Replacement::Kind::random, {}});
    array.clear(seed);
    std::vector<Lookup> outcomes;
    for (int pass = 0; pass < 20; ++pass) {
      for (std::uint64_t line = 0; line < 6; ++line) outcomes.push_back(array.access(line * kLine));
    }
    return outcomes;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

TEST(SetAssociativeArray, SectorMissOnAPresentLineFillsOnlyThatSector) {
  auto array = make_array({1}, {}, {}, 32);
  EXPECT_EQ(access_all(array, {0, 32, 32, 0, 96, 100, 64}),
            (std::vector<Lookup>{M, S, H, H, S, H, S}));
  // A new line in the one way drops every sector of the old one.
  EXPECT_EQ(access_all(array, {kLine, 0, 32}), (std::vector<Lookup>{M, M, S}));
}

TEST(SetAssociativeArray, UnequalSetsHoldTheirOwnNumberOfWays) {
  auto array = make_array({3, 1});  // even lines in set 0 (3 ways), odd lines in set 1 (1 way)
  EXPECT_EQ(array.set_count(), 2u);
  EXPECT_EQ(access_all(array, {0, 2 * kLine, 4 * kLine, 0, 2 * kLine, 4 * kLine}),
            (std::vector<Lookup>{M, M, M, H, H, H}));
  EXPECT_EQ(access_all(array, {6 * kLine, 0}), (std::vector<Lookup>{M, M}));  // line 0 was LRU
  EXPECT_EQ(access_all(array, {kLine, 3 * kLine, kLine}), (std::vector<Lookup>{M, M, M}));
}

TEST(SetAssociativeArray, ModuloIndexHandlesANonPowerOfTwoSetCount) {
  auto array = make_array({1, 1, 1});
  EXPECT_EQ(array.set_of(4 * kLine), 1u);
  EXPECT_EQ(array.set_of(8 * kLine), 2u);
  EXPECT_EQ(array.set_of(9 * kLine + 127), 0u);
  // Lines 0 and 3 share set 0 of a direct-mapped array; line 1 has set 1 and leaves line 0 be.
  EXPECT_EQ(access_all(array, {0, 3 * kLine, 0}), (std::vector<Lookup>{M, M, M}));
  EXPECT_EQ(access_all(array, {kLine, 0, kLine}), (std::vector<Lookup>{M, H, H}));
}

TEST(SetAssociativeArray, SetIndexBitsSelectTheSetLeastSignificantFirst) {
  auto array = make_array({1, 1}, {}, SetIndex{SetIndex::Kind::bits, {9}, {}});
  EXPECT_EQ(array.set_of(0), 0u);
  EXPECT_EQ(array.set_of(kLine), 0u);  // bit 7 does not index: lines 0 and 1 collide
  EXPECT_EQ(array.set_of(512), 1u);
  EXPECT_EQ(access_all(array, {0, kLine, 0}), (std::vector<Lookup>{M, M, M}));
  EXPECT_EQ(access_all(array, {512, 0, 512}), (std::vector<Lookup>{M, H, H}));

  auto two_bits = make_array({1, 1, 1, 1}, {}, SetIndex{SetIndex::Kind::bits, {12, 7}, {}});
  EXPECT_EQ(two_bits.set_of(std::uint64_t{1} << 12), 1u);
  EXPECT_EQ(two_bits.set_of(std::uint64_t{1} << 7), 2u);
  EXPECT_EQ(two_bits.set_of((std::uint64_t{1} << 12) | (std::uint64_t{1} << 7) | 64), 3u);
}

// Set bit k is the parity of the address bits of mask k: lines that differ in two bits of one
// mask share a set, lines that differ in one bit of a mask do not.
TEST(SetAssociativeArray, XorFunctionsSelectTheSetByParity) {
  const std::uint64_t b7 = std::uint64_t{1} << 7, b8 = std::uint64_t{1} << 8;
  const std::uint64_t b12 = std::uint64_t{1} << 12, b13 = std::uint64_t{1} << 13;
  SetIndex index{SetIndex::Kind::xor_functions, {}, {b7 | b12, b8 | b13 | b12}};
  auto array = make_array({1, 1, 1, 1}, {}, index);
  EXPECT_EQ(array.set_of(0), 0u);
  EXPECT_EQ(array.set_of(b7), 1u);
  EXPECT_EQ(array.set_of(b8), 2u);
  EXPECT_EQ(array.set_of(b12), 3u);              // in both masks
  EXPECT_EQ(array.set_of(b7 | b12), 2u);         // parity of mask 0 cancels
  EXPECT_EQ(array.set_of((b8 | b13) + 64), 0u);  // both bits of mask 1; 64 is inside the line
  // 0 and b8 | b13 share set 0 of a direct-mapped array, b7 does not.
  EXPECT_EQ(access_all(array, {0, b8 | b13, 0}), (std::vector<Lookup>{M, M, M}));
  EXPECT_EQ(access_all(array, {b7, 0, b7}), (std::vector<Lookup>{M, H, H}));
}

TEST(SetAssociativeArray, FullyAssociativeArrayUsesEveryWayForAnyLines) {
  auto array = make_array({4});
  EXPECT_EQ(access_all(array, {0, 8 * kLine, 16 * kLine, 24 * kLine, 0, 8 * kLine, 16 * kLine,
                               24 * kLine}),
            (std::vector<Lookup>{M, M, M, M, H, H, H, H}));
}

TEST(SetAssociativeArray, ClearForgetsEveryLine) {
  auto array = make_array({2, 2});
  access_all(array, {0, kLine, 2 * kLine});
  array.clear(0);
  for (std::uint64_t line = 0; line < 3; ++line) EXPECT_FALSE(array.holds(line * kLine));
  EXPECT_EQ(access_all(array, {0, kLine, 0}), (std::vector<Lookup>{M, M, H}));
}

}  // namespace
}  // namespace memtopo::sim
