// The constant caches' row: one ld.const staircase over the constant bank; step k ends constant
// cache k (its size), level k is its latency.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/staircase_rows.hpp"
#include "probes/core/step_findings.hpp"
#include "probes/core/staircase_sweep.hpp"

namespace memtopo::staircase {
namespace {

// The thesis' stride of one constant L1 line (4.4). A smaller stride lets the second element of
// a line hit the level below, so the levels' latencies would mix.
constexpr std::uint32_t kConstantStrideBytes = 64;
// The sweep starts at two strides and needs at least this many times that before the bank ends.
constexpr std::uint64_t kMinSweepSpan = 4;
// Timed loads of the cg chase the first constant level is compared with.
constexpr std::uint32_t kL2ReferenceSamples = kMinTimedLoads;
// When the bank's end misses in the last constant level, the grid's last interval is split by
// this many more footprints: a cache ending inside it (a 46 KiB L1.5 between the grid's 45.25
// and 64 KiB) then has a plateau after its step, which is cut and refined like any other.
constexpr std::uint64_t kLastIntervalSplits = 4;

// The L2's answer to a cg chase on the smallest footprint: what a constant load that no
// constant cache holds costs.
Spread l2_reference(ProbeContext& ctx, std::uint64_t footprint) {
  const std::vector<ChaseSpec> batch = {
      make_chase(LoadPath::cg, footprint, kConstantStrideBytes)
          .timed_loads(std::min(kL2ReferenceSamples, ctx.backend.limits().max_timed_loads))};
  return summarize(corrected_cycles(ctx.run(batch, "constant_l1.size/l2").front()));
}

// Whether the coarse footprint `i` fits in `level`: none of its loads missing to the L2
// beyond (the fit rule at the midpoint of the level's and the L2's answers).
bool fits_in(const Sweep& sweep, std::size_t i, const StaircaseLevel& level, const Spread& l2) {
  const Measured& m = sweep.coarse()[i];
  return judge_fit(m.cycles, m.indices, fit_rule_for({level.latency, l2.p5})).fits;
}

// The staircase's levels that are constant caches: those answering clearly faster than the L2
// (a device with one constant cache has the L2's level second), at most one per element.
std::size_t constant_levels(const Staircase& s, const StaircaseRow& row, const Spread& l2) {
  std::size_t k = 0;
  while (k < s.levels.size() && k < row.elements.size() && clearly_faster(s.levels[k].spread, l2))
    ++k;
  return k;
}

// Whether the last level is a constant cache's (not the L2's) and the bank's end already misses
// in it: the cache ends before the bank, at a step the grid did not resolve.
bool bank_end_misses(const Staircase& s, const Sweep& sweep, const StaircaseRow& row,
                     const Spread& l2) {
  return constant_levels(s, row, l2) == s.levels.size() &&
         !fits_in(sweep, s.footprints.size() - 1, s.levels.back(), l2);
}

std::vector<std::uint64_t> last_interval_split(const Staircase& s) {
  const std::uint64_t low = s.footprints[s.footprints.size() - 2];
  const std::uint64_t width = s.footprints.back() - low;
  std::vector<std::uint64_t> more;
  for (std::uint64_t i = 1; i <= kLastIntervalSplits; ++i) {
    more.push_back(round_down(low + i * width / (kLastIntervalSplits + 1), kConstantStrideBytes));
  }
  return more;
}

// Level k has no step after it: the cache holds at least the largest of the level's footprints
// that fits, the bank's end when that fits (the bank caps the footprint).
Property size_bound(const Staircase& s, const Sweep& sweep, std::size_t k, const Spread& l2,
                    std::uint64_t bank, const std::string& method) {
  StaircaseLevel level = s.levels[k];
  std::size_t last = level.last;
  while (last > level.first && !fits_in(sweep, last, level, l2)) --last;
  if (last == level.last) {
    return lower_bound_size(
        level, "the constant bank (" + format_bytes(static_cast<double>(bank)) + ") caps the footprint",
        method);
  }
  level.to_bytes = s.footprints[last];
  return lower_bound_size(
      level, "the cache ends between " + format_bytes(static_cast<double>(level.to_bytes)) +
                 " and " + format_bytes(static_cast<double>(s.footprints[last + 1])) +
                 ", which already misses to L2, with too few footprints after it for a step",
      method);
}

std::string constant_method(std::uint64_t bank) {
  return "fine-grained pointer chase via const, " + format_bytes(kConstantStrideBytes) +
         " stride, sequential, 1 warm + 2 timed passes over footprints up to the constant bank (" +
         format_bytes(static_cast<double>(bank)) +
         "); staircase: geometric reduction, PELT change points, KS test per step, then a "
         "section search between the footprints bracketing each step";
}

}  // namespace

void run_constant_caches(ProbeContext& ctx, const StaircaseRow& row) {
  const std::uint64_t bank = ctx.backend.limits().max_constant_footprint_bytes;
  const std::uint64_t start = 2 * kConstantStrideBytes;
  if (bank < kMinSweepSpan * start) {
    throw ProbeSkipped("the backend cannot chase the constant bank");
  }
  Sweep sweep(ctx, row, {Layout::sequential, kConstantStrideBytes, std::nullopt, 0});
  Staircase s = sweep.coarse(footprint_grid(start, bank, row.grid_ratio, kConstantStrideBytes));
  // Unless the first level answers clearly faster than L2, no cache on the SM holds constants
  // and the staircase is L2's.
  const Spread l2 = l2_reference(ctx, start);
  require_clearly_faster(s.levels.front().spread, l2, LoadPath::constant, LoadPath::cg,
                         "constant loads are not cached on the SM (const ≈ cg)");
  if (bank_end_misses(s, sweep, row, l2)) s = sweep.coarse_with(s, last_interval_split(s));
  std::vector<RefinedStep> refined;
  for (std::size_t k = 0; k < s.steps.size(); ++k) refined.push_back(sweep.refine(s, k));

  const std::string method = constant_method(bank);
  const nlohmann::json evidence = staircase_evidence(s, sweep);
  const double clock = ctx.backend.current_sm_clock_khz();
  for (std::size_t k = 0; k < constant_levels(s, row, l2); ++k) {
    Element& element = element_for(ctx.topology, row.elements[k]);
    Property size = k < refined.size() ? size_from_step(refined[k], method)
                                       : size_bound(s, sweep, k, l2, bank, method);
    size.evidence["staircase"] = evidence;
    size.evidence["level"] = k;
    element.set(std::move(size));
    element.set(
        latency_of_level(sweep, s.levels[k], clock,
                         "level " + std::to_string(k) + " of the constant staircase: " + method));
  }
}

}  // namespace memtopo::staircase
