// The TLB row: every TLB level's reach, entries, page, ways, sets and miss penalty, and the DRAM
// latency with a TLB miss at every level (dram.latency_tlb_miss, dram_tlb_miss.hpp).
// docs/method.md, "TLB levels":
//   1. a ladder at the largest stride (up to 32 MiB, within the free device memory) finds the
//      levels: a staircase over wide chains of one element per stride, held in L2;
//   2. the first level's page (tlb_page.cpp), and a ladder at that page, where consecutive
//      elements are consecutive pages: every level with that page steps there at its first
//      overflow; levels beyond that ladder's reach stay the first ladder's;
//   3. per level its page, and at its page the scan of its sets (tlb_sets.cpp): entries, ways
//      (a per-set list for unequal sets), sets; reach = entries x page.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/staircase/dram_tlb_miss.hpp"
#include "probes/staircase/rows.hpp"
#include "probes/staircase/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// A chain of a few to thousands of elements, one per stride.
constexpr std::uint64_t kMaxTlbElements = 4096;
constexpr std::uint64_t kMinTlbElements = 8;
// The first ladder's stride fills the memory with 1 / kStrideElementsShare of its elements.
constexpr std::uint64_t kStrideElementsShare = 2;
// The chain keeps to one element per KiB of L2, so that its lines hold a small share of any
// set (any line size up to 1 KiB) and the TLB steps show over L2 hits.
constexpr std::uint64_t kL2BytesPerTlbElement = 1024;
// The strides of the first ladder: at least 2 MiB (the large page of NVIDIA GPUs: a smaller
// stride puts several elements into one large page, and the page test cannot reach it), at
// most 32 MiB; fewer elements where the device memory allows no more at 2 MiB.
constexpr std::uint64_t kSmallestLadderStride = std::uint64_t{2} << 20;
constexpr std::uint64_t kLargestLadderStride = std::uint64_t{32} << 20;
// The cold DRAM chase: this many loads, over at least this many times the last level's reach.
constexpr std::uint32_t kDramSamples = 4096;
constexpr std::uint64_t kDramReachMultiple = 4;
// Levels the row reports at most (tlb_l1 .. tlb_l3); the first two always, found or not.
constexpr std::size_t kAlwaysReportedLevels = 2;

// What the backend's limits allow.
struct TlbPlan {
  std::uint64_t footprint_limit = 0;  // bytes one chase may take (wide chains)
  std::uint64_t max_elements = 0;
  // The largest power of two that fits max_elements into the footprint limit, in [64 KiB,
  // 32 MiB]: the first ladder reaches as far as the device allows.
  std::uint64_t stride = 0;
  std::uint32_t sm = 0;  // one SM for every chase: which L2 partition is near depends on it
  std::string limit;     // what limits the longest chain, for notes
};

class TlbMeasurement {
 public:
  TlbMeasurement(ProbeContext& ctx, const StaircaseRow& row) : ctx_(ctx), row_(row) {}
  void run();

 private:
  TlbPlan plan() const;
  std::vector<MeasuredLevel> measure_levels(const TlbPlan& p);
  Ladder& ladder_at_page(const TlbPlan& p, std::uint64_t page);
  MeasuredLevel measure_level(Ladder& ladder, std::size_t k, const PageTest& page);
  MeasuredLevel level_at(const TlbPlan& p, Ladder& found_on, std::size_t k, const PageTest& page);
  void report_dram_with_tlb_misses(const TlbPlan& p, std::uint64_t last_all_missing,
                                   bool levels_found);

  ProbeContext& ctx_;
  const StaircaseRow& row_;
  Ladder first_;
  std::map<std::uint64_t, Ladder> at_page_;  // ladders at a level's page, by stride
};

TlbPlan TlbMeasurement::plan() const {
  const BackendLimits limits = ctx_.backend.limits();
  const std::uint64_t l2_api = ctx_.backend.facts().l2_bytes;
  if (limits.max_wide_footprint_bytes == 0) {
    throw ProbeSkipped("the backend runs no wide chains (footprints past 16 GiB)");
  }
  TlbPlan p;
  p.footprint_limit = limits.max_wide_footprint_bytes;
  p.max_elements = std::min<std::uint64_t>(kMaxTlbElements, limits.max_timed_loads / kTimedPasses);
  if (l2_api > 0) p.max_elements = std::min(p.max_elements, l2_api / kL2BytesPerTlbElement);
  // The stride: the largest power of two at which half the elements fill the memory. The
  // footprint the ladder reaches is the memory either way; a larger stride puts fewer elements
  // into one entry of a large-page level. On the H100 (77 GiB free) the stride for all 4096
  // elements was 16 MiB, the L1 TLB's page, and 4096 of them ended exactly at the L2 TLB's
  // capacity (2048 entries of 32 MiB): neither level came out clean. At 32 MiB (2455
  // elements) the ladder is the H200's.
  p.stride = std::clamp(floor_power_of_two(std::max<std::uint64_t>(
                            1, p.footprint_limit / std::max<std::uint64_t>(
                                                       1, p.max_elements / kStrideElementsShare))),
                        kSmallestLadderStride, kLargestLadderStride);
  // The stride from all the free memory; the chases within the share of it a plan may take.
  p.footprint_limit = plannable_bytes(p.footprint_limit);
  const bool memory_limited = p.max_elements * p.stride >= p.footprint_limit;
  p.max_elements = std::min(p.max_elements, p.footprint_limit / p.stride);
  if (p.max_elements < kMinTlbElements) {
    throw ProbeSkipped("the backend's limits leave no room for a chain of one element per " +
                       format_bytes(static_cast<double>(p.stride)));
  }
  p.limit = memory_limited
                ? "the longest chain is limited by the device memory one chase may take (" +
                      format_bytes(static_cast<double>(p.footprint_limit)) + " of " +
                      format_bytes(static_cast<double>(ctx_.backend.facts().global_memory_bytes)) +
                      ": what is free, less a reserve)"
                : "the longest chain is limited by its elements (" +
                      std::to_string(p.max_elements) + ": one per KiB of the L2, at most " +
                      std::to_string(kMaxTlbElements) + ") at the largest stride (" +
                      format_bytes(static_cast<double>(p.stride)) + ")";
  p.sm = limits.sm_ids.empty() ? 0 : limits.sm_ids.front();
  return p;
}

// The longest chain of a ladder at `stride` (below `first`'s stride): at most `elements`, and
// settled: not where a level `first` found may be overflowing only in part. That chain is the
// ladder's reference (climb), whose per-word medians must differ by each word's own L2 answer
// alone; on the H200 the ladder at 16 MiB ended at 4096 elements, right at the 32 MiB-page L2
// TLB's first misses (2046 x 32 MiB): the words that missed it there were corrected down by
// 100 cycles in every shorter chain, and the L1 TLB's step drowned in the noise.
// A level found at E elements (first miss) and fully missed from A elements on `first` (stride
// s) steps, at a stride s' and a page P between s' and s, between E x P / s' and A x P / s'
// elements; its page is not known yet, so the chain avoids that range for every such P (and a
// quarter below it, for a gradual onset), shortening to just below a range it falls into.
std::uint64_t settled_length(const Ladder& first, std::uint64_t stride, std::uint64_t elements) {
  struct Range {
    std::uint64_t from = 0, to = 0;  // elements, inclusive
  };
  std::vector<Range> ranges;
  for (std::size_t j = 0; j < first.refined.size(); ++j) {
    const std::uint64_t onset = first.refined[j].first_miss_bytes / first.stride();
    const std::uint64_t full = first.after(j).from_bytes / first.stride();
    for (std::uint64_t page = stride; page <= first.stride(); page *= 2) {
      const std::uint64_t per_entry = page / stride;
      ranges.push_back({onset * per_entry * 3 / 4, full * per_entry});
    }
  }
  std::uint64_t length = elements;
  for (bool moved = true; moved;) {
    moved = false;
    for (const Range& r : ranges) {
      if (length >= r.from && length <= r.to && r.from > 0) {
        length = r.from - 1;
        moved = true;
      }
    }
  }
  return length >= kMinTlbElements ? length : elements;
}

// The ladder at `page` (the first one's stride when the page is not smaller), climbed once.
Ladder& TlbMeasurement::ladder_at_page(const TlbPlan& p, std::uint64_t page) {
  if (page >= first_.stride()) return first_;
  auto found = at_page_.find(page);
  if (found == at_page_.end()) {
    const std::uint64_t elements =
        settled_length(first_, page, std::min(p.max_elements, p.footprint_limit / page));
    found = at_page_.emplace(page, climb(ctx_, row_, page, elements, p.sm)).first;
  }
  return found->second;
}

// Level k of `ladder` with its page, and its sets when the page is the
// ladder's stride (consecutive elements, consecutive pages).
MeasuredLevel TlbMeasurement::measure_level(Ladder& ladder, std::size_t k, const PageTest& page) {
  MeasuredLevel level;
  level.ladder = &ladder;
  level.step = k;
  level.page = page;
  if (level.page.bound != Bound::none) {
    level.why_no_sets = "the page is only bounded (" +
                        format_bytes(static_cast<double>(level.page.bytes)) +
                        "): entries and ways need a ladder whose stride is the page";
  } else if (level.page.bytes != ladder.stride()) {
    level.why_no_sets = "the level's page (" + format_bytes(static_cast<double>(level.page.bytes)) +
                        ") differs from the stride of the ladder that found it (" +
                        format_bytes(static_cast<double>(ladder.stride())) + ")";
  } else {
    level.sets = scan_sets(ladder, k);
    // A ramp that rose unevenly is scanned once more before the level is left without sets.
    if (!level.sets->read() && level.sets->ramp.uneven) {
      ctx_.progress("tlb: the scan of sets rose unevenly; scanning again");
      LevelSets again = scan_sets(ladder, k);
      again.evidence["earlier_scan"] = level.sets->evidence;
      again.evidence["scans"] = 2;
      level.sets = std::move(again);
    }
  }
  return level;
}

// Level k found on `found_on` with `page`: measured on the ladder at its page when that is a
// smaller stride and shows as many levels (at a stride of at least their pages, levels step in
// the order of their entries), else where it was found.
MeasuredLevel TlbMeasurement::level_at(const TlbPlan& p, Ladder& found_on, std::size_t k,
                                       const PageTest& page) {
  if (page.bound == Bound::none && page.bytes < found_on.stride()) {
    Ladder& at_page = ladder_at_page(p, page.bytes);
    if (at_page.refined.size() > k) return measure_level(at_page, k, page);
  }
  return measure_level(found_on, k, page);
}

std::vector<MeasuredLevel> TlbMeasurement::measure_levels(const TlbPlan& p) {
  // The first ladder's elements lie at random pages of their stride, so a set-associative level
  // overflows gradually there, and may not show as a step; at its page (consecutive elements,
  // consecutive pages) it steps at its first full set. So the levels are those of the ladder at
  // the first level's page, then the first ladder's beyond them (larger pages, or reaches past
  // that ladder's longest chain). A level whose page exceeds its ladder's stride is tested on
  // the first ladder, whose stride is at least every page (up to 32 MiB).
  std::vector<MeasuredLevel> levels;
  if (first_.refined.empty()) return levels;
  const PageTest first_page = find_page(ctx_, row_, first_, 0, p.footprint_limit);
  Ladder& ladder = first_page.bound == Bound::none && first_page.bytes < first_.stride()
                       ? ladder_at_page(p, first_page.bytes)
                       : first_;
  const std::size_t count =
      std::min(row_.elements.size(), std::max(ladder.refined.size(), first_.refined.size()));
  for (std::size_t k = 0; k < count; ++k) {
    Ladder* found_on = k < ladder.refined.size() ? &ladder : &first_;
    PageTest page = k == 0 ? first_page : find_page(ctx_, row_, *found_on, k, p.footprint_limit);
    if (page.bound == Bound::lower && found_on != &first_ && k < first_.refined.size()) {
      found_on = &first_;
      page = find_page(ctx_, row_, first_, k, p.footprint_limit);
    }
    levels.push_back(level_at(p, *found_on, k, page));
  }
  return levels;
}

void TlbMeasurement::report_dram_with_tlb_misses(const TlbPlan& p, std::uint64_t last_all_missing,
                                                 bool levels_found) {
  // Cold: L2 flushed, no warm pass, every element loaded once, a new line (a DRAM access) and
  // a page of its own, over several times the last level's reach where the memory allows.
  const std::uint64_t elements =
      std::min(p.footprint_limit / p.stride,
               std::max<std::uint64_t>(kDramSamples, kDramReachMultiple * last_all_missing));
  Layout layout{Layout::one_per_page, static_cast<std::uint32_t>(p.stride), std::nullopt, 0};
  layout.wide = true;
  Sweep sweep(ctx_, row_, layout);
  const ChaseSpec cold = sweep.chase(elements * p.stride)
                             .warm_passes(0)
                             .flush_device_caches()
                             .keeping_arrays()
                             .timed_loads(static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                 {elements, kDramSamples, ctx_.backend.limits().max_timed_loads})))
                             .spec();
  ctx_.progress("dram.latency_tlb_miss: cold chases over " +
                format_bytes(static_cast<double>(cold.footprint_bytes)));
  // Twice (dram_tlb_miss.hpp says why): the first in a state the row does not control, the
  // second timed. Every page the second visits was last visited by the first, in the same order,
  // more pages before: a level holding fewer of them than that misses it, under LRU.
  const auto conditioning = ctx_.run(std::span(&cold, 1), "dram.latency_tlb_miss");
  ChaseSpec timed = cold;
  timed.keep_arrays = false;  // the row's last chase: the backend may free its arrays
  const auto traces = ctx_.run(std::span(&timed, 1), "dram.latency_tlb_miss");
  element_for(ctx_.topology, "dram")
      .set(dram_latency_tlb_miss(traces.front(), conditioning.front(), timed, elements,
                                 levels_found));
}

void TlbMeasurement::run() {
  const TlbPlan p = plan();
  first_ = climb(ctx_, row_, p.stride, p.max_elements, p.sm);
  const std::vector<MeasuredLevel> levels = measure_levels(p);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    report_level(ctx_.topology, row_.elements[k], levels[k]);
  }
  for (std::size_t k = levels.size(); k < kAlwaysReportedLevels; ++k) {
    report_level_not_found(ctx_.topology, row_.elements[k], first_, p.limit);
  }
  std::uint64_t last_all_missing = 0;
  if (!levels.empty()) {
    const MeasuredLevel& last = levels.back();
    last_all_missing =
        last.ladder->all_missing_elements(last.step) * last.ladder->stride() / p.stride;
  }
  report_dram_with_tlb_misses(p, last_all_missing, !levels.empty());
}

}  // namespace

void run_tlb_reach(ProbeContext& ctx, const StaircaseRow& row) {
  TlbMeasurement(ctx, row).run();
}

}  // namespace memtopo::staircase
