// The L2 row: one ld.global.cg staircase from beyond L1 to beyond the API L2 size. Its last step
// is l2.size, refined on several placements of the chain in memory; a step before it lies inside
// L2 (l2.segment_size).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.hpp"

#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/staircase_rows.hpp"
#include "probes/core/step_findings.hpp"
#include "probes/core/staircase_sweep.hpp"

namespace memtopo::staircase {
namespace {

constexpr std::uint64_t kL2SweepStartBytes = 1ull << 20;          // without a measured L1 size
// Without a measured L1 the sweep starts at most this fraction of the API L2 size, so that the
// L2 level has footprints before its step however small the L2 (a 1 MiB L2 on a GPU whose L1
// does not cache global loads left 1 to 3 MiB: too short a sweep, and no l2.size at all).
constexpr std::uint64_t kApiL2StartDivisor = 8;
constexpr std::uint64_t kL2SweepEndFactor = 3;                    // up to 3x the API L2 size
constexpr std::uint64_t kL1Multiple = 4;                          // start beyond the L1
constexpr std::uint64_t kFallbackL2SweepEndBytes = 256ull << 20;  // no API L2 size
// Footprints of at least this many times the API L2 size are chased cold (Layout::
// cold_from_bytes): their warm passes were two thirds of an H200's coarse sweep (0.8 of 1.2 s),
// and at 120 and 180 MiB the warmed loads took 661 and 660 cycles on average, both misses.
constexpr std::uint64_t kColdFromFactor = 2;
// The sweep needs at least this ratio between its last and first footprint.
constexpr std::uint64_t kMinL2SweepSpan = 4;
// The last step is refined on this many placements of the chain: at the array's start, then
// each one further on by the first coarse footprint past the step, rounded up to a large page.
// An H200's one-SM edge moved between 24.7 and 27.8 MiB from process to process, with the miss
// share rising over several MiB (docs/results/nvidia-h200/2026-11-24_94d1e47): where misses
// start depends on the physical pages a hashed L2 maps the chain to.
constexpr std::size_t kL2Placements = 3;
constexpr std::uint64_t kPlacementAlignBytes = 2ull << 20;

// The footprints and stride of the L2 sweep.
struct L2Plan {
  std::uint32_t stride = 0;  // the measured L1 line, else kSmallestLineBytes
  bool line_measured = false;
  std::uint64_t start = 0;      // beyond the measured L1
  std::uint64_t end = 0;        // beyond the API L2 size, within the backend's limits
  std::uint64_t api_l2 = 0;     // 0 when the API gives none
  std::uint64_t cold_from = 0;  // footprints chased without a warm pass, 0: none
};

L2Plan plan_l2_sweep(ProbeContext& ctx) {
  L2Plan plan;
  plan.api_l2 = ctx.backend.facts().l2_bytes;
  const auto l1 = finding_count(ctx.topology, "l1", "size");
  const auto line = finding_count(ctx.topology, "l1", "line");
  // The measured L1 line, else no line or sector is smaller: each element then takes its own
  // line (or shares one), and the footprint at the step is the capacity.
  plan.line_measured = line.has_value();
  plan.stride = line ? static_cast<std::uint32_t>(*line) : kSmallestLineBytes;
  plan.start = l1 ? kL1Multiple * *l1
                  : std::min(kL2SweepStartBytes,
                             plan.api_l2 > 0 ? plan.api_l2 / kApiL2StartDivisor : kL2SweepStartBytes);
  const std::uint64_t end =
      plan.api_l2 > 0 ? kL2SweepEndFactor * plan.api_l2 : kFallbackL2SweepEndBytes;
  plan.end = std::min({end, ctx.backend.limits().max_footprint_bytes, kMaxIndexedBytes});
  plan.cold_from = plan.api_l2 * kColdFromFactor;
  if (plan.end < kMinL2SweepSpan * plan.start) {
    throw ProbeSkipped("the backend's footprint limit leaves no L2 sweep");
  }
  return plan;
}

std::string l2_method(const L2Plan& plan) {
  return "fine-grained pointer chase via cg, alone, " + format_bytes(plan.stride) + " stride (" +
         (plan.line_measured ? "the measured l1.line"
                             : "no measured line: " + format_bytes(kSmallestLineBytes)) +
         "), sequential, 1 warm pass + up to " + std::to_string(kMaxTimedLoads) +
         " timed loads, footprints " + format_bytes(static_cast<double>(plan.start)) + " to " +
         format_bytes(static_cast<double>(plan.end)) +
         (plan.cold_from > 0 && plan.cold_from <= plan.end
              ? " (from " + format_bytes(static_cast<double>(plan.cold_from)) +
                    ", twice the API L2, no warm pass: the timed loads miss either way)"
              : std::string()) +
         "; staircase (geometric reduction, PELT, KS), last step refined by a section search";
}

// The note comparing the measured size with the API's: agreement within the search's
// resolution, or what a difference means.
std::string api_comparison(const RefinedStep& last, const L2Plan& plan) {
  const double api = static_cast<double>(plan.api_l2);
  const double resolution = static_cast<double>(last.first_miss_bytes - last.edge_bytes);
  if (std::abs(static_cast<double>(last.edge_bytes) - api) <= resolution + plan.stride) {
    return "agrees with the API L2 size (" + format_bytes(api) + ") within the search resolution";
  }
  return "API says " + format_bytes(api) +
         "; measured/API = " + format_number(static_cast<double>(last.edge_bytes) / api, 3) +
         ": below 1, part of the L2 is not available to these loads (reserved, persisting or a "
         "partition holding only its own share); above 1, the line is smaller than the stride";
}

// The last step refined on other placements (Sweep::refine_placed), each after the one before.
struct Placements {
  std::vector<std::uint64_t> offsets;  // offsets[0] = 0: the sweep's own chains
  std::vector<RefinedStep> refined;
};

Placements refine_on_placements(ProbeContext& ctx, const StaircaseRow& row, Sweep& sweep,
                                const Staircase& s, std::size_t k) {
  Placements out{{0}, {sweep.refine(s, k)}};
  const std::uint64_t gap = round_down(
      s.footprints[s.levels[k + 1].first] + kPlacementAlignBytes - 1, kPlacementAlignBytes);
  const std::uint64_t array_limit =
      std::min(ctx.backend.limits().max_footprint_bytes, kMaxIndexedBytes);
  for (std::size_t p = 1; p < kL2Placements; ++p) {
    const std::uint64_t offset = p * gap;
    if (offset + s.footprints[s.levels[k + 1].last] > array_limit) break;
    ctx.progress(row.id + ": placement " + std::to_string(p + 1) + " of " +
                 std::to_string(kL2Placements));
    out.offsets.push_back(offset);
    out.refined.push_back(sweep.refine_placed(s, k, out.refined.front(), offset));
  }
  return out;
}

nlohmann::json placements_evidence(const Placements& placements) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < placements.refined.size(); ++i) {
    nlohmann::json entry = refined_evidence(placements.refined[i]);
    entry["offset_bytes"] = placements.offsets[i];
    out.push_back(std::move(entry));
  }
  return out;
}

// l2.size: the median edge of the placements that found one (the lower one of an even count:
// always a measured edge), spread over all of them. As sure as that placement's refined step,
// times how well the placements' edges agree (capacity_agreement of the smallest and largest)
// and the share of placements that found an edge at all.
Property l2_size(const Placements& placements, const L2Plan& plan, const nlohmann::json& evidence,
                 const std::string& method) {
  // The first placement always has an edge (refine falls back to the level's start), so
  // `found` is never empty.
  std::vector<const RefinedStep*> found;
  for (const RefinedStep& r : placements.refined) {
    if (r.edge_bytes > 0) found.push_back(&r);
  }
  std::sort(found.begin(), found.end(), [](const RefinedStep* a, const RefinedStep* b) {
    return a->edge_bytes < b->edge_bytes;
  });
  const RefinedStep& chosen = *found[(found.size() - 1) / 2];
  Property size = size_from_step(chosen, method);
  std::vector<double> edges;
  for (const RefinedStep* r : found) edges.push_back(static_cast<double>(r->edge_bytes));
  size.spread = summarize(edges);
  Confidence confidence = refined_step_confidence(chosen);
  confidence *= capacity_agreement(
      edges.front(), edges.back(),
      "the smallest and largest edge of " + std::to_string(edges.size()) + " placements");
  if (found.size() < placements.refined.size()) {
    confidence *= agreement(found.size(), placements.refined.size(),
                            "placements whose edge lies between the levels around the step");
  }
  set_confidence(size, confidence);
  size.evidence["placements"] = placements_evidence(placements);
  size.evidence["staircase"] = evidence;
  size.evidence["api_l2_bytes"] = plan.api_l2;
  if (plan.api_l2 > 0) {
    size.evidence["measured_over_api"] =
        static_cast<double>(chosen.edge_bytes) / static_cast<double>(plan.api_l2);
    size.note = api_comparison(chosen, plan);
  }
  if (edges.back() > edges.front()) {
    size.note +=
        "; the edge moves with the chain's physical pages: " + format_bytes(edges.front()) +
        " to " + format_bytes(edges.back()) + " on " + std::to_string(edges.size()) + " placements";
  }
  return size;
}

// A step before the last lies inside L2: a segment (e.g. the near partition's share).
Property inner_segment(const RefinedStep& first, std::size_t steps, const nlohmann::json& evidence,
                       const std::string& method) {
  Property p = size_from_step(first, "the first of several steps below the L2 size: " + method);
  p.name = "segment_size";
  p.note = "a step inside L2 (" + std::to_string(steps - 1) +
           " before the last): a near/far partition boundary or a segment";
  p.evidence["staircase"] = evidence;
  return p;
}

}  // namespace

void run_l2_and_dram(ProbeContext& ctx, const StaircaseRow& row) {
  const L2Plan plan = plan_l2_sweep(ctx);
  Layout layout{Layout::sequential, plan.stride, std::nullopt, 0};
  layout.cold_from_bytes = plan.cold_from;
  layout.stream_warm = true;  // ~1.4 s of an H200's 1.8 s were warm passes one load at a time
  Sweep sweep(ctx, row, layout);
  const Staircase s =
      sweep.coarse(footprint_grid(plan.start, plan.end, row.grid_ratio, plan.stride));
  const std::string method = l2_method(plan);
  nlohmann::json evidence = staircase_evidence(s, sweep);
  evidence["api_l2_bytes"] = plan.api_l2;
  Element& l2 = element_for(ctx.topology, "l2");
  if (s.steps.empty()) {
    Property p =
        lower_bound_size(s.levels.back(), "no step up to the largest footprint swept", method);
    p.evidence["staircase"] = evidence;
    l2.set(std::move(p));
    return;
  }
  Property size =
      l2_size(refine_on_placements(ctx, row, sweep, s, s.steps.size() - 1), plan, evidence, method);
  size.evidence["cost"] = sweep.cost();  // the sweep's, the section searches' and placements'
  l2.set(std::move(size));
  if (s.steps.size() > 1)
    l2.set(inner_segment(sweep.refine(s, 0), s.steps.size(), evidence, method));
}

}  // namespace memtopo::staircase
