// Host-only benchmark of the analysis and chain-building paths a discovery runs between its
// chases (issue 35 item 1): on synthetic data shaped like a device-wide chase, a size probe's
// trace and an L2's eviction-set search, each timed over repeats. A time is a benchmark, not a
// test (it depends on the machine and the build), so these are disabled in the suite; run them
// from an optimised build with
//   build/tests/unit/memtopo_unit_tests --gtest_also_run_disabled_tests
//       --gtest_filter='HostWorkBench.*'
// They use only interfaces older than the cuts they measure, so the same file times a build of
// the code before them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "analysis/associativity.hpp"
#include "analysis/eviction_sets.hpp"
#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"

namespace memtopo {
namespace {

// Milliseconds per call of `work`, the best of `repeats` (the least disturbed by other load).
template <typename Work>
double best_ms(int repeats, const Work& work) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

void report(const char* what, double ms) {
  std::printf("[ host work ] %-44s %9.3f ms\n", what, ms);
}

std::uint64_t next(std::uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

// Cycles of a chase: whole cycles less a fractional overhead, a few levels and rare outliers.
std::vector<double> latencies(std::size_t count, std::uint64_t seed) {
  std::vector<double> cycles(count);
  for (double& c : cycles) {
    const std::uint64_t r = next(seed);
    c = (r % 1000 == 0 ? 900.0 : r % 3 == 0 ? 480.0 : 260.0) + static_cast<double>(r % 7) - 20.37;
  }
  return cycles;
}

// A device-wide chase: 400 000 lines of 128 bytes, two timed passes.
TEST(HostWorkBench, DISABLED_SlowCountsOfADeviceWideChase) {
  constexpr std::uint32_t kLines = 400'000;
  std::vector<std::uint32_t> indices;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint32_t line = 0; line < kLines; ++line) indices.push_back(line * 32);
  }
  const std::vector<double> cycles = latencies(indices.size(), 1);
  std::size_t missing = 0;
  report("slow_counts_per_line + overflow_lines", best_ms(5, [&] {
           missing =
               overflow_lines(slow_counts_per_line(cycles, indices, 128, 400), 2).lines.size();
         }));
  EXPECT_GT(missing, 0u);
}

// A size probe's trace: 100 000 timed loads at a 32-byte stride, summarised and judged.
TEST(HostWorkBench, DISABLED_SummaryAndVerdictOfASizeProbesTrace) {
  constexpr std::uint32_t kLoads = 100'000;
  std::vector<std::uint32_t> indices;
  for (std::uint32_t i = 0; i < kLoads; ++i) indices.push_back((i % (kLoads / 2)) * 8);
  const std::vector<double> cycles = latencies(kLoads, 2);
  double p50 = 0;
  report("summarize (100k samples)", best_ms(20, [&] { p50 = summarize(cycles).p50; }));
  report("median (100k samples)", best_ms(20, [&] { p50 = median(cycles); }));
  const FitRule rule = fit_rule_for({.hit_cycles = 240, .next_level_cycles = 460});
  bool fits = true;
  report("judge_fit (100k loads, 32-byte stride)",
         best_ms(20, [&] { fits = judge_fit(cycles, indices, rule).fits; }));
  EXPECT_GT(p50, 0);
  EXPECT_FALSE(fits);
}

// An eviction test's chase as the geometry probes make it: 4 096 lines spread over 1 GiB,
// validated and ordered as a backend does (check_runnable, then the chain's order).
TEST(HostWorkBench, DISABLED_ValidatingAndOrderingAnExplicitChase) {
  ChaseSpec spec;
  spec.footprint_bytes = std::uint64_t{1} << 30;
  spec.order = ChaseOrder::explicit_indices;
  std::uint64_t seed = 3;
  for (std::uint32_t k = 0; k < 4096; ++k) {
    spec.indices.push_back(k * 65536 + static_cast<std::uint32_t>(next(seed) % 2048) * 32);
  }
  spec.start_index = spec.indices.front();
  std::size_t length = 0;
  report("validate + wide_order (4096 spread lines)", best_ms(50, [&] {
           validate(spec);
           length = wide_order(spec).size();
         }));
  EXPECT_EQ(length, 4096u);
}

// An L2 eviction-set reduction: a target and 4 000 candidates over 2 048 sets of 16 ways, 16 of
// them congruent with it (its ways). A chase's congruent lines all miss when they and the target
// overfill the set (LRU); every other line misses at random on 90 % of the chases (a noisy,
// random-like L2), so pruning keeps many candidates and the group tests do the work.
TEST(HostWorkBench, DISABLED_EvictionSetReductionOfAnL2Target) {
  constexpr std::uint64_t kSets = 2048, kWays = 16;
  const std::uint64_t target = 5;
  std::vector<std::uint64_t> candidates;
  for (std::uint64_t line = 0; candidates.size() < 4000 - kWays; line += 3) {
    if (line % kSets != target % kSets) candidates.push_back(kSets * 64 + line);
  }
  for (std::uint64_t k = 1; k <= kWays; ++k)
    candidates.insert(candidates.begin() + 190 * k, target + k * kSets);
  std::uint64_t noise = 11;
  const auto answer = [&](const std::vector<std::uint64_t>& chase) {
    std::uint64_t congruent = 0;
    for (std::uint64_t line : chase) congruent += line % kSets == target % kSets;
    std::vector<bool> missed;
    for (std::uint64_t line : chase) {
      missed.push_back(line % kSets == target % kSets ? congruent > kWays : next(noise) % 10 != 0);
    }
    return missed;
  };
  std::size_t tests = 0, found = 0;
  report("EvictionSetReduction (4000 candidates)", best_ms(5, [&] {
           EvictionSetReduction r(target, candidates, true, 256);
           while (!r.finished()) {
             std::vector<std::vector<bool>> missed;
             for (const auto& chase : r.round()) missed.push_back(answer(chase));
             r.record(missed);
           }
           tests = r.tests();
           found = r.minimal() ? r.candidates().size() : 0;
         }));
  std::printf("[ host work ] (%zu tests, %zu lines)\n", tests, found);
  EXPECT_GT(tests, 0u);
}

}  // namespace
}  // namespace memtopo
