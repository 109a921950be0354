// Sets and ways of a TLB level (paper 000, 4.2, Fig. 10-11): its ladder is chased at every
// chain length from the first that misses to the first on which every element misses, and the
// elements that miss on every pass are counted; analysis/set_overflows reads the sets off the
// increments. The ladder's stride is the level's page, so consecutive elements are consecutive
// pages and each new element is one more page in one set.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/staircase/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Chain lengths a scan chases at most: a level of about 400 sets or fewer (one length per set
// when they are equal) is read whole; more is reported as a lower bound. The H200's L2 TLB
// (2046 entries of 32 MiB) first missed at 1973 elements (words whose reference was off) and
// lost about 8 more elements per length from 2043 on: 256 lengths stopped 70 short of the end.
constexpr std::size_t kMaxSetScanChases = 512;
// Longer chains chased after the first on which every element missed, each a check that every
// element misses there too: a fully associative level, read off one chain, gets checks enough
// for its confidence (agreement of 9 of 9: 0.91).
constexpr std::size_t kScanConfirmations = 8;
// A scan that has not completed stops when, over this many lengths, its count rose by at most
// one per length while it holds at least kStalledShare of the chain: every set has overflowed but
// a few words are judged hits however long the chain (noise), and longer chains only confirm
// the ramp's end. On the H200 the L2 TLB's ramp ends at 2304 elements and the scan went on to
// 512 lengths past its first miss (2.3 s of the row's 4.4 s).
// (A sim's unequal sets of 68, 50 x 8 and 44 ways hold 88 % missing for 150 lengths before the
// 68-way set fills: the share must be above what one large set leaves out.)
constexpr std::size_t kStallLengths = 64;
constexpr double kStalledShare = 0.98;
// A scan that has not completed by this many times its first miss (and at least kStallLengths
// lengths) stops: sets that fill in turn, one page each, first overflow at sets x the fewest
// ways + 1 and all miss at sets x (the most ways + 1), so to go on past 4 times the first miss
// the largest set would need over 4 times the ways of the smallest (the sims' most unequal,
// 18 and 7 ways, complete at 2.6 times). The H200's L1 TLB (first miss at 15 pages of 16 MiB)
// rose by 0.72 a length for 512 lengths (0.9 s) and gave no reading.
constexpr std::uint64_t kMaxFillRatio = 4;

// Different ways an exact reading may list and still be taken as it is (see LevelSets::exact).
constexpr std::size_t kMaxDistinctWays = 3;

std::size_t distinct(std::vector<std::uint64_t> values) {
  std::sort(values.begin(), values.end());
  return static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

}  // namespace

bool LevelSets::exact() const {
  if (!sets.complete) return false;
  // Many different ways are believed only from counts without noise: every count explained.
  return distinct(sets.ways) <= kMaxDistinctWays || sets.consistent == sets.steps;
}

double LevelSets::all_missing_mean_cycles() const {
  const std::size_t first = sets.all_missing_elements - first_miss_elements;
  double sum = 0;
  for (std::size_t i = first; i < mean_cycles.size(); ++i) sum += mean_cycles[i];
  return sum / static_cast<double>(std::max<std::size_t>(1, mean_cycles.size() - first));
}

LevelSets scan_sets(Ladder& ladder, std::size_t k) {
  const RefinedStep& step = ladder.refined[k];
  const std::uint64_t stride = ladder.stride();
  LevelSets out;
  out.first_miss_elements = step.first_miss_bytes / stride;
  FitRule rule;
  rule.threshold_cycles = step.threshold_cycles;
  std::optional<std::size_t> complete_at;  // index into out.missing of the first all-miss
  for (std::uint64_t elements = out.first_miss_elements;; ++elements) {
    if (complete_at && out.missing.size() > *complete_at + kScanConfirmations) break;
    if (complete_at && elements > ladder.max_elements) break;  // confirmed as far as possible
    if (out.missing.size() >= kMaxSetScanChases) {
      out.stopped = "stopped after " + std::to_string(kMaxSetScanChases) + " chain lengths";
      break;
    }
    if (elements > ladder.max_elements) {
      out.stopped = "stopped at the longest chain the ladder allows (" +
                    std::to_string(ladder.max_elements) + " elements)";
      break;
    }
    const std::uint64_t footprint = elements * stride;
    const Measured m = ladder.sweep->measure(std::span(&footprint, 1), "sets").front();
    const FitVerdict verdict = judge_fit(m.cycles, m.indices, rule);
    out.missing.push_back(verdict.missing);
    out.mean_cycles.push_back(std::accumulate(m.cycles.begin(), m.cycles.end(), 0.0) /
                              static_cast<double>(std::max<std::size_t>(1, m.cycles.size())));
    if (!complete_at && verdict.missing >= elements) complete_at = out.missing.size() - 1;
    if (!complete_at && out.missing.size() >= kStallLengths &&
        elements >= kMaxFillRatio * out.first_miss_elements) {
      out.stopped = "stopped at " + std::to_string(elements) + " elements, " +
                    std::to_string(kMaxFillRatio) +
                    " times the first miss, short of every element missing: not sets that "
                    "fill in turn (those would have completed)";
      break;
    }
    if (!complete_at && out.missing.size() > kStallLengths) {
      const std::uint64_t now = out.missing.back();
      const std::uint64_t then = out.missing[out.missing.size() - 1 - kStallLengths];
      if (now <= then + kStallLengths &&
          static_cast<double>(now) >= kStalledShare * static_cast<double>(elements)) {
        out.stopped = "stopped at " + std::to_string(elements) +
                      " elements: the count rose by at most one per element over the last " +
                      std::to_string(kStallLengths) + " lengths (no set overflowed at once)";
        break;
      }
    }
  }
  out.sets = sets_from_overflows(out.first_miss_elements, out.missing);
  if (out.stopped.empty() && !out.sets.complete) out.stopped = "the counts never reached the chain";
  out.ramp = equal_sets_from_ramp(out.first_miss_elements, out.missing);
  out.evidence = {{"first_miss_elements", out.first_miss_elements},
                  {"missing_per_length", out.missing},
                  {"threshold_cycles", step.threshold_cycles},
                  {"sets_in_overflow_order", out.sets.ways},
                  {"complete", out.sets.complete},
                  {"all_missing_elements", out.sets.all_missing_elements},
                  {"steps_explained", out.sets.consistent},
                  {"steps", out.sets.steps}};
  if (!out.stopped.empty()) out.evidence["stopped"] = out.stopped;
  out.evidence["ramp"] = out.ramp.evidence();
  out.evidence["distinct_ways"] = distinct(out.sets.ways);
  out.evidence["reading"] = out.exact() ? "exact" : out.from_ramp() ? "ramp" : "none";
  return out;
}

}  // namespace memtopo::staircase
