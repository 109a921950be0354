// Minimal eviction sets of several target lines (hashed_index.hpp): the pool chases that show
// which lines share an overfull set with each target, then the group-testing reductions, every
// target's tests of a round in one batch.
#include <algorithm>
#include <bit>
#include <set>

#include "probes/geometry/hashed_index.hpp"

namespace memtopo {
namespace {

// Targets of an SM cache: the lines just past the capacity (each overfills one set of a pool
// over [0, C)), then one line at each power of two beyond it up to the array alignment, so that
// every index bit the chases can see is in some target's difference to its set.
constexpr std::uint64_t kTargetsPastCapacity = 4;
// A device-wide cache: the first lines past the size that the runs chase missed (then the powers
// of two beyond the chase, as above).
constexpr std::size_t kDeviceWideTargets = 4;
// A target no pool over the capacity evicts gets a pool this many times larger.
constexpr std::uint64_t kPoolEscalation = 2;
// Tests one reduction may use, and the device time the reductions may use, as the loads of the
// longest chase of every batch (all of a device-wide cache's, whose chases run alone): about
// 0.6 s on an H100's L2 (some 270 ns a load), 80 ms on its L1. A reduction that does not
// converge must not hold the run up.
constexpr std::size_t kMaxTestsPerTarget = 256;
constexpr std::uint64_t kMaxCriticalPathLoads = std::uint64_t{1} << 21;
// The device-wide pool is chased again with at most this many loads when its misses are not
// deterministic: it is the whole cache, chased alone.
constexpr std::uint64_t kMaxPoolLoads = std::uint64_t{1} << 20;

// A cyclic chase over `lines` (distinct), one warm pass and `passes` timed ones.
ChaseSpec test_chase(const GeometryMeasurement& g, const std::vector<std::uint64_t>& lines,
                     std::uint32_t passes) {
  std::vector<std::uint32_t> words;
  for (std::uint64_t line : lines) words.push_back(g.word_of_line(line));
  return g.explicit_chase(std::move(words), 1, static_cast<std::uint32_t>(lines.size()) * passes);
}

// Per line of a chase, in its order: slow on at least `min_slow` timed accesses.
std::vector<bool> missed_lines(const LineSlowCounts& counts,
                               const std::vector<std::uint64_t>& lines, std::uint32_t min_slow) {
  std::vector<bool> missed(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) missed[i] = counts.missed(lines[i], min_slow);
  return missed;
}

// One line at each power of two from `above` (exclusive) to the array alignment, within the
// backend's footprint.
std::vector<std::uint64_t> power_of_two_targets(const GeometryMeasurement& g, std::uint64_t above) {
  const auto line_shift = static_cast<unsigned>(std::countr_zero(g.line()));
  std::vector<std::uint64_t> out;
  for (unsigned bit = line_shift; bit < kArrayAlignmentBits; ++bit) {
    const std::uint64_t line = std::uint64_t{1} << (bit - line_shift);
    if (line > above && (line + 1) * g.line() <= g.limits().max_footprint_bytes) {
      out.push_back(line);
    }
  }
  return out;
}

std::vector<std::uint64_t> sm_targets(const GeometryMeasurement& g, std::uint64_t cache_lines) {
  std::set<std::uint64_t> targets;
  for (std::uint64_t i = 0; i < kTargetsPastCapacity; ++i) {
    if ((cache_lines + i + 1) * g.line() <= g.limits().max_footprint_bytes) {
      targets.insert(cache_lines + i);
    }
  }
  for (std::uint64_t t : power_of_two_targets(g, cache_lines + kTargetsPastCapacity)) {
    targets.insert(t);
  }
  return {targets.begin(), targets.end()};
}

// The target first, then the pool lines [0, pool_lines) other than it.
std::vector<std::uint64_t> pool_chase_lines(std::uint64_t target, std::uint64_t pool_lines) {
  std::vector<std::uint64_t> lines = {target};
  for (std::uint64_t x = 0; x < pool_lines; ++x) {
    if (x != target) lines.push_back(x);
  }
  return lines;
}

// Chases each target (without a pool yet) with [0, pool_lines); records the candidates of those
// it evicts. Returns whether every missing line was slow on every pass.
bool chase_pools(GeometryMeasurement& g, EvictionSetSearch& s, std::vector<std::uint64_t>& pending,
                 std::uint64_t pool_lines) {
  std::vector<ChaseSpec> specs;
  for (std::uint64_t t : pending) {
    specs.push_back(test_chase(g, pool_chase_lines(t, pool_lines), s.passes));
  }
  const auto traces = g.run(specs, "eviction_pools");
  bool deterministic = true;
  std::vector<std::uint64_t> still;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const auto lines = pool_chase_lines(pending[i], pool_lines);
    const LineSlowCounts counts = g.counts(traces[i]);
    const auto missed = missed_lines(counts, lines, s.min_slow);
    const OverflowLines over = overflow_lines(counts, s.min_slow);
    deterministic = deterministic && (over.lines.empty() || over.deterministic());
    if (!missed.front()) {
      still.push_back(pending[i]);
      continue;
    }
    auto& target = *std::find_if(s.targets.begin(), s.targets.end(),
                                 [&](const EvictionTarget& e) { return e.line == pending[i]; });
    target.pool_lines = pool_lines;
    for (std::size_t k = 1; k < lines.size(); ++k) {
      if (missed[k]) target.set.push_back(lines[k]);
    }
  }
  pending = std::move(still);
  return deterministic;
}

// The longest chase of a round's specs, per batch of `slots`, summed: the device time it takes.
std::uint64_t critical_path(const std::vector<ChaseSpec>& specs, std::size_t slots) {
  std::uint64_t total = 0;
  for (std::size_t first = 0; first < specs.size(); first += slots) {
    std::uint64_t longest = 0;
    for (std::size_t i = first; i < std::min(specs.size(), first + slots); ++i) {
      longest = std::max(longest, loads_of(specs[i]));
    }
    total += longest;
  }
  return total;
}

// Every target's reduction to its end, or until the next round would exceed the device-time
// budget; every round one batch. Candidates are pruned by their misses: under LRU or FIFO every
// line of an overfull set misses on every pass, and under random replacement the tests' many
// passes give each such line several slow accesses, so a candidate that stays fast shares no
// overfull set with the target.
void reduce_all(GeometryMeasurement& g, EvictionSetSearch& s) {
  std::vector<EvictionSetReduction> reductions;
  std::vector<EvictionTarget*> owners;
  for (auto& t : s.targets) {
    if (t.set.empty()) {
      t.why = "no pool chase evicted it";
      continue;
    }
    reductions.emplace_back(t.line, t.set, true, kMaxTestsPerTarget);
    owners.push_back(&t);
  }
  const std::size_t slots =
      g.target().device_wide ? 1 : std::max<std::uint32_t>(1, g.limits().concurrent_slots);
  std::uint64_t spent = 0;
  while (std::any_of(reductions.begin(), reductions.end(),
                     [](const auto& r) { return !r.finished(); })) {
    std::vector<ChaseSpec> specs;
    for (const auto& r : reductions) {
      for (const auto& chase : r.round()) specs.push_back(test_chase(g, chase, s.passes));
    }
    spent += critical_path(specs, slots);
    if (spent > kMaxCriticalPathLoads) break;
    const auto traces = g.run(specs, "eviction_tests");
    std::size_t next = 0;
    for (auto& r : reductions) {
      if (r.finished()) continue;
      std::vector<std::vector<bool>> missed;
      for (const auto& chase : r.round()) {
        missed.push_back(missed_lines(g.counts(traces[next++]), chase, s.min_slow));
      }
      r.record(missed);
    }
  }
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const EvictionSetReduction& r = reductions[i];
    EvictionTarget& t = *owners[i];
    t.minimal = r.minimal();
    t.set = r.candidates();
    t.tests = r.tests();
    t.rounds = r.rounds();
    if (!r.finished()) {
      t.why = "the search's device time (" + std::to_string(kMaxCriticalPathLoads) +
              " loads on the critical path) ran out";
    } else if (!r.minimal()) {
      t.why = r.why();
    }
  }
}

void finish(GeometryMeasurement& g, EvictionSetSearch& s, std::uint64_t loads_before,
            std::uint64_t batches_before, std::uint64_t critical_before) {
  reduce_all(g, s);
  std::vector<std::optional<std::size_t>> sizes;
  for (const auto& t : s.targets) {
    sizes.push_back(t.minimal ? std::optional(t.set.size()) : std::nullopt);
  }
  s.vote = vote_on_ways(sizes);
  s.loads = g.loads() - loads_before;
  s.batches = g.batches() - batches_before;
  s.critical_path_loads = g.critical_path_loads() - critical_before;
}

}  // namespace

std::vector<std::vector<std::uint64_t>> EvictionSetSearch::full_sets() const {
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& t : targets) {
    if (!t.minimal || !vote.ways || t.set.size() != *vote.ways) continue;
    std::vector<std::uint64_t> lines = {t.line};
    lines.insert(lines.end(), t.set.begin(), t.set.end());
    out.push_back(std::move(lines));
  }
  return out;
}

EvictionSetSearch search_eviction_sets_sm(GeometryMeasurement& g, std::uint64_t cache_lines) {
  const std::uint64_t loads = g.loads(), batches = g.batches(), critical = g.critical_path_loads();
  EvictionSetSearch s;
  s.cache_lines = cache_lines;
  s.passes = g.passes();
  s.min_slow = kMinSlowToMiss;
  std::vector<std::uint64_t> pending = sm_targets(g, cache_lines);
  for (std::uint64_t t : pending) {
    EvictionTarget target;
    target.line = t;
    s.targets.push_back(std::move(target));
  }
  const std::vector<std::uint64_t> all = pending;
  if (!chase_pools(g, s, pending, cache_lines)) {
    // Random-like replacement: every missing line of an overfull set is slow on some passes
    // only; with many passes each collects several slow accesses.
    s.deterministic = false;
    s.passes = kRandomPasses;
    s.min_slow = kRandomMinSlow;
    for (auto& t : s.targets) t.set.clear();
    pending = all;
    chase_pools(g, s, pending, cache_lines);
  }
  if (!pending.empty()) chase_pools(g, s, pending, kPoolEscalation * cache_lines);
  finish(g, s, loads, batches, critical);
  return s;
}

EvictionSetSearch search_eviction_sets_device_wide(GeometryMeasurement& g,
                                                   std::uint64_t cache_lines,
                                                   std::uint64_t chased_lines,
                                                   const OverflowLines& missing,
                                                   std::size_t slow_on_some_pass) {
  const std::uint64_t loads = g.loads(), batches = g.batches(), critical = g.critical_path_loads();
  EvictionSetSearch s;
  s.cache_lines = cache_lines;
  s.deterministic =
      !missing.lines.empty() &&
      g.explained_by_outliers(slow_on_some_pass - std::min(slow_on_some_pass, missing.lines.size()),
                              chased_lines * g.passes());
  s.passes = g.passes();
  s.min_slow = g.passes();  // every pass, as the runs chase judged
  std::vector<std::uint64_t> pool = missing.lines;
  if (!s.deterministic) {
    const auto pool_passes = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
        kMaxPoolLoads / std::max<std::uint64_t>(chased_lines, 1), g.passes(), kRandomPasses));
    const auto trace =
        g.run({g.sequential(chased_lines * g.line(), g.line(), pool_passes)}, "eviction_pool");
    pool = overflow_lines(g.counts(trace.front()),
                          pool_passes >= kRandomPasses ? kRandomMinSlow : kMinSlowToMiss)
               .lines;
    s.passes = kRandomPasses;
    s.min_slow = kRandomMinSlow;
  }
  // The lines past the size first: each overfilled a set of its own.
  std::vector<std::uint64_t> order;
  for (std::uint64_t x : pool) {
    if (x >= cache_lines) order.push_back(x);
  }
  for (std::uint64_t x : pool) {
    if (x < cache_lines) order.push_back(x);
  }
  for (std::size_t i = 0; i < order.size() && i < kDeviceWideTargets; ++i) {
    EvictionTarget t;
    t.line = order[i];
    t.pool_lines = chased_lines;
    for (std::uint64_t x : pool) {
      if (x != t.line) t.set.push_back(x);
    }
    s.targets.push_back(std::move(t));
  }
  // Index bits above the chase's (a cache under 2 MiB): one pool chase over [0, C) per bit, each
  // alone, with the passes the tests use (fewer when the loads would exceed the pool's budget).
  std::vector<std::uint64_t> pending = power_of_two_targets(g, chased_lines);
  for (std::uint64_t line : pending) {
    EvictionTarget t;
    t.line = line;
    s.targets.push_back(std::move(t));
  }
  const std::uint32_t test_passes = s.passes, test_min_slow = s.min_slow;
  if (!s.deterministic && (cache_lines + 1) * s.passes > kMaxPoolLoads) {
    s.passes = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(g.passes(), kMaxPoolLoads / (cache_lines + 1)));
    s.min_slow = kMinSlowToMiss;
  }
  if (!pending.empty()) chase_pools(g, s, pending, cache_lines);
  s.passes = test_passes;
  s.min_slow = test_min_slow;
  finish(g, s, loads, batches, critical);
  return s;
}

}  // namespace memtopo
