// Ways and sets of a cache every SM shares (the L2 row). It is tens of MiB, and each of its
// chases runs alone: the overflow and per-set chases of the SM caches (C, C + b, C + 2b, then m
// lines in every set) would cost several times its size staircase. One chase over C + k lines
// instead (k >= kMinRunLines, the size search's first missing footprint when that is further)
// overfills k sets under LRU or FIFO with modulo sets; its missing lines form W + 1 runs of k
// lines spaced by the set count, which gives the capacity, ways, sets and one full set's lines
// at once (overflow_runs), and the S - k sets it did not overfill held their W lines. Sampled
// sets, chased with W and W + 1 lines each, check that the rest agree. Scattered misses (random
// replacement, hashed sets) or sampled sets that disagree hand over to minimal eviction sets
// (hashed_index.hpp), whose pool is the runs chase's missing lines: small chases, not the
// per-line method's many passes over the whole cache.
#include <algorithm>

#include "probes/geometry/geometry_measurement.hpp"
#include "probes/geometry/hashed_index.hpp"

namespace memtopo {
namespace {

// The runs chase reaches this many lines past the size at least, so that the overfull sets'
// runs show even when the size search's edge is exact.
constexpr std::uint64_t kMinRunLines = 8;
// Sets checked with W and W + 1 lines each (every set when fewer): the runs chase verifies only
// the k overfull sets, and a full per-set search would chase the whole cache twice more.
constexpr std::uint64_t kSampledSets = 256;
// Missing lines listed in the evidence when they form no runs.
constexpr std::size_t kListedMissingLines = 64;

// The note of an inconclusive runs chase.
std::string no_runs_note(const OverflowLines& missing, std::uint64_t chased,
                         std::uint64_t past_size, std::size_t slow_on_some_pass,
                         std::uint32_t passes) {
  if (!missing.lines.empty()) {
    return "the lines that missed on every pass of a chase past the measured size do not "
           "form W + 1 evenly spaced runs of one length (not LRU or FIFO with modulo sets); "
           "the per-line method would need many passes over the whole cache";
  }
  return "no line missed on all " + std::to_string(passes) + " passes of a chase " +
         std::to_string(past_size) + " lines past the measured size (" +
         std::to_string(slow_on_some_pass) + " of " + std::to_string(chased) +
         " lines missed on some pass): an overfull LRU or FIFO set would miss on every pass, "
         "so the replacement is neither, or the size is no hard edge";
}

// The one chase past the size and what it showed.
struct PastTheSize {
  std::uint64_t chased = 0;
  OverflowLines missing;  // slow on every pass
  std::size_t slow_on_some_pass = 0;
  std::optional<OverflowRuns> runs;
  std::string note;  // without runs: why
};

PastTheSize chase_past_the_size(GeometryMeasurement& g, nlohmann::json& ev) {
  const std::uint64_t size_lines = g.size() / g.line();
  PastTheSize out;
  out.chased = std::max(size_lines + kMinRunLines, g.first_miss_lines().value_or(0));
  const auto trace =
      g.run({g.sequential(out.chased * g.line(), g.line(), g.passes())}, "overflow_runs");
  const LineSlowCounts per_line = g.counts(trace.front());
  out.missing = overflow_lines(per_line, g.passes());
  const std::size_t slow_on_some_pass = overflow_lines(per_line, 1).lines.size();
  out.slow_on_some_pass = slow_on_some_pass;
  out.runs = overflow_runs(out.missing.lines, out.chased);
  ev["chased_lines"] = out.chased;
  ev["missing_lines"] = out.missing.lines.size();
  ev["lines_slow_on_some_pass"] = slow_on_some_pass;
  if (!out.runs) {
    const std::size_t shown = std::min(out.missing.lines.size(), kListedMissingLines);
    ev["first_missing_lines"] =
        std::vector<std::uint64_t>(out.missing.lines.begin(), out.missing.lines.begin() + shown);
    out.note = no_runs_note(out.missing, out.chased, out.chased - size_lines, slow_on_some_pass,
                            g.passes());
    return out;
  }
  ev["run_length"] = out.runs->run_length;
  ev["runs"] = out.runs->starts.size();
  ev["cache_lines"] = out.runs->capacity_lines;
  ev["capacity_bytes"] = out.runs->capacity_lines * g.line();
  ev["overflow_lines"] = out.runs->starts;
  ev["overflow_deterministic"] = out.missing.deterministic();
  ev["overflow_passes"] = g.passes();
  return out;
}

// The runs did not give the geometry (`why`): minimal eviction sets from the runs chase's pool.
void ways_by_eviction_sets(GeometryMeasurement& g, const PastTheSize& past, nlohmann::json ev,
                           const std::string& why) {
  ev["overfull_set_note"] = why;
  EvictionSetSearch search = search_eviction_sets_device_wide(g, g.size() / g.line(), past.chased,
                                                              past.missing, past.slow_on_some_pass);
  const HashedIndex index = infer_hashed_index(g, search);
  write_ways_from_eviction_sets(g, search, index, std::move(ev));
}

// How many of the sampled sets held W lines and overflowed with W + 1.
struct SampledSets {
  std::size_t sampled = 0;
  std::size_t fit_with_ways = 0;
  std::size_t overflowed_with_ways_plus_one = 0;
  std::size_t agreeing = 0;  // both
  bool all_agree() const { return agreeing == sampled; }
};

// Sampled sets, evenly spread: W lines each must fit, W + 1 must overflow every one of them.
SampledSets check_sampled_sets(GeometryMeasurement& g, std::uint64_t sets, std::uint64_t ways) {
  std::vector<std::uint64_t> sampled;
  const std::uint64_t step = std::max<std::uint64_t>(1, sets / kSampledSets);
  for (std::uint64_t set = 0; set < sets && sampled.size() < kSampledSets; set += step)
    sampled.push_back(set);
  std::vector<ChaseSpec> specs;
  for (const std::uint64_t m : {ways, ways + 1}) {
    std::vector<std::uint32_t> words;
    for (const auto set : sampled)
      for (std::uint64_t r = 0; r < m; ++r) words.push_back(g.word_of_line(set + r * sets));
    const auto visits = static_cast<std::uint32_t>(words.size());
    specs.push_back(g.explicit_chase(std::move(words), 1, visits * g.passes()));
  }
  const auto checks = g.run(specs, "sampled_sets");
  // A set overflows when its lines collect more slow accesses than outliers explain: two
  // outliers on two lines of one set (one in 10^4 accesses, thousands of accesses) are no
  // overflow, an overfull set's every line slow on every pass is.
  const auto at_w =
      overflowed_sets(g.counts(checks[0]), sets, g.set_min_slow(ways * g.passes(), sampled.size()));
  const auto at_w1 = overflowed_sets(g.counts(checks[1]), sets,
                                     g.set_min_slow((ways + 1) * g.passes(), sampled.size()));
  SampledSets out;
  out.sampled = sampled.size();
  for (const auto set : sampled) {
    if (!at_w[set]) ++out.fit_with_ways;
    if (at_w1[set]) ++out.overflowed_with_ways_plus_one;
    if (!at_w[set] && at_w1[set]) ++out.agreeing;
  }
  return out;
}

}  // namespace

void measure_device_wide_ways(GeometryMeasurement& g) {
  g.prepare();
  auto ev = nlohmann::json::object();
  const PastTheSize past = chase_past_the_size(g, ev);
  if (!past.runs) {
    ways_by_eviction_sets(g, past, std::move(ev), past.note);
    return;
  }
  const auto& runs = past.runs;
  const std::uint64_t sets = runs->period;
  const std::uint64_t ways = runs->starts.size() - 1;
  const SampledSets sampled = check_sampled_sets(g, sets, ways);
  ev["sampled_sets"] = {
      {"sets", sampled.sampled},
      {"fit_with_ways_lines", sampled.fit_with_ways},
      {"overflowed_with_ways_plus_one_lines", sampled.overflowed_with_ways_plus_one}};
  if (!sampled.all_agree()) {
    ways_by_eviction_sets(g, past, std::move(ev),
                          "the sampled sets disagree with the runs' " + std::to_string(ways) +
                              " ways (unequal sets, or a mapping that is not modulo)");
    return;
  }
  ev["sets"] = sets;
  ev["set_mapping"] = "modulo";
  ev.update(g.common_evidence());
  Property p;
  p.name = "ways";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "one sequential chase over C + k lines at stride b (C measured size, b line) "
      "overfills k sets: its missing lines form ways + 1 runs spaced by the sets; " +
      std::to_string(sampled.sampled) +
      " sampled sets verified with ways and ways + 1 lines (paper 000, 3.2 step 3)";
  p.value = ways;
  p.evidence = std::move(ev);
  // The runs gave the value; every sampled set is a check of it (conclusive only when all
  // agree, so the agreement grows with the sets sampled).
  write_ways(g, std::move(p),
             {agreement(sampled.agreeing, sampled.sampled,
                        "sampled sets that fit with ways lines and overflowed with ways + 1")});
}

}  // namespace memtopo
