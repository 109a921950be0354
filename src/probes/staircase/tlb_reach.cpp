// The TLB row: chains of one element per page-or-larger stride, from a few elements to
// thousands; the step from level k to k + 1 is TLB level k running out of entries. Also the page
// size (tlb_l1.page) and a DRAM latency with a TLB miss at every level (dram.latency_tlb_miss).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/staircase/rows.hpp"
#include "probes/staircase/step_findings.hpp"
#include "probes/staircase/sweep.hpp"

namespace memtopo::staircase {
namespace {

// A chain of a few to thousands of elements, one per page.
constexpr std::uint64_t kMaxTlbElements = 4096;
constexpr std::uint64_t kMinTlbElements = 8;
// The least step confidence (staircase.hpp) that counts as a TLB level: a threshold that
// decides what a step is, not a confidence of any finding.
constexpr double kMinTlbStepConfidence = 0.5;
// The chain keeps to one element per KiB of L2, so that its lines hold a small share of any
// set (any line size up to 1 KiB) and the TLB steps show over L2 hits.
constexpr std::uint64_t kL2BytesPerTlbElement = 1024;
constexpr std::uint64_t kSmallestPageBytes = 4096;  // the smallest page any MMU maps
// The cold DRAM chase: this many loads, over at least this many times the last level's reach.
constexpr std::uint32_t kDramSamples = 4096;
constexpr std::uint64_t kDramReachMultiple = 4;

// What the backend's limits allow.
struct TlbPlan {
  std::uint64_t footprint_limit = 0;
  std::uint64_t max_elements = 0;
  // The largest power of two that still fits kMaxTlbElements into the footprint limit, so that
  // the chain gets past as many pages as it can; a page larger than the stride only lowers the
  // page-size resolution (reach = elements x min(stride, page) either way).
  std::uint64_t sweep_stride = 0;
  std::uint32_t sm = 0;  // one SM for every chase: which L2 partition is near depends on it
};

struct PageSize {
  std::uint64_t bytes = 0;   // page size, or the stride when only a lower bound is known
  bool lower_bound = false;  // the page is at least `bytes`
  nlohmann::json evidence;
};

// One staircase over chains of 2 .. max_elements elements, `stride` apart, every step refined.
struct Ladder {
  std::unique_ptr<Sweep> sweep;  // a Sweep holds references: a ladder is replaced whole
  Staircase staircase;
  std::vector<RefinedStep> refined;
  std::size_t rejected_steps = 0;  // steps past the last level: down, or within the noise
};

class TlbMeasurement {
 public:
  TlbMeasurement(ProbeContext& ctx, const StaircaseRow& row) : ctx_(ctx), row_(row) {}
  void run();

 private:
  TlbPlan plan() const;
  Ladder climb(std::uint64_t stride, std::uint64_t max_elements, std::uint32_t sm);
  PageSize detect_page(const Sweep& sweep, const Staircase& s, const RefinedStep& first);
  bool page_test_misses(const Sweep& sweep, std::uint64_t stride, std::uint64_t half,
                        double penalty, nlohmann::json& evidence);
  void report_levels(const Ladder& ladder, const PageSize& page, std::uint64_t stride,
                     std::uint64_t max_elements);
  void report_page(const PageSize& page, bool levels_found);
  void report_dram_with_tlb_misses(std::uint64_t stride, std::uint64_t max_elements,
                                   std::uint64_t last_reach_elements, bool levels_found);

  ProbeContext& ctx_;
  const StaircaseRow& row_;
};

TlbPlan TlbMeasurement::plan() const {
  const BackendLimits limits = ctx_.backend.limits();
  const std::uint64_t l2_api = ctx_.backend.facts().l2_bytes;
  TlbPlan plan;
  plan.footprint_limit = std::min(limits.max_footprint_bytes, kMaxIndexedBytes);
  plan.max_elements =
      std::min<std::uint64_t>(kMaxTlbElements, limits.max_timed_loads / kTimedPasses);
  if (l2_api > 0) plan.max_elements = std::min(plan.max_elements, l2_api / kL2BytesPerTlbElement);
  plan.sweep_stride =
      floor_power_of_two(std::max<std::uint64_t>(1, plan.footprint_limit / kMaxTlbElements));
  if (plan.max_elements < kMinTlbElements || plan.sweep_stride < kSmallestPageBytes) {
    throw ProbeSkipped("the backend's limits leave no room for a chain of one element per page");
  }
  plan.sm = limits.sm_ids.empty() ? 0 : limits.sm_ids.front();
  return plan;
}

Ladder TlbMeasurement::climb(std::uint64_t stride, std::uint64_t max_elements, std::uint32_t sm) {
  Ladder ladder;
  ladder.sweep = std::make_unique<Sweep>(
      ctx_, row_, Layout{Layout::one_per_page, static_cast<std::uint32_t>(stride), sm, 0});
  Sweep& sweep = *ladder.sweep;
  // Reference: the longest chain, where every TLB level that can overflow does for every
  // element alike; what stays different between elements is their own L2 answer.
  const std::uint64_t longest = max_elements * stride;
  sweep.set_reference(per_word_medians(sweep.measure(std::span(&longest, 1), "reference")));
  ladder.staircase = sweep.coarse(footprint_grid(2 * stride, longest, row_.grid_ratio, stride));
  // A TLB level is a step up that the staircase is sure of. The levels come in order, so the
  // first step that is not (a step down, or one within the L2's noise: on an H100 the 2 MiB
  // chain up to 8 GiB showed +10, -7.6 and +8.6 cycles at confidences 0.44, 0.25 and 0.05)
  // ends the list.
  for (std::size_t k = 0; k < ladder.staircase.steps.size(); ++k) {
    const StaircaseStep& step = ladder.staircase.steps[k];
    if (step.jump <= 0 || step.confidence < kMinTlbStepConfidence) {
      ladder.rejected_steps = ladder.staircase.steps.size() - k;
      break;
    }
    ladder.refined.push_back(sweep.refine(ladder.staircase, k));
  }
  return ladder;
}

// One stride of the page test: 2 `half` elements `stride` apart, each judged against its own
// latency from chasing each half alone (half elements, half pages at most: no miss), so that
// only the TLB's share is judged. Appends the verdict to `evidence`.
bool TlbMeasurement::page_test_misses(const Sweep& sweep, std::uint64_t stride, std::uint64_t half,
                                      double penalty, nlohmann::json& evidence) {
  const auto s32 = static_cast<std::uint32_t>(stride);
  const std::uint64_t halves[] = {half * stride, 2 * half * stride};
  Sweep lower(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, 0});
  Sweep upper(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, half});
  std::vector<Measured> reference_chases = lower.measure(std::span(halves, 1), "page");
  reference_chases.push_back(upper.measure(std::span(halves + 1, 1), "page").front());
  WordReference reference = per_word_medians(reference_chases);
  std::vector<double> levels;
  for (const auto& [word, cycles] : reference) levels.push_back(cycles);
  const double base = median(levels);
  Sweep both(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, 0});
  both.set_reference(std::move(reference));
  const Measured m = both.measure(std::span(halves + 1, 1), "page").front();
  FitRule rule;
  rule.threshold_cycles = base + 0.5 * penalty;  // midway between a hit and a hit plus a miss
  const FitVerdict v = judge_fit(m.cycles, m.indices, rule);
  // A TLB that overflows misses on the same elements in every pass (the chain is a cycle
  // over 2 E1 pages): judge on elements slow in every pass. Slow single accesses are L2
  // noise here: on an H100, 70 of 990 accesses at a 1 MiB stride crossed the threshold with no
  // element slow in every pass, and every stride down to 4 KiB looked like a miss.
  const bool misses = v.missing > v.allowed;
  nlohmann::json verdict = verdict_evidence(v, halves[1]);
  verdict["stride_bytes"] = stride;
  verdict["threshold_cycles"] = rule.threshold_cycles;
  verdict["misses"] = misses;
  evidence.push_back(std::move(verdict));
  return misses;
}

PageSize TlbMeasurement::detect_page(const Sweep& sweep, const Staircase& s,
                                     const RefinedStep& first) {
  // 2 E1 elements (E1 = the first level's entries, counted in strides) at strides below the
  // sweep's: while the stride is at least a page they touch 2 E1 pages and miss; at half a page
  // and below they touch at most E1 and hit. The page is the smallest stride that misses.
  PageSize page{sweep.stride(), true, nlohmann::json::array()};
  const std::uint64_t half = first.edge_bytes / sweep.stride();
  const double penalty = s.levels[1].mean - s.levels[0].mean;
  for (std::uint64_t stride = sweep.stride() / 2; stride >= kSmallestPageBytes; stride /= 2) {
    if (!page_test_misses(sweep, stride, half, penalty, page.evidence)) {
      page.lower_bound = stride * 2 == sweep.stride();
      return page;
    }
    page.bytes = stride;
    page.lower_bound = false;
  }
  return page;  // misses down to the smallest page: the page is at most that
}

// miss_penalty of TLB level k + 1: the mean of the level after step k minus the level before.
Property miss_penalty(const Staircase& s, const RefinedStep& step, std::size_t k) {
  Property penalty;
  penalty.name = "miss_penalty";
  penalty.unit = "cycles";
  const StaircaseLevel& before = s.levels[k];
  const StaircaseLevel& after = s.levels[k + 1];
  // Means, not medians: a miss adds the same cycles to near and far L2 hits alike, which
  // shifts the mean by exactly that, while the median of two modes can jump between them.
  penalty.value = after.mean - before.mean;
  std::vector<double> shifts;
  for (std::size_t i = after.first; i <= after.last; ++i) shifts.push_back(s.mean[i] - before.mean);
  penalty.spread = summarize(shifts);
  penalty.method = "mean latency of TLB level " + std::to_string(k + 1) +
                   "'s plateau minus the level below it, from the reach staircase";
  penalty.evidence = {{"mean_before_cycles", before.mean}, {"mean_after_cycles", after.mean}};
  set_confidence(penalty, {step_factor(step.step)});
  return penalty;
}

void TlbMeasurement::report_levels(const Ladder& ladder, const PageSize& page, std::uint64_t stride,
                                   std::uint64_t max_elements) {
  const std::uint64_t unit = std::min<std::uint64_t>(page.bytes, stride);
  const std::string method =
      "pointer chase via cg, alone, one element per " + format_bytes(static_cast<double>(stride)) +
      " stride at a seeded offset, random cycle, 1 warm + 2 timed passes, 2 to " +
      std::to_string(max_elements) +
      " elements (chain in L2); staircase (geometric reduction, PELT, KS), steps refined to one "
      "element; reach = elements x min(stride, page)";
  const nlohmann::json evidence = staircase_evidence(ladder.staircase, *ladder.sweep);
  for (std::size_t k = 0; k < row_.elements.size(); ++k) {
    Element& tlb = element_for(ctx_.topology, row_.elements[k]);
    Property reach;
    reach.name = "reach";
    reach.unit = "bytes";
    reach.method = method;
    if (k < ladder.refined.size()) {
      const RefinedStep& step = ladder.refined[k];
      const std::uint64_t entries = step.edge_bytes / stride;
      reach.value = entries * unit;
      reach.evidence = refined_evidence(step);
      reach.evidence["elements"] = entries;
      reach.evidence["page_bytes"] = page.bytes;
      reach.evidence["page_is_lower_bound"] = page.lower_bound;
      reach.evidence["staircase"] = evidence;
      set_confidence(reach, refined_step_confidence(step));
      tlb.set(miss_penalty(ladder.staircase, step, k));
    } else {
      reach.value = max_elements * unit;
      reach.inconclusive = true;
      reach.bound = Bound::lower;
      reach.note =
          (ladder.rejected_steps > 0
               ? std::to_string(ladder.rejected_steps) +
                     " step(s) down or within the noise (confidence < " +
                     format_number(kMinTlbStepConfidence, 2) + ") were not taken as levels; "
               : std::string()) +
          "no step for this level up to " + std::to_string(max_elements) + " elements (" +
          format_bytes(static_cast<double>(max_elements * unit)) +
          " of pages): the reach is larger, or there is no such level";
      reach.evidence = {
          {"bound", "lower"}, {"lower_bound_bytes", max_elements * unit}, {"staircase", evidence}};
    }
    tlb.set(std::move(reach));
  }
}

void TlbMeasurement::report_page(const PageSize& page, bool levels_found) {
  Property p;
  p.name = "page";
  p.unit = "bytes";
  p.value = levels_found ? nlohmann::json(page.bytes) : nlohmann::json(nullptr);
  p.inconclusive = !levels_found || page.lower_bound;
  if (levels_found && page.lower_bound) p.bound = Bound::lower;
  p.note = !levels_found      ? "no TLB step to detect it with"
           : page.lower_bound ? "lower bound: the sweep stride; the page is at least this"
                              : "";
  p.method =
      "twice the first TLB level's entries chased at halving strides: the smallest stride that "
      "still misses is the page";
  p.evidence = {{"strides", page.evidence}};
  element_for(ctx_.topology, row_.elements.front()).set(std::move(p));
}

// dram.latency_tlb_miss from one cold trace: its p50, confidence the share of loads within
// kDescribedBand of it; inconclusive (no confidence) when no TLB level was found below the
// footprint, since then nothing says these loads missed the TLB.
Property dram_latency_tlb_miss(const Trace& trace, const ChaseSpec& spec, std::uint64_t elements,
                               bool levels_found) {
  const auto corrected = corrected_cycles(trace);
  const Spread spread = summarize(corrected);
  Property p;
  p.name = "latency_tlb_miss";
  p.unit = "cycles";
  p.value = spread.p50;
  p.spread = spread;
  p.raw = summarize(raw_cycles(trace));
  if (trace.clock_khz > 0) p.seconds_value = spread.p50 / (trace.clock_khz * 1e3);
  p.method = "cold pointer chase via cg after flushing L2, no warm pass, one element per " +
             format_bytes(static_cast<double>(spec.stride_bytes)) +
             " stride (at least a page) in random order over " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ": every load a new page and a new line; p50, timing overhead subtracted";
  p.evidence = {{"footprint_bytes", spec.footprint_bytes},
                {"stride_bytes", spec.stride_bytes},
                {"elements", elements},
                {"samples", corrected.size()},
                {"overhead_cycles", trace.overhead_cycles},
                {"clock_khz", trace.clock_khz},
                {"compare", "dram.latency is page-local (TLB warm)"}};
  if (!levels_found) {
    p.inconclusive = true;
    p.note = "no TLB level was found up to " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ", so these loads may have hit the TLB: a DRAM latency, not one with TLB misses";
    return p;
  }
  set_confidence(p, {share_within(corrected, spread.p50, kDescribedBand, "cold loads")});
  return p;
}

void TlbMeasurement::report_dram_with_tlb_misses(std::uint64_t stride, std::uint64_t max_elements,
                                                 std::uint64_t last_reach_elements,
                                                 bool levels_found) {
  // Cold: L2 flushed, no warm pass, every element loaded once: each load touches a new page
  // (compulsory TLB misses at every level) and a new line (a DRAM access).
  const std::uint64_t elements =
      std::min(max_elements,
               std::max<std::uint64_t>(kDramSamples, kDramReachMultiple * last_reach_elements));
  Sweep sweep(ctx_, row_,
              {Layout::one_per_page, static_cast<std::uint32_t>(stride), std::nullopt, 0});
  const std::vector<ChaseSpec> batch = {
      sweep.chase(elements * stride)
          .warm_passes(0)
          .flush_device_caches()
          .timed_loads(static_cast<std::uint32_t>(std::min<std::uint64_t>(
              {elements, kDramSamples, ctx_.backend.limits().max_timed_loads})))};
  ctx_.progress("dram.latency_tlb_miss: cold chase over " +
                format_bytes(static_cast<double>(batch.front().footprint_bytes)));
  const auto traces = ctx_.run(batch, "dram.latency_tlb_miss");
  element_for(ctx_.topology, "dram")
      .set(dram_latency_tlb_miss(traces.front(), batch.front(), elements, levels_found));
}

void TlbMeasurement::run() {
  const TlbPlan p = plan();
  std::uint64_t stride = p.sweep_stride;
  Ladder ladder = climb(stride, p.max_elements, p.sm);
  PageSize page{stride, true, nullptr};
  if (!ladder.refined.empty()) {
    page = detect_page(*ladder.sweep, ladder.staircase, ladder.refined.front());
    // A stride of several pages puts every element into the same few sets of a set-associative
    // TLB (pages map to sets modulo their count): climb again with one element per page.
    if (!page.lower_bound && page.bytes < stride) {
      stride = page.bytes;
      ladder = climb(stride, std::min(p.max_elements, p.footprint_limit / stride), p.sm);
    }
  }
  const bool levels_found = !ladder.refined.empty();
  report_levels(ladder, page, stride, p.max_elements);
  report_page(page, levels_found);
  const std::uint64_t last_reach = levels_found ? ladder.refined.back().edge_bytes / stride : 0;
  report_dram_with_tlb_misses(p.sweep_stride, p.footprint_limit / p.sweep_stride, last_reach,
                              levels_found);
}

}  // namespace

void run_tlb_reach(ProbeContext& ctx, const StaircaseRow& row) {
  TlbMeasurement(ctx, row).run();
}

}  // namespace memtopo::staircase
