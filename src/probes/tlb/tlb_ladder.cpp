// A TLB ladder: the staircase over wide chains of one element per stride (tlb_levels.hpp).
#include <algorithm>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "analysis/adaptive_grid.hpp"
#include "probes/tlb/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Chases of the hit reference (see climb): 3 revisits each, 6 loads per element.
constexpr std::size_t kReferenceChases = 2;
// Footprints added just below the longest chain when it alone reads above the plateau it closes
// (see climb): this many, each 1 / kEndSpacingDivisor of the grid's last interval apart.
constexpr std::uint64_t kEndFootprints = 3;
constexpr std::uint64_t kEndSpacingDivisor = 64;

// The coarse pass measures every kCoarseSpacing-th chain length of the row's grid (ratio 2 on the
// sqrt(2) grid); a grid of fewer than kMinAdaptivePoints lengths is measured whole (a coarse
// pass would save a chase or two, and leave too few points for the noise it is judged by).
constexpr std::size_t kCoarseSpacing = 2;
constexpr std::size_t kMinAdaptivePoints = 8;

// The staircase of the footprints `sweep` measured (`s`'s), cut again with the noise the whole
// grid would show (analysis/adaptive_grid.hpp: analyze_on_grid).
Staircase on_grid(const Sweep& sweep, const Staircase& s, std::span<const std::uint64_t> grid) {
  std::vector<std::vector<double>> cycles;
  for (const Measured& m : sweep.coarse()) cycles.push_back(m.cycles);
  return analyze_on_grid(s, cycles, grid);
}

// `s` refined where it may step (analysis/adaptive_grid.hpp), every gap refined in `evidence`.
Staircase refined_where_it_may_step(Sweep& sweep, const Staircase& s,
                                    std::span<const std::uint64_t> grid, nlohmann::json& evidence) {
  std::vector<RefinedGap> refined;
  Staircase out = refine_where_it_may_step(
      on_grid(sweep, s, grid), grid, kMinTlbStepConfidence,
      [&](const Staircase& measured, std::span<const std::uint64_t> more) {
        return on_grid(sweep, sweep.coarse_with(measured, more), grid);
      },
      refined);
  for (const RefinedGap& r : refined) {
    evidence["refined"].push_back({{"between_bytes", {r.gap.from, r.gap.to}},
                                   {"footprint_bytes", r.gap.middle},
                                   {"because", gap_reason_name(r.gap.reason)},
                                   {"least_rise_cycles", r.least_rise}});
  }
  return out;
}

// The staircase over `grid`, measured where it may step: the coarse pass, then the fine points
// of every gap that may hide a level (analysis/adaptive_grid.hpp says why nothing is lost).
Staircase adaptive_staircase(Sweep& sweep, std::span<const std::uint64_t> grid,
                             nlohmann::json& evidence) {
  evidence = {{"grid_points", grid.size()}, {"refined", nlohmann::json::array()}};
  if (grid.size() < kMinAdaptivePoints) {
    evidence["coarse_spacing"] = 1;
    return sweep.coarse(grid);
  }
  evidence["coarse_spacing"] = kCoarseSpacing;
  return refined_where_it_may_step(sweep, sweep.coarse(coarse_points(grid, kCoarseSpacing)), grid,
                                   evidence);
}

// Whether the longest chain reads clearly above the level it was put in: a level that first
// overflows between the grid's last two footprints, with only the longest chain after its step
// (a step onto the longest chain alone is taken for no level). Clearly: by the staircase's own
// clear jump in noise sigmas (StaircaseOptions::clear_jump_sigmas), at least one cycle each.
bool rises_at_the_end(const Staircase& s) {
  if (s.levels.empty() || s.series.size() < 3) return false;
  const double rise = s.series.back() - s.levels.back().reduced;
  return rise > StaircaseOptions{}.clear_jump_sigmas * std::max(s.noise_sigma, 1.0);
}

// kEndFootprints footprints just below the longest, on the stride: with the longest a plateau
// after the step where the level is all missing by then, and the step one interval of the grid
// (the section search refines it), not a ramp sampled in pieces the staircase takes for levels.
std::vector<std::uint64_t> end_footprints(const Staircase& s, std::uint64_t stride) {
  const std::uint64_t from = s.footprints[s.footprints.size() - 2] / stride;
  const std::uint64_t to = s.footprints.back() / stride;
  const std::uint64_t spacing = std::max<std::uint64_t>(1, (to - from) / kEndSpacingDivisor);
  std::vector<std::uint64_t> out;
  for (std::uint64_t k = kEndFootprints; k >= 1; --k) {
    if (to > from + k * spacing) out.push_back((to - k * spacing) * stride);
  }
  return out;
}

}  // namespace

double Ladder::penalty(std::size_t k) const {
  // Means, not medians: a miss adds the same cycles to near and far L2 hits alike, which
  // shifts the mean by exactly that, while the median of two modes can jump between them.
  return after(k).mean - before(k).mean;
}

std::uint64_t Ladder::all_missing_elements(std::size_t k) const {
  return after(k).to_bytes / stride();
}

std::vector<std::size_t> steps_up(const Staircase& staircase) {
  // A TLB level is a step up that the staircase is sure of, onto a plateau above every one
  // before it by at least half its jump. A step that is not (a step down, or one within the
  // L2's noise: on an H100 the 2 MiB chain up to 8 GiB showed +10, -7.6 and +8.6 cycles at
  // confidences 0.44, 0.25 and 0.05) is passed over, and does not end the list: on an H200 a
  // drift of -1.5 cycles between 4 and 5 elements (confidence 0.16) came before the L1 TLB's
  // step (+10, 0.95) and the L2 TLB's (+94, 1.0), and used to hide both. A step up that only
  // climbs back from a step down is not a level: it does not rise above the plateaus before.
  std::vector<std::size_t> out;
  if (staircase.levels.empty()) return out;
  double highest_before = staircase.levels.front().mean;
  for (std::size_t k = 0; k < staircase.steps.size(); ++k) {
    const StaircaseStep& step = staircase.steps[k];
    const double after = staircase.levels[k + 1].mean;
    const bool rises = after - highest_before >= 0.5 * step.jump;
    highest_before = std::max(highest_before, after);
    if (step.jump > 0 && step.confidence >= kMinTlbStepConfidence && rises) out.push_back(k);
  }
  return out;
}

Ladder climb(ProbeContext& ctx, const StaircaseRow& row, std::uint64_t stride,
             std::uint64_t max_elements, std::uint32_t sm) {
  Ladder ladder;
  ladder.max_elements = max_elements;
  Layout layout{Layout::one_per_page, static_cast<std::uint32_t>(stride), sm, 0};
  layout.wide = true;
  ladder.sweep = std::make_unique<Sweep>(ctx, row, layout);
  Sweep& sweep = *ladder.sweep;
  // Reference: each element's latency where every level holds it (Sweep::hit_reference), so
  // that what stays different between elements is their own L2 answer. A reference taken on the
  // longest chain instead holds a TLB state per element wherever a level is only partly
  // overflowed there (a set-associative level at random pages of a stride larger than its
  // page, or two elements sharing one page whose order decides which one hits), and corrects
  // every shorter chain by it: on a simulated A100-like device (2 MiB pages, a 16 MiB stride)
  // no level was found, and on one of 32 MiB pages a stride of 16 MiB read a lone miss from 20
  // elements on as the level's reach.
  sweep.set_reference(sweep.hit_reference(0, max_elements, kReferenceChases));
  const std::uint64_t longest = ladder.longest_bytes();
  const std::vector<std::uint64_t> grid =
      footprint_grid(2 * stride, longest, row.grid_ratio, stride);
  ladder.staircase = adaptive_staircase(sweep, grid, ladder.grid);
  // A level whose step lies between the grid's last two footprints has the longest chain alone
  // after it: on an H100 (80 GB) the L2 TLB's 2048 x 32 MiB end at 64 GiB, a grid footprint, and
  // the longest chain the memory allows is 73.6 GiB. Footprints just below it give a plateau.
  // (The gap before the longest chain rises then, so the adaptive grid has refined it.)
  if (rises_at_the_end(ladder.staircase)) {
    const std::vector<std::uint64_t> more = end_footprints(ladder.staircase, stride);
    if (!more.empty()) {
      ladder.staircase = refined_where_it_may_step(sweep, sweep.coarse_with(ladder.staircase, more),
                                                   grid, ladder.grid);
    }
  }
  ladder.grid["measured"] = ladder.staircase.footprints.size();
  const std::vector<std::size_t> candidates = steps_up(ladder.staircase);
  ladder.rejected_steps = ladder.staircase.steps.size() - candidates.size();
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const std::size_t k = candidates[c];
    RefinedStep refined = sweep.refine(ladder.staircase, k);
    // A step onto the longest chain alone is the reference's artefact, not a level: every word
    // of that chain is corrected to the reference's median, which differs from the mean of a
    // plateau of near and far L2 hits.
    // So is a step whose section search found no edge (edge confidence below the threshold):
    // the tail of a level's gradual overflow, or noise, not a level of its own.
    if (refined.first_miss_bytes >= longest || refined.edge_confidence < kMinTlbStepConfidence) {
      ladder.rejected_steps += candidates.size() - c;
      break;
    }
    ladder.refined.push_back(std::move(refined));
    ladder.step_of.push_back(k);
  }
  return ladder;
}

}  // namespace memtopo::staircase
