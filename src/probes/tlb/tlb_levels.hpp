#pragma once
// The parts of the TLB row (tlb_reach.cpp runs them, docs/method.md "TLB levels" says why):
//   a ladder: a staircase over wide chains of one element per stride, every step refined
//     (tlb_ladder.cpp); one at the largest stride finds the levels, one at a level's page
//     measures it;
//   the page of a level: pairs of elements `s` apart, chased together and apart (tlb_page.cpp);
//   the sets and ways of a level: the miss count of every chain length from the first miss to
//     the first where every element misses (tlb_sets.cpp, analysis/set_overflows).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/set_overflows.hpp"
#include "analysis/staircase.hpp"
#include "model/topology.hpp"
#include "probes/core/probe.hpp"
#include "probes/core/staircase_probe.hpp"
#include "probes/core/staircase_sweep.hpp"

namespace memtopo::staircase {

// The least step confidence (staircase.hpp) that counts as a TLB level: a threshold that
// decides what a step is, not a confidence of any finding.
inline constexpr double kMinTlbStepConfidence = 0.5;
// The smallest page any MMU maps: the page test's smallest stride.
inline constexpr std::uint64_t kSmallestPageBytes = 4096;

// One staircase over chains of 2 .. max_elements elements, `stride` apart, every step refined.
struct Ladder {
  std::unique_ptr<Sweep> sweep;  // a Sweep holds references: a ladder is replaced whole
  Staircase staircase;
  std::vector<RefinedStep> refined;  // one per level, in order
  std::vector<std::size_t> step_of;  // level k is staircase.steps[step_of[k]]
  std::size_t rejected_steps = 0;    // steps not taken as levels: down, or within the noise
  std::uint64_t max_elements = 0;
  // How the staircase's footprints were chosen (adaptive_staircase in tlb_ladder.cpp): the
  // fine grid's size, the coarse spacing, every gap refined and why, the footprints measured.
  nlohmann::json grid;

  std::uint64_t stride() const { return sweep->stride(); }
  std::uint64_t longest_bytes() const { return max_elements * stride(); }
  // The plateaus either side of level k's step.
  const StaircaseLevel& before(std::size_t k) const { return staircase.levels[step_of[k]]; }
  const StaircaseLevel& after(std::size_t k) const { return staircase.levels[step_of[k] + 1]; }
  // Level k's miss penalty: the mean of the plateau after its step minus the one before it.
  double penalty(std::size_t k) const;
  // A chain on which every element misses level k and the next level still holds them: the
  // last footprint of the plateau after its step, in elements.
  std::uint64_t all_missing_elements(std::size_t k) const;
};

// The steps of `staircase` that are TLB levels, in order (indices into its steps): up, sure
// (confidence at least kMinTlbStepConfidence), and onto a plateau above every one before.
std::vector<std::size_t> steps_up(const Staircase& staircase);

// Climbs: the staircase over 2 .. max_elements elements `stride` apart on SM `sm`, each
// element at a seeded offset inside its stride (one per page once the stride is a page), on the
// row's grid measured adaptively (every other length, then the lengths inside gaps that rise
// beyond the noise, hold a step or a ramp, or thin a plateau: analysis/adaptive_grid.hpp). The
// levels are the steps that steps_up takes, in order, until the first whose section search finds
// no edge.
Ladder climb(ProbeContext& ctx, const StaircaseRow& row, std::uint64_t stride,
             std::uint64_t max_elements, std::uint32_t sm);

// What the page test found for one level.
struct PageTest {
  std::uint64_t bytes = 0;    // the smallest stride whose pairs missed apart (or the bound)
  Bound bound = Bound::none;  // lower: pairs shared an entry up to the largest stride tested;
                              // upper: they missed apart down to the smallest (4 KiB)
  std::size_t agreeing = 0;   // pairs at the bracketing strides that agreed with their verdict
  std::size_t pairs = 0;      // pairs judged at those strides
  std::uint64_t loads = 0;    // of the test's chases
  nlohmann::json evidence = nlohmann::json::array();  // one entry per stride tested
  // Non-empty: the test could not tell the page (its chain of elements overflowed the level for
  // too few pairs even at 4 KiB), and says why; `bytes` is then 0.
  std::string unknown;
  // The tests before this one that could not tell (a retry with the pairs elsewhere, a ladder at
  // a smaller page): each one's ladder, why, and its strides.
  nlohmann::json earlier = nlohmann::json::array();
  bool exact() const { return unknown.empty() && bound == Bound::none; }
};

// Level k's page, from the ladder that found it: the smallest power-of-two stride s (4 KiB to
// the ladder's stride) at which an element and its twin s further no longer share an entry.
// Chains up to `footprint_limit` bytes. `attempt` 0 places the pairs by the run's seed; a retry
// (attempt 1, ...) places them by another, still reproducible one.
PageTest find_page(ProbeContext& ctx, const StaircaseRow& row, const Ladder& ladder, std::size_t k,
                   std::uint64_t footprint_limit, std::uint64_t attempt = 0);

// What the scan of miss counts found for level k of a ladder at its page.
struct LevelSets {
  std::uint64_t first_miss_elements = 0;  // the shortest chain with a miss (refined step)
  std::uint64_t first_element = 0;        // the chains' placement: elements below it left out
  std::uint64_t aligned_for_ways = 0;     // AlignedScanStart::room_for_ways of that placement
  std::vector<std::uint64_t> lengths;     // the chain lengths scanned, from the first miss on
  std::vector<std::uint64_t> missing;     // elements missing on most passes, per length
  std::size_t consecutive = 0;            // counts at consecutive lengths before the scan stepped
  std::uint64_t chain_address = 0;        // device address of the array's word 0 (0: unknown)
  bool array_moved = false;               // a chase of the scan found its array elsewhere
  std::vector<double> mean_cycles;        // mean latency of each of those chains
  SetsFromOverflows sets;
  RampFit ramp;         // equal sets off the counts' ramp (used when `sets` is not: exact())
  std::string stopped;  // why the scan stopped before every element missed (empty if it did)
  // The reading the findings use: the exact one when it completed, unless it lists more than
  // kMaxDistinctWays different ways from counts some of which it could not explain (noise: on
  // the H200 noisy counts completed the exact reading with 17 different ways, 8 for 213 of 258
  // sets, the rest 2 to 32, 413 of 416 counts explained, where the ramp gives 256 x 8); else
  // the ramp when it was found. An exact reading of more than kMaxDistinctWays different ways
  // also gives way to a ramp that was found (on the H200, from aligned pages, every count was
  // explained and the exact reading listed 254 sets of 8 to 18 ways where the ramp, R^2
  // 0.99999, gave 256 x 8). A sim's unequal sets (9, 6 x 5, 5, 4: every count explained, no
  // ramp) keep their exact reading.
  bool exact() const;
  std::size_t distinct_ways() const;  // different ways the exact reading lists
  bool from_ramp() const { return !exact() && ramp.found; }
  bool read() const { return exact() || from_ramp(); }
  std::uint64_t entries() const { return exact() ? sets.entries : ramp.entries(); }
  nlohmann::json evidence;
  // The mean latency of the chains on which every element missed (complete scans only).
  double all_missing_mean_cycles() const;
};

// Where level k's scan of sets starts its chains (an element number) when the ladder's array
// starts at `chain_address` (0: unknown, a sim): analysis/set_overflows' aligned_start, with
// room for every element to miss in a level of `room_for_ways` ways or more (2, else 4, else 8:
// the first the array allows); room_for_ways 0 and element 0 when none fits.
struct AlignedScanStart {
  std::uint64_t first_element = 0;
  std::uint64_t room_for_ways = 0;
};
AlignedScanStart aligned_first_element(const Ladder& ladder, std::size_t k,
                                       std::uint64_t chain_address);

// The shortest chain length above `none` (one known to miss on none) at which `misses` (one chase)
// finds a miss, up to `longest`: lengths double away from `none` until one misses, then a
// bisection closes the bracket; nullopt when none misses up to `longest`. The scan of sets skips
// the ladder's lengths without misses with it (tlb_sets.cpp).
std::optional<std::uint64_t> first_length_missing(std::uint64_t none, std::uint64_t longest,
                                                  const std::function<bool(std::uint64_t)>& misses);

// The scan's first count decides its first set's ways, and one chase misjudged there reads a set
// that is not: an H200 L2 TLB scan bisected to 0 missing at 2049 elements and 26 at 2050, then
// rose by 9 per element, and read 25 + 253 x 8 ways at confidence 0.97 where five other scans
// read 256 x 8 (docs/results/nvidia-h200/2026-11-28_7d0c541). So the first length is counted
// kFirstCountChases times and its median taken, and while the length before it, counted as
// often, has a set overflow's worth of misses (median of at least 2: ways + 1 with one way), the
// scan starts there instead (at most kMaxFirstStepsBack lengths back). A lone misjudged word
// (a median of 1) does not move it. `count_missing` is one chase's count at a chain length.
struct FirstOverflow {
  std::uint64_t elements = 0;                       // the first chain length with misses
  std::uint64_t missing = 0;                        // its median count
  nlohmann::json checks = nlohmann::json::array();  // {elements, counts} per length checked
};
inline constexpr std::size_t kFirstCountChases = 3;
inline constexpr std::size_t kMaxFirstStepsBack = 16;
FirstOverflow confirm_first_overflow(
    std::uint64_t elements, std::uint64_t first_count,
    const std::function<std::uint64_t(std::uint64_t)>& count_missing);

// Chases level k's ladder at every chain length from its first miss until every element
// misses (at most kMaxSetScanChases chases, at most the ladder's longest chain), counting the
// elements that miss on most passes, and reads the sets off the counts. The chains start at an
// aligned page (aligned_first_element, from where its first chase finds the array), and once
// the counts show noise the scan steps over lengths (tlb_sets.cpp).
LevelSets scan_sets(Ladder& ladder, std::size_t k);

// Everything measured about one level, for its findings (tlb_findings.cpp).
struct MeasuredLevel {
  const Ladder* ladder = nullptr;  // the ladder its step, penalty and sets were measured on
  std::size_t step = 0;            // its step on that ladder
  PageTest page;
  std::optional<LevelSets> sets;  // scanned when its page is the ladder's stride
  std::string why_no_sets;        // otherwise, why not
};

// reach, entries, page, ways, sets and miss_penalty of a found level, as `element`'s findings.
void report_level(Topology& topology, const std::string& element, const MeasuredLevel& level);

// A ladder the row climbed: its stride and its longest chain, in elements.
struct ClimbedLadder {
  std::uint64_t stride = 0;
  std::uint64_t elements = 0;
};

// What no ladder showed: a level past the last one found. A level of page P and E entries steps
// on a ladder of n elements at stride s when E x max(1, P / s) < n; one that none of the
// `climbed` ladders showed has E x P >= n x min(P, s) on every one, which for a page of at
// least `smallest_page` is at least the largest n x min(smallest_page, s): its reach's lower
// bound, true whatever the level's page as long as it is not below `smallest_page` (the
// smallest page of the levels found; 4 KiB when none was). The note says so, and the
// evidence has the bound for any page (every ladder's n x 4 KiB).
struct UnseenLevel {
  std::vector<ClimbedLadder> climbed;
  std::uint64_t smallest_page = 0;
  std::string smallest_page_from;  // "tlb_l1.page", or why 4 KiB
  std::size_t rejected_steps = 0;  // steps of the first ladder not taken as levels
  std::string limit;               // what limited the longest chains
};
std::uint64_t unseen_reach_bound(const std::vector<ClimbedLadder>& climbed, std::uint64_t page);

// `element`'s reach as a lower bound (inconclusive, see UnseenLevel): the level is larger, or
// there is no such level.
void report_level_not_seen(Topology& topology, const std::string& element, const Ladder& first,
                           const UnseenLevel& unseen);

}  // namespace memtopo::staircase
