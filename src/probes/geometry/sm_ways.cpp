// Ways and sets of a cache of one SM (l1, tex, ro, constant_l1; paper 000, 3.2 step 3): the
// lines that miss in a chase over one line more than the cache holds are one set's ways + 1,
// their spacing gives the sets, and chases with m lines in every set verify every set.
#include <algorithm>
#include <bit>
#include <optional>

#include "probes/geometry/geometry_measurement.hpp"
#include "probes/geometry/hashed_index.hpp"

namespace memtopo {
namespace {

constexpr int kEdgeAdjustments = 4;   // moves of C by a line before the edge is given up
constexpr int kMaxSearchRounds = 16;  // rounds of the per-set search (doubling, bisection)
// The per-set chases put up to this many times a set's share of the cache into every set.
constexpr std::uint64_t kMaxLinesPerSetFactor = 4;

// The size search brackets the capacity between its largest fitting footprint and its first
// missing one, which for a cache of tens of MiB lie hundreds of lines apart: stepping one line
// at a time from the size would not reach the edge. One chase over the first missing footprint
// shows how many sets it overfills (the run length of its missing lines, see overflow_runs) and
// so the capacity. Without such a bracket, or without even runs (random replacement, hashed
// sets), the size stands and the edge steps by lines.
std::uint64_t capacity_lines_estimate(GeometryMeasurement& g, nlohmann::json& ev) {
  const std::uint64_t from_size = g.size() / g.line();
  const std::uint64_t miss_lines = g.first_miss_lines().value_or(0);
  if (miss_lines <= from_size + 2) return from_size;  // no bracket, or the edge steps cover it
  const auto trace = g.run_set_targeted({g.sequential(miss_lines * g.line(), g.line(), g.passes())},
                                        "overflow_runs");
  const auto missing = overflow_lines(g.counts(trace.front()), kMinSlowToMiss);
  const auto runs = overflow_runs(missing.lines, miss_lines);
  ev["capacity_from_runs"] = {
      {"chased_lines", miss_lines},
      {"missing_lines", missing.lines.size()},
      {"capacity_lines", runs ? nlohmann::json(runs->capacity_lines) : nlohmann::json(nullptr)}};
  return runs ? runs->capacity_lines : from_size;
}

// C lines that fit with C + 1 overflowing, and the lines that miss at C + 1: one set's.
struct CapacityEdge {
  std::uint64_t lines = 0;
  OverflowLines over;
  std::uint32_t passes = 0;  // timed passes of the chase that found `over`
  Trace over_trace;          // that chase
  nlohmann::json cross;      // how many lines missed at C + 1 and C + 2
};

// Chases C, C + 1 and C + 2 lines in one batch; moves C by a line (or by the runs of an
// overflow at C) until C fits and C + 1 overflows, at most kEdgeAdjustments times.
std::optional<CapacityEdge> find_capacity_edge(GeometryMeasurement& g, std::uint64_t lines,
                                               nlohmann::json& ev) {
  const std::uint32_t b = g.line();
  for (int attempt = 0; attempt < kEdgeAdjustments; ++attempt) {
    const auto traces = g.run_set_targeted(
        {g.sequential(lines * b, b, g.passes()), g.sequential((lines + 1) * b, b, g.passes()),
         g.sequential((lines + 2) * b, b, g.passes())},
        "overflow");
    const auto at0 = overflow_lines(g.counts(traces[0]), g.fit_min_slow(lines));
    auto over = overflow_lines(g.counts(traces[1]), kMinSlowToMiss);
    const auto at2 = overflow_lines(g.counts(traces[2]), kMinSlowToMiss);
    if (!at0.lines.empty()) {
      // The cache holds fewer lines than the size said: by the run length when the misses
      // show one (several sets overfull), else by one.
      const auto runs = overflow_runs(at0.lines, lines);
      lines = runs ? runs->capacity_lines : lines - 1;
    } else if (over.lines.empty()) {
      ++lines;
    } else {
      nlohmann::json cross = {{"missing_at_C_plus_1", over.lines.size()},
                              {"missing_at_C_plus_2", at2.lines.size()}};
      return CapacityEdge{lines, std::move(over), g.passes(), traces[1], std::move(cross)};
    }
    ev["edge_adjustments"] = attempt + 1;
  }
  return std::nullopt;
}

// Random-like replacement (not every missing line slow on every pass): the C + 1 chase again
// with many passes, a line needing several slow accesses.
void identify_set_lines_under_random_replacement(GeometryMeasurement& g, CapacityEdge& edge) {
  if (edge.over.deterministic()) return;
  edge.passes = kRandomPasses;
  const auto t = g.run_set_targeted(
      {g.sequential((edge.lines + 1) * g.line(), g.line(), kRandomPasses)}, "overflow_many");
  edge.over = overflow_lines(g.counts(t[0]), kRandomMinSlow);
  edge.over_trace = t[0];
}

// Every pass of the chase that found the set lines is a check: the set overflowed again.
ConfidenceFactor overflow_repeated(const GeometryMeasurement& g, const CapacityEdge& edge) {
  const auto repeated =
      passes_overflowing(corrected_cycles(edge.over_trace), edge.over_trace.indices, g.line(),
                         g.threshold(), edge.over.lines, edge.lines + 1);
  return agreement(repeated.agreeing, repeated.passes,
                   "passes of the C + 1 line chase on which the overfull set overflowed again");
}

enum class PerSetOutcome { verified, retry_isolated, incomplete };

struct PerSetVerdict {
  PerSetOutcome outcome = PerSetOutcome::incomplete;
  std::vector<std::uint64_t> ways;  // per set (0 where not bracketed)
  std::size_t verified_sets = 0;    // sets whose ways the chases bracketed
};

// Verifies every set with m lines in each (m = ways fits, ways + 1 overflows everywhere) and
// searches the sets that disagree (unequal sets).
PerSetVerdict verify_per_set(GeometryMeasurement& g, const OverflowGeometry& geo,
                             std::uint64_t lines, std::uint32_t passes, nlohmann::json& ev) {
  const std::uint64_t sets = geo.sets;
  const std::uint64_t max_m =
      std::min<std::uint64_t>(g.limits().max_footprint_bytes / (sets * g.line()),
                              kMaxLinesPerSetFactor * (lines / sets + 1));
  PerSetWaysSearch search(sets, std::max<std::uint64_t>(1, max_m));
  std::vector<std::uint64_t> todo = {geo.ways, geo.ways + 1};
  nlohmann::json rounds = nlohmann::json::array();
  for (int round = 0; round < kMaxSearchRounds && !todo.empty(); ++round) {
    std::vector<ChaseSpec> specs;
    for (auto m : todo) specs.push_back(g.sequential(m * sets * g.line(), g.line(), passes));
    const auto traces = g.run_set_targeted(specs, "per_set");
    for (std::size_t i = 0; i < todo.size(); ++i) {
      const auto o = overflowed_sets(g.counts(traces[i]), sets, passes);
      search.add(todo[i], o);
      rounds.push_back(
          {{"lines_per_set", todo[i]}, {"sets_overflowed", std::count(o.begin(), o.end(), true)}});
    }
    todo = search.next(std::max<std::uint32_t>(1, g.limits().concurrent_slots));
  }
  const auto per_set = search.ways();
  const bool all_alike = std::all_of(per_set.begin(), per_set.end(),
                                     [&](const auto& x) { return x == per_set.front(); });
  PerSetVerdict verdict;
  if ((search.contradictions() > 0 || !all_alike) && !std::has_single_bit(sets) &&
      !g.arrays_isolated()) {
    // Unequal (or contradictory) sets over a set count that is not a power of two: the chases
    // of one batch may have named different sets alike. Everything again, each chase alone.
    verdict.outcome = PerSetOutcome::retry_isolated;
    return verdict;
  }
  ev["arrays_isolated"] = g.arrays_isolated();
  ev["per_set_chases"] = std::move(rounds);
  ev["contradictions"] = search.contradictions();
  bool complete = search.contradictions() == 0;
  for (const auto& x : per_set) {
    if (!x) complete = false;
    if (x) ++verdict.verified_sets;
    verdict.ways.push_back(x.value_or(0));
  }
  verdict.outcome = complete ? PerSetOutcome::verified : PerSetOutcome::incomplete;
  return verdict;
}

// The overfull-set chases could not read the geometry (`why`): minimal eviction sets of several
// target lines by group testing instead, from pools over `capacity_lines`.
void ways_by_eviction_sets(GeometryMeasurement& g, std::uint64_t capacity_lines, nlohmann::json ev,
                           const std::string& why) {
  ev["overfull_set_note"] = why;
  EvictionSetSearch search = search_eviction_sets_sm(g, capacity_lines);
  const HashedIndex index = infer_hashed_index(g, search);
  write_ways_from_eviction_sets(g, search, index, std::move(ev));
}

}  // namespace

void measure_sm_ways(GeometryMeasurement& g) {
  g.prepare();
  auto ev = nlohmann::json::object();
  const std::uint64_t estimate = capacity_lines_estimate(g, ev);
  ev["edge_adjustments"] = 0;
  auto edge = find_capacity_edge(g, estimate, ev);
  ev.update(g.common_evidence());
  if (!edge) {
    ways_by_eviction_sets(g, estimate, std::move(ev),
                          "no footprint C fitting with C + one line overflowing near the "
                          "measured size");
    return;
  }
  identify_set_lines_under_random_replacement(g, *edge);
  const auto geo = geometry_from_overflow(edge->over.lines, edge->lines);
  ev["cache_lines"] = edge->lines;
  ev["overflow_lines"] = edge->over.lines;
  ev["overflow_deterministic"] = edge->over.deterministic();
  ev["overflow_passes"] = edge->passes;
  ev["cross_check"] = edge->cross;
  ev["evenly_spaced"] = geo.arithmetic;
  ev["period_lines"] = geo.period;
  if (!geo.found) {
    ways_by_eviction_sets(g, edge->lines, std::move(ev), geo.why);
    return;
  }
  nlohmann::json ways_value = geo.ways;
  std::optional<std::uint64_t> unequal_capacity;  // sum of the per-set ways x line
  Confidence confidence = {overflow_repeated(g, *edge)};
  std::string mapping = geo.arithmetic ? "modulo" : "not modulo (other address bits or a hash)";
  if (geo.arithmetic) {
    const PerSetVerdict per_set = verify_per_set(g, geo, edge->lines, edge->passes, ev);
    if (per_set.outcome == PerSetOutcome::retry_isolated) {
      g.isolate_arrays(true);
      measure_sm_ways(g);
      return;
    }
    const auto& w = per_set.ways;
    if (per_set.outcome == PerSetOutcome::incomplete) {
      ev["ways_per_set_partial"] = w;
      ev.update(g.common_evidence());
      g.write_inconclusive("ways", "the per-set chases did not bracket every set's ways", ev);
      return;
    }
    confidence *= agreement(per_set.verified_sets, geo.sets,
                            "sets verified with m lines in each (ways fit, ways + 1 overflow)");
    if (std::all_of(w.begin(), w.end(), [&](auto x) { return x == w.front(); })) {
      ways_value = w.front();
    } else {
      ways_value = w;
      mapping = "modulo, unequal sets";
      std::uint64_t total = 0;
      for (auto x : w) total += x;
      ev["capacity_from_ways_bytes"] = total * g.line();
      unequal_capacity = total * g.line();
    }
  } else {
    // The mapping is unknown here (see set_bits): no chase puts m lines into every set.
    confidence *= agreement(0, 0, "sets verified (the mapping is not modulo: none can be)");
  }
  ev["sets"] = geo.sets;
  ev["set_mapping"] = mapping;
  ev.update(g.common_evidence());
  Property p;
  p.name = "ways";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "sequential chase over C + b at stride b (C measured size, b line): the lines that "
      "miss are one set's ways + 1; their spacing gives the sets; m lines per set "
      "verify every set (paper 000, 3.2 step 3)";
  p.value = ways_value;
  p.evidence = std::move(ev);
  write_ways(g, std::move(p), confidence);
  if (unequal_capacity) refine_size_from_unequal_sets(g, *unequal_capacity, confidence);
}

}  // namespace memtopo
