// The coarse-to-fine size search against synthetic caches: no backend, exact expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/size/size_search.hpp"

namespace memtopo {
namespace {

// An ideal cache: a footprint fits when it is at most `size` bytes. Optionally one footprint
// is reported missing the first time it is measured (an outlier burst).
struct SyntheticCache {
  explicit SyntheticCache(std::uint64_t size_bytes, std::uint64_t false_miss_once_at = 0)
      : size(size_bytes), false_miss_once(false_miss_once_at) {}

  std::uint64_t size;
  std::uint64_t false_miss_once;
  std::vector<std::size_t> batch_sizes;
  std::vector<std::string> phases;

  std::vector<FitVerdict> operator()(std::span<const std::uint64_t> footprints,
                                     std::string_view phase) {
    batch_sizes.push_back(footprints.size());
    phases.emplace_back(phase);
    std::vector<FitVerdict> verdicts;
    for (std::uint64_t f : footprints) {
      FitVerdict v;
      v.fits = f <= size;
      if (f == false_miss_once) {
        v.fits = false;
        false_miss_once = 0;
      }
      v.miss_score = v.fits ? 0.0 : 0.01;
      verdicts.push_back(v);
    }
    return verdicts;
  }
};

SizeSearchPlan plan(std::uint32_t slots, std::uint64_t max_bytes = 64ull << 20) {
  SizeSearchPlan p;
  p.start_bytes = 1024;
  p.max_bytes = max_bytes;
  p.stride_bytes = 32;
  p.batch_slots = slots;
  return p;
}

SizeSearchResult search(SyntheticCache& cache, const SizeSearchPlan& p) {
  return search_cache_size(
      p, [&](std::span<const std::uint64_t> f, std::string_view phase) { return cache(f, phase); });
}

std::size_t count(const std::vector<std::string>& phases, const std::string& phase) {
  return static_cast<std::size_t>(std::count(phases.begin(), phases.end(), phase));
}

TEST(SizeSearch, FindsTheEdgeToTheStrideWithManySlots) {
  SyntheticCache cache(245760);
  const auto r = search(cache, plan(132));
  EXPECT_EQ(r.outcome, SizeSearchOutcome::found);
  EXPECT_EQ(r.size_bytes, 245760u);
  EXPECT_EQ(r.doubling_fit, 131072u);
  EXPECT_EQ(r.doubling_miss, 262144u);
  EXPECT_DOUBLE_EQ(r.confidence, 1.0);
  // 1 KiB .. 256 KiB in three batches of four doubling steps; 4096 strides of bracket need two
  // sections of at most 132 points to come down to 4 strides; one fine scan.
  EXPECT_EQ(count(cache.phases, "doubling"), 3u);
  EXPECT_EQ(count(cache.phases, "section"), 2u);
  EXPECT_EQ(count(cache.phases, "scan"), 1u);
  EXPECT_EQ(r.batches, cache.batch_sizes.size());
}

TEST(SizeSearch, SizesThatAreNoMultipleOfTheStrideComeOutRoundedDown) {
  SyntheticCache cache(232448 + 100);
  const auto r = search(cache, plan(8));
  EXPECT_EQ(r.outcome, SizeSearchOutcome::found);
  EXPECT_EQ(r.size_bytes, 232448u + 96);
}

TEST(SizeSearch, BisectsWithOneSlotAndNeverExceedsTheSlots) {
  for (std::uint32_t slots : {1u, 3u, 16u}) {
    SyntheticCache cache(98304);
    const auto r = search(cache, plan(slots));
    EXPECT_EQ(r.size_bytes, 98304u) << slots;
    for (auto n : cache.batch_sizes) EXPECT_LE(n, slots);
  }
}

TEST(SizeSearch, ScanCoversTheFinalBracketAndAMarginAtTheStride) {
  SyntheticCache cache(24576);
  const auto r = search(cache, plan(6));
  ASSERT_EQ(r.outcome, SizeSearchOutcome::found);
  EXPECT_LE(r.bracket_miss - r.bracket_fit, 4u * 32);
  ASSERT_FALSE(r.scan.empty());
  EXPECT_EQ(r.scan.front().footprint_bytes, r.bracket_fit - 2 * 32);
  EXPECT_EQ(r.scan.back().footprint_bytes, r.bracket_miss + 2 * 32);
  for (std::size_t i = 1; i < r.scan.size(); ++i) {
    EXPECT_EQ(r.scan[i].footprint_bytes - r.scan[i - 1].footprint_bytes, 32u);
  }
}

TEST(SizeSearch, RecoversFromAFalseMissBelowTheEdge) {
  // 160 KiB misses once, below the true 200 KiB edge: the first bracket closes on it, the fine
  // scan shows everything fitting there, and the search reopens above it.
  SyntheticCache cache(204800, 163840);
  const auto r = search(cache, plan(4));
  EXPECT_EQ(r.outcome, SizeSearchOutcome::found);
  EXPECT_EQ(r.size_bytes, 204800u);
  EXPECT_EQ(r.reopenings, 1u);
}

TEST(SizeSearch, ALowerBoundWhenNothingMissesUpToTheLimit) {
  SyntheticCache cache(1u << 30);
  const auto r = search(cache, plan(4, 48 * 1024));
  EXPECT_EQ(r.outcome, SizeSearchOutcome::fits_up_to_max);
  EXPECT_EQ(r.size_bytes, 32u * 1024);  // the largest doubling step within 48 KiB
}

TEST(SizeSearch, SaysSoWhenEvenTheStartMisses) {
  SyntheticCache cache(512);
  const auto r = search(cache, plan(4));
  EXPECT_EQ(r.outcome, SizeSearchOutcome::misses_at_start);
}

TEST(SizeSearch, AFoundEdgeIsAsSureAsItsEdgeConfidence) {
  SyntheticCache cache(98304);
  const auto r = search(cache, plan(8));
  const auto confidence = size_confidence(r);
  ASSERT_TRUE(confidence);
  ASSERT_EQ(confidence->factors().size(), 1u);
  EXPECT_EQ(confidence->factors()[0].rule, "edge");
  EXPECT_DOUBLE_EQ(confidence->value(), r.confidence);
}

// Fine scans that never show the edge (every scanned footprint fits, while the doubling and the
// section miss above the size): after its reopenings the search gives up with the best
// estimate, which only one of its two ways to locate an edge supports.
TEST(SizeSearch, NoEdgeGivesABestEstimateAtEvenOddsOfItsEdgeConfidence) {
  const std::uint64_t size = 204800;
  const auto r = search_cache_size(
      plan(4), [&](std::span<const std::uint64_t> footprints, std::string_view phase) {
        std::vector<FitVerdict> verdicts;
        for (std::uint64_t f : footprints) {
          FitVerdict v;
          v.fits = phase == "scan" || f <= size;
          v.miss_score = v.fits ? 0.0 : 0.01;
          verdicts.push_back(v);
        }
        return verdicts;
      });
  ASSERT_EQ(r.outcome, SizeSearchOutcome::no_edge);
  EXPECT_EQ(r.reopenings, 2u);
  ASSERT_NE(r.size_bytes, 0u);
  EXPECT_GT(r.confidence, 0.0);
  const auto confidence = size_confidence(r);
  ASSERT_TRUE(confidence);
  ASSERT_EQ(confidence->factors().size(), 2u);
  EXPECT_EQ(confidence->factors()[0].rule, "edge");
  EXPECT_EQ(confidence->factors()[1].rule, "methods_agreeing");
  EXPECT_DOUBLE_EQ(confidence->factors()[1].value, 0.5);
  EXPECT_DOUBLE_EQ(confidence->value(), 0.5 * r.confidence);
}

TEST(SizeSearch, BoundsAndMissesAtTheStartHaveNoConfidence) {
  SyntheticCache huge(1u << 30), tiny(512);
  EXPECT_FALSE(size_confidence(search(huge, plan(4, 48 * 1024))));
  EXPECT_FALSE(size_confidence(search(tiny, plan(4))));
}

TEST(SectionPoints, FewestPointsForTheFewestBatches) {
  // 4096 strides down to 4: ratio 1024 needs two batches of up to 132 points; 31 points per
  // batch (32 x 32 = 1024) already do it in two.
  const auto points = section_points(0, 4096 * 32, 32, 132, 4);
  EXPECT_EQ(points.size(), 31u);
  EXPECT_EQ(points.front(), 128u * 32);
  for (auto p : points) EXPECT_EQ(p % 32, 0u);
  // One slot: a bisection.
  const auto half = section_points(1024, 1024 + 64 * 32, 32, 1, 4);
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0], 1024u + 32 * 32);
  // Already narrow enough: nothing to section.
  EXPECT_TRUE(section_points(1024, 1024 + 4 * 32, 32, 8, 4).empty());
}

}  // namespace
}  // namespace memtopo

namespace memtopo {
namespace {

// The planner is the search, resumable: driven by hand batch by batch it asks for exactly what
// search_cache_size measures and ends with the same result.
TEST(SizeSearchPlanner, ResumableStepByStepLikeTheLoop) {
  SyntheticCache looped(98304), stepped(98304);
  const auto expected = search(looped, plan(8));
  SizeSearchPlanner planner(plan(8));
  std::size_t batches = 0;
  while (!planner.done()) {
    const FootprintBatch& batch = planner.next_batch();
    EXPECT_LE(batch.footprints.size(), 8u);
    EXPECT_EQ(batch.phase, looped.phases[batches]);
    planner.feed(stepped(batch.footprints, batch.phase));
    ++batches;
  }
  EXPECT_EQ(batches, looped.batch_sizes.size());
  EXPECT_EQ(planner.result().size_bytes, expected.size_bytes);
  EXPECT_EQ(planner.result().outcome, SizeSearchOutcome::found);
  EXPECT_THROW(planner.next_batch(), std::logic_error);
}

TEST(SizeSearchPlanner, MisuseIsAnError) {
  SizeSearchPlanner planner(plan(4));
  EXPECT_THROW(planner.result(), std::logic_error);  // not done yet
  EXPECT_THROW(planner.feed({}), std::logic_error);  // wrong number of verdicts
  SizeSearchPlan bad = plan(4);
  bad.start_bytes = 1000;  // not a multiple of the stride
  EXPECT_THROW(SizeSearchPlanner{bad}, std::invalid_argument);
}

// Several searches share every round (one batch with each search's footprints), without
// threads, and each finds its own edge.
TEST(SizeSearchPlanner, SearchesInterleaveTheirBatches) {
  SyntheticCache small(24576), large(245760);
  const std::vector<SizeSearchPlan> plans = {plan(4), plan(4)};
  std::size_t rounds = 0, shared_rounds = 0;
  const auto results =
      search_cache_sizes_together(plans, [&](std::span<const FootprintBatch* const> round) {
        ++rounds;
        shared_rounds += (round[0] != nullptr && round[1] != nullptr);
        std::vector<std::vector<FitVerdict>> out(round.size());
        if (round[0]) out[0] = small(round[0]->footprints, round[0]->phase);
        if (round[1]) out[1] = large(round[1]->footprints, round[1]->phase);
        return out;
      });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].size_bytes, 24576u);
  EXPECT_EQ(results[1].size_bytes, 245760u);
  // Every round serves the longer search; the shorter one rides along until it is done.
  EXPECT_EQ(rounds, std::max(small.batch_sizes.size(), large.batch_sizes.size()));
  EXPECT_EQ(shared_rounds, std::min(small.batch_sizes.size(), large.batch_sizes.size()));
}

}  // namespace
}  // namespace memtopo
