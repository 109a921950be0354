// Minimal eviction sets by group testing, against a model cache that answers every chase: under
// LRU a set holding more lines than ways misses on all of them, any other set on none.
#include "analysis/eviction_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace memtopo {
namespace {

using SetOf = std::function<std::uint64_t(std::uint64_t)>;

// Which lines of a cyclic chase miss on a `ways`-way LRU cache: those of overfull sets.
std::vector<bool> lru_misses(const std::vector<std::uint64_t>& chase, const SetOf& set_of,
                             std::size_t ways) {
  std::map<std::uint64_t, std::size_t> per_set;
  for (std::uint64_t line : chase) ++per_set[set_of(line)];
  std::vector<bool> missed;
  for (std::uint64_t line : chase) missed.push_back(per_set[set_of(line)] > ways);
  return missed;
}

// Runs the reduction to its end against the model; returns it.
EvictionSetReduction reduce(std::uint64_t target, std::vector<std::uint64_t> candidates,
                            const SetOf& set_of, std::size_t ways, bool prune,
                            std::size_t max_tests = 2000) {
  EvictionSetReduction r(target, std::move(candidates), prune, max_tests);
  while (!r.finished()) {
    std::vector<std::vector<bool>> missed;
    for (const auto& chase : r.round()) missed.push_back(lru_misses(chase, set_of, ways));
    r.record(missed);
  }
  return r;
}

// A hashed index: 64 sets, set bit k = parity of line bits k and k + 6 (and bit 0 also bit 13).
std::uint64_t hashed_set(std::uint64_t line) {
  std::uint64_t set = 0;
  for (unsigned k = 0; k < 6; ++k) {
    set |= (((line >> k) ^ (line >> (k + 6))) & 1) << k;
  }
  return set ^ ((line >> 13) & 1);
}

std::vector<std::uint64_t> lines(std::uint64_t from, std::uint64_t to) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t x = from; x < to; ++x) out.push_back(x);
  return out;
}

void expect_minimal_set_of(const EvictionSetReduction& r, const SetOf& set_of, std::size_t ways) {
  ASSERT_TRUE(r.minimal()) << r.why();
  EXPECT_EQ(r.candidates().size(), ways);
  for (std::uint64_t x : r.candidates()) EXPECT_EQ(set_of(x), set_of(r.target()));
}

// A pool twice the cache (4-way, 64 sets: 256 lines; pool 512): every set is overfull, the
// reduction must find W = 4 lines of the target's set, with and without pruning.
TEST(EvictionSets, ReducesAPoolTwiceTheCacheToTheWaysOfTheTargetsSet) {
  for (bool prune : {true, false}) {
    SCOPED_TRACE(prune ? "pruning" : "no pruning");
    const auto r = reduce(600, lines(0, 512), hashed_set, 4, prune);
    expect_minimal_set_of(r, hashed_set, 4);
    EXPECT_LE(r.tests(), prune ? 100u : 200u) << r.rounds() << " rounds";
  }
}

// The pool one line past the cache, pruned by its misses, is the target's set: the first round
// (with and without the target) keeps it, one round of single removals confirms it.
TEST(EvictionSets, AnExactSetIsConfirmedInOneRound) {
  std::vector<std::uint64_t> set;
  for (std::uint64_t x : lines(0, 256)) {
    if (hashed_set(x) == hashed_set(256)) set.push_back(x);
  }
  ASSERT_EQ(set.size(), 4u);
  const auto r = reduce(256, set, hashed_set, 4, true);
  expect_minimal_set_of(r, hashed_set, 4);
  EXPECT_EQ(r.rounds(), 2u);
  EXPECT_EQ(r.tests(), 2u + 5u);  // then the control and one chase per line left out
}

// A pool of several overfull sets, each one line over its ways (a chase a few lines past the
// capacity): leaving the target out relieves only its set, whose lines stop missing; no group
// testing over the whole pool.
TEST(EvictionSets, TheTargetsSetStopsMissingWithoutTheTarget) {
  std::vector<std::uint64_t> pool;  // lines [0, 260) overfill the sets of lines 256..259
  for (std::uint64_t x : lines(0, 260)) {
    if (lru_misses(lines(0, 260), hashed_set, 4)[x]) pool.push_back(x);
  }
  ASSERT_EQ(pool.size(), 4u * 5u);
  std::erase(pool, std::uint64_t{258});
  const auto r = reduce(258, pool, hashed_set, 4, false);
  expect_minimal_set_of(r, hashed_set, 4);
  EXPECT_EQ(r.rounds(), 2u);
}

// Six congruent lines among the candidates (more than W = 4): no single line is necessary, so
// lines go one at a time until exactly four remain.
TEST(EvictionSets, MoreCongruentLinesThanWaysShrinkToTheWays) {
  const SetOf modulo = [](std::uint64_t x) { return x % 16; };
  std::vector<std::uint64_t> candidates = {3, 19, 35, 51, 67, 83, 4, 5, 21};
  const auto r = reduce(99, candidates, modulo, 4, false);
  expect_minimal_set_of(r, modulo, 4);
}

// Direct mapped: any one congruent line evicts the target.
TEST(EvictionSets, OneWayGivesASingleLine) {
  const SetOf modulo = [](std::uint64_t x) { return x % 8; };
  const auto r = reduce(8, lines(0, 8), modulo, 1, true);
  expect_minimal_set_of(r, modulo, 1);
}

// Candidates that do not evict the target (a control that hits) end the reduction with why.
TEST(EvictionSets, CandidatesThatDoNotEvictFailWithTheReason) {
  const auto r = reduce(256, {0, 1, 2}, hashed_set, 4, true);
  EXPECT_FALSE(r.minimal());
  EXPECT_TRUE(r.finished());
  EXPECT_NE(r.why().find("did not evict the target"), std::string::npos) << r.why();
}

TEST(EvictionSets, TheTestBudgetBoundsTheWork) {
  const auto r = reduce(600, lines(0, 512), hashed_set, 4, false, 20);
  EXPECT_FALSE(r.minimal());
  EXPECT_LE(r.tests(), 20u);
  EXPECT_NE(r.why().find("within 20 tests"), std::string::npos) << r.why();
}

TEST(EvictionSets, ShapesOfTheVerdictsAreChecked) {
  EvictionSetReduction r(9, {1, 2, 3}, true, 100);
  EXPECT_THROW(r.record({}), std::invalid_argument);
  EXPECT_THROW(EvictionSetReduction(9, {}, true, 100), std::invalid_argument);
}

TEST(EvictionSets, VoteOnWaysTakesTheMostCommonSize) {
  const std::vector<std::optional<std::size_t>> sizes = {4, 4, std::nullopt, 5, 4};
  const WaysVote vote = vote_on_ways(sizes);
  EXPECT_EQ(vote.ways, 4u);
  EXPECT_EQ(vote.agreeing, 3u);
  EXPECT_FALSE(vote_on_ways(std::vector<std::optional<std::size_t>>{std::nullopt}).ways);
}

TEST(EvictionSets, CongruentModuloChecksEveryGroup) {
  const std::vector<std::vector<std::uint64_t>> groups = {{3, 230, 457}, {5, 232}};
  EXPECT_TRUE(congruent_modulo(groups, 227));
  EXPECT_FALSE(congruent_modulo(groups, 224));
  EXPECT_FALSE(congruent_modulo({}, 227));
}

}  // namespace
}  // namespace memtopo
