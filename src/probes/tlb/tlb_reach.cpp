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
#include "probes/tlb/dram_tlb_miss.hpp"
#include "probes/core/staircase_rows.hpp"
#include "probes/tlb/tlb_levels.hpp"

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
// A ladder at a level's page may be longer: one element per this many bytes of L2 (its lines, up
// to 256 B each, fill at most half of it). A level of 64 KiB pages and 8192 entries (512 MiB)
// needs 8193 elements, more than the first ladder's 4096: its page's ladder finds it.
constexpr std::uint64_t kL2BytesPerPageLadderElement = 512;
// The first ladder is climbed again at twice its stride, at most this many times, while the
// first level's page is at least twice that stride (the page test can only bound a page larger
// than the ladder's stride): a device of 32 MiB pages whose memory gave a 16 MiB stride.
constexpr int kMaxWidenings = 4;
// The strides of the first ladder: at least 2 MiB (the large page of NVIDIA GPUs: a smaller
// stride puts several elements into one large page, and the page test cannot reach it), at
// most 32 MiB; fewer elements where the device memory allows no more at 2 MiB.
constexpr std::uint64_t kSmallestLadderStride = std::uint64_t{2} << 20;
constexpr std::uint64_t kLargestLadderStride = std::uint64_t{32} << 20;
// The cold DRAM chase: this many loads, over at least this many times the last level's reach.
constexpr std::uint32_t kDramSamples = 4096;
constexpr std::uint64_t kDramReachMultiple = 4;
// Levels the row reports: tlb_l1 and tlb_l2 always, found or not, and the one after the last
// found (up to tlb_l3) as not seen.
constexpr std::size_t kAlwaysReportedLevels = 2;

// What the backend's limits allow.
struct TlbPlan {
  std::uint64_t footprint_limit = 0;  // bytes one chase may take (wide chains)
  std::uint64_t max_elements = 0;
  std::uint64_t page_ladder_elements = 0;  // the most a ladder at a level's page may chain
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
  void climb_first(const TlbPlan& p);
  PageTest page_on_first(const TlbPlan& p, std::size_t k);
  std::vector<MeasuredLevel> measure_levels(const TlbPlan& p);
  Ladder& ladder_at_page(const TlbPlan& p, std::uint64_t page);
  MeasuredLevel measure_level(Ladder& ladder, std::size_t k, const PageTest& page);
  MeasuredLevel level_at(const TlbPlan& p, Ladder& found_on, std::size_t k, const PageTest& page);
  void report_dram_with_tlb_misses(const TlbPlan& p, const std::vector<MeasuredLevel>& levels);

  ProbeContext& ctx_;
  const StaircaseRow& row_;
  Ladder first_;
  std::vector<PageTest> first_pages_;        // the page of every level first_ found
  std::vector<std::uint64_t> widened_from_;  // strides climb_first left for twice as wide
  std::map<std::uint64_t, Ladder> at_page_;  // ladders at a level's page, by stride
  std::vector<ClimbedLadder> climbed_;       // every ladder climbed, for unseen levels' bounds
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
  p.page_ladder_elements =
      std::max(p.max_elements, l2_api > 0 ? l2_api / kL2BytesPerPageLadderElement : 0);
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

// The pages a level may have, given its page test, between `stride` (a ladder's) and the first
// ladder's stride: the one it found, or every power of two its bound allows.
std::vector<std::uint64_t> possible_pages(const PageTest& page, std::uint64_t stride,
                                          std::uint64_t largest) {
  if (!page.unknown.empty()) return {};  // no page: no range, the ladder may pass it
  if (page.bound == Bound::none) return {page.bytes};
  std::vector<std::uint64_t> pages;
  for (std::uint64_t q = stride; q <= largest; q *= 2) {
    if ((page.bound == Bound::lower && q >= page.bytes) ||
        (page.bound == Bound::upper && q <= page.bytes)) {
      pages.push_back(q);
    }
  }
  return pages;
}

// The longest chain of the ladder at `stride`, a level's page below `first`'s stride: at most
// `elements`, and not ending where a level of another page that `first` found may be overflowing
// in part. A level found at E elements (first miss) and fully missed from A elements on `first`
// (stride s) steps, at a stride s' and a page P >= s', between E x P / s' and A x P / s'
// elements (a quarter below, for a gradual onset); one of a page below s' steps where it does on
// `first`. The ladder passes levels of its own page or a smaller one (every element misses them
// past their range: finding levels of its page past the first ladder's chain, a simulated
// device's 8192 entries of 64 KiB, is what it is for) and ends before a level of a larger page
// (its own ladder measures it). On the H200 the ladder at 16 MiB ends at 3068 elements, before
// the 32 MiB-page L2 TLB's range (from 2046 x 2).
std::uint64_t page_ladder_length(const Ladder& first, const std::vector<PageTest>& pages,
                                 std::uint64_t stride, std::uint64_t elements) {
  struct Range {
    std::uint64_t from = 0, to = 0;  // elements, inclusive
    bool larger_page = false;        // a page larger than the stride: the ladder stops before it
  };
  std::vector<Range> ranges;
  for (std::size_t j = 0; j < first.refined.size(); ++j) {
    const PageTest& page = pages.at(j);
    if (page.exact() && page.bytes == stride) continue;
    const std::uint64_t onset = first.refined[j].first_miss_bytes / first.stride();
    const std::uint64_t full = first.after(j).from_bytes / first.stride();
    for (const std::uint64_t q : possible_pages(page, stride, first.stride())) {
      const std::uint64_t per_entry = std::max<std::uint64_t>(1, q / stride);
      ranges.push_back({onset * per_entry * 3 / 4, full * per_entry, q > stride});
    }
  }
  std::uint64_t length = elements;
  for (bool moved = true; moved;) {
    moved = false;
    for (const Range& r : ranges) {
      const bool ends_inside = length >= r.from && (r.larger_page || length <= r.to);
      if (r.from > 0 && ends_inside) {
        length = r.from - 1;
        moved = true;
      }
    }
  }
  return length >= kMinTlbElements ? length : std::min(elements, kMinTlbElements);
}

// The ladder at `page` (the first one's stride when the page is not smaller), climbed once.
Ladder& TlbMeasurement::ladder_at_page(const TlbPlan& p, std::uint64_t page) {
  if (page >= first_.stride()) return first_;
  auto found = at_page_.find(page);
  if (found == at_page_.end()) {
    const std::uint64_t elements = page_ladder_length(
        first_, first_pages_, page, std::min(p.page_ladder_elements, p.footprint_limit / page));
    found = at_page_.emplace(page, climb(ctx_, row_, page, elements, p.sm)).first;
    climbed_.push_back({page, found->second.max_elements});
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
  if (!level.page.unknown.empty()) {
    level.why_no_sets = "the page is not known (" + level.page.unknown + ")";
  } else if (level.page.bound != Bound::none) {
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
  if (page.exact() && page.bytes < found_on.stride()) {
    Ladder& at_page = ladder_at_page(p, page.bytes);
    if (at_page.refined.size() > k) return measure_level(at_page, k, page);
  }
  return measure_level(found_on, k, page);
}

namespace {
// A page test that could not tell, for the evidence of the one that replaced it.
nlohmann::json attempt_evidence(const PageTest& page, std::uint64_t ladder_stride) {
  return {{"ladder_stride_bytes", ladder_stride},
          {"unknown", page.unknown},
          {"strides", page.evidence},
          {"loads", page.loads}};
}
}  // namespace

// Level k's page on the first ladder, tested once more on other places of its pairs when the
// first test cannot tell. A level whose page stays unknown leaves the ladder at a smaller page free
// to pass its range and the level to be bounded there: on an H200 (4168af6, 1 run in 6) the L2
// TLB's test at 4 KiB could not tell, the ladder at 16 MiB found the level again, and its page
// was "at least 32 MiB", its entries, sets and ways unknown, where the other runs read 2048 entries
// of 32 MiB in 256 sets of 8 ways.
PageTest TlbMeasurement::page_on_first(const TlbPlan& p, std::size_t k) {
  PageTest page = find_page(ctx_, row_, first_, k, p.footprint_limit);
  if (page.unknown.empty()) return page;
  ctx_.progress("tlb: the page test could not tell (" + page.unknown +
                "); testing again with the pairs elsewhere");
  PageTest again = find_page(ctx_, row_, first_, k, p.footprint_limit, 1);
  again.earlier.push_back(attempt_evidence(page, first_.stride()));
  again.loads += page.loads;
  return again;
}

// The first ladder at the stride the plan chose, and the page of every level it found. While
// the first level's page is at least twice the stride (the page test bounds it: its twins shared
// an entry at the ladder's own stride), the ladder is climbed again at twice the stride, as far
// as the memory allows (a level seen at E elements of stride s with a page P >= 2s has E x 2s / P
// entries or fewer, which the wider ladder holds: the first one fitted the memory).
void TlbMeasurement::climb_first(const TlbPlan& p) {
  std::uint64_t stride = p.stride;
  for (int widenings = 0;; ++widenings) {
    const std::uint64_t elements = std::min(p.max_elements, p.footprint_limit / stride);
    first_ = climb(ctx_, row_, stride, elements, p.sm);
    climbed_.push_back({stride, first_.max_elements});
    first_pages_.clear();
    for (std::size_t k = 0; k < first_.refined.size(); ++k) {
      first_pages_.push_back(page_on_first(p, k));
    }
    const bool page_past_stride = !first_pages_.empty() &&
                                  first_pages_.front().bound == Bound::lower &&
                                  first_pages_.front().bytes >= 2 * stride;
    if (!page_past_stride || widenings == kMaxWidenings ||
        p.footprint_limit / (2 * stride) < kMinTlbElements) {
      return;
    }
    ctx_.progress("tlb: the first level's page is at least " +
                  format_bytes(static_cast<double>(first_pages_.front().bytes)) +
                  "; climbing again at twice the stride");
    widened_from_.push_back(stride);
    stride *= 2;
  }
}

std::vector<MeasuredLevel> TlbMeasurement::measure_levels(const TlbPlan& p) {
  // The first ladder's elements lie at random pages of their stride, so a set-associative level
  // overflows gradually there, and may not show as a step; at its page (consecutive elements,
  // consecutive pages) it steps at its first full set. So the levels are those of the ladder at
  // the first level's page, then the first ladder's beyond them (larger pages, or reaches past
  // that ladder's longest chain). Every level the first ladder found has its page from there
  // (its stride is at least every page it can tell); a level only the ladder at a page found
  // (more entries than the first ladder's elements) is tested there.
  std::vector<MeasuredLevel> levels;
  if (first_.refined.empty()) return levels;
  const PageTest& first_page = first_pages_.front();
  Ladder& ladder = first_page.exact() && first_page.bytes < first_.stride()
                       ? ladder_at_page(p, first_page.bytes)
                       : first_;
  const std::size_t count =
      std::min(row_.elements.size(), std::max(ladder.refined.size(), first_.refined.size()));
  for (std::size_t k = 0; k < count; ++k) {
    const bool on_first = k < first_.refined.size();
    Ladder* found_on = k < ladder.refined.size() ? &ladder : &first_;
    // The first ladder's test, unless it could not tell the page and the ladder at a page shows
    // the level (consecutive pages: a sharp overflow for its pairs too).
    const bool test_again = !on_first || (!first_pages_[k].unknown.empty() && found_on != &first_);
    PageTest page = test_again ? find_page(ctx_, row_, *found_on, k, p.footprint_limit)
                               : first_pages_[k];
    // The first ladder's test that could not tell stays in the evidence.
    if (test_again && on_first) {
      const PageTest& first = first_pages_[k];
      page.earlier = first.earlier;
      page.earlier.push_back(attempt_evidence(first, first_.stride()));
    }
    // A level whose page is the first ladder's stride is scanned there (consecutive pages).
    if (on_first && page.exact() && page.bytes == first_.stride()) found_on = &first_;
    levels.push_back(level_at(p, *found_on, k, page));
  }
  return levels;
}

// Which levels the DRAM chase missed: every level found, when each one's page is known (the chase
// has one element per page of the largest, over more pages than the last holds); a level past
// them was not seen and may hold these pages, as the method says. A level whose page is not known
// leaves the chase's elements sharing its pages in part: the value is then a lower bound.
void describe_levels_missed(Property& p, const std::vector<MeasuredLevel>& levels,
                            const std::vector<std::string>& elements) {
  nlohmann::json missed = nlohmann::json::array();
  std::string unknown_pages;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    missed.push_back(elements[k]);
    if (!levels[k].page.exact()) unknown_pages += (unknown_pages.empty() ? "" : ", ") + elements[k];
  }
  p.evidence["levels_missed"] = missed;
  p.method += "; a miss at every TLB level found (a level past the longest chain, not seen, may "
              "hold these pages)";
  if (!unknown_pages.empty() && !p.inconclusive) {
    p.inconclusive = true;
    p.bound = Bound::lower;
    p.confidence.reset();
    p.note = "lower bound: the page of " + unknown_pages +
             " is not known, so the chase's elements may share its pages and hit it in part";
    p.evidence["bound"] = to_string(Bound::lower);
  }
}

// One element per page of the levels found (the largest exact page; the first ladder's stride
// without one), as many as overflow the last level kDramReachMultiple times over, all timed: a
// level of 32768 entries of 64 KiB is missed only by a chase over more than 32768 pages, which a
// stride of 8 MiB does not fit in 24 GiB, nor 4096 timed loads visit.
void TlbMeasurement::report_dram_with_tlb_misses(const TlbPlan& p,
                                                 const std::vector<MeasuredLevel>& levels) {
  std::uint64_t stride = 0;
  std::uint64_t last_pages = 0;  // pages on which every element misses the last level
  for (const MeasuredLevel& level : levels) {
    if (level.page.exact()) stride = std::max(stride, level.page.bytes);
  }
  if (stride == 0) stride = first_.stride();
  if (!levels.empty()) {
    const MeasuredLevel& last = levels.back();
    const std::uint64_t s = last.ladder->stride();
    last_pages = last.ladder->all_missing_elements(last.step) * s /
                 std::max(s, std::min(last.page.unknown.empty() ? last.page.bytes : s,
                                      first_.stride()));
  }
  const std::uint64_t elements =
      std::min(p.footprint_limit / stride,
               std::max<std::uint64_t>(kDramSamples, kDramReachMultiple * last_pages));
  const std::uint64_t timed = std::min<std::uint64_t>(
      {elements, std::max<std::uint64_t>(kDramSamples, last_pages),
       ctx_.backend.limits().max_timed_loads});
  // Cold: L2 flushed, no warm pass, every element loaded once, a new line (a DRAM access) and
  // a page of its own, over several times the last level's reach where the memory allows.
  Layout layout{Layout::one_per_page, static_cast<std::uint32_t>(stride), std::nullopt, 0};
  layout.wide = true;
  Sweep sweep(ctx_, row_, layout);
  const ChaseSpec cold = sweep.chase(elements * stride)
                             .warm_passes(0)
                             .flush_device_caches()
                             .keeping_arrays()
                             .timed_loads(static_cast<std::uint32_t>(timed))
                             .spec();
  ctx_.progress("dram.latency_tlb_miss: cold chases over " +
                format_bytes(static_cast<double>(cold.footprint_bytes)));
  // Twice (dram_tlb_miss.hpp says why): the first in a state the row does not control, the
  // second timed. Every page the second visits was last visited by the first, in the same order,
  // more pages before: a level holding fewer of them than that misses it, under LRU.
  const auto conditioning = ctx_.run(std::span(&cold, 1), "dram.latency_tlb_miss");
  // The row's last chase keeps its array too: dram.latency_patterns chases as far next, and
  // any other kind of experiment has the backend free it first (ChaseSpec::keep_arrays).
  const auto traces = ctx_.run(std::span(&cold, 1), "dram.latency_tlb_miss");
  Property latency = dram_latency_tlb_miss(traces.front(), conditioning.front(), cold,
                                           elements, !levels.empty());
  describe_levels_missed(latency, levels, row_.elements);
  element_for(ctx_.topology, "dram").set(std::move(latency));
}

void TlbMeasurement::run() {
  const TlbPlan p = plan();
  climb_first(p);
  const std::vector<MeasuredLevel> levels = measure_levels(p);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    report_level(ctx_.topology, row_.elements[k], levels[k]);
  }
  // The level after the last one found (and tlb_l1 and tlb_l2 always): not seen, with the reach
  // it must have if it exists.
  UnseenLevel unseen{climbed_, kSmallestPageBytes, "no level found: the smallest page tested",
                     first_.rejected_steps, p.limit};
  for (const MeasuredLevel& level : levels) {
    if (level.page.exact() && (unseen.smallest_page == kSmallestPageBytes ||
                                            level.page.bytes < unseen.smallest_page)) {
      unseen.smallest_page = level.page.bytes;
      unseen.smallest_page_from = "the smallest page of the levels found";
    }
  }
  for (std::size_t k = levels.size();
       k < row_.elements.size() && k < std::max(kAlwaysReportedLevels, levels.size() + 1); ++k) {
    report_level_not_seen(ctx_.topology, row_.elements[k], first_, unseen);
  }
  report_dram_with_tlb_misses(p, levels);
}

}  // namespace

void run_tlb_reach(ProbeContext& ctx, const StaircaseRow& row) {
  TlbMeasurement(ctx, row).run();
}

}  // namespace memtopo::staircase
