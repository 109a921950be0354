// The constant caches' row: one ld.const staircase over the constant bank; step k ends constant
// cache k (its size), level k is its latency.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/staircase/rows.hpp"
#include "probes/staircase/step_findings.hpp"
#include "probes/staircase/sweep.hpp"

namespace memtopo::staircase {
namespace {

// The thesis' stride of one constant L1 line (4.4). A smaller stride lets the second element of
// a line hit the level below, so the levels' latencies would mix.
constexpr std::uint32_t kConstantStrideBytes = 64;
// The sweep starts at two strides and needs at least this many times that before the bank ends.
constexpr std::uint64_t kMinSweepSpan = 4;
// Timed loads of the cg chase the first constant level is compared with.
constexpr std::uint32_t kL2ReferenceSamples = kMinTimedLoads;

// Skips unless the first constant level answers clearly faster than L2 (a cg chase on the
// smallest footprint): otherwise no cache on the SM holds constants and the staircase is L2's.
void require_constant_cache(ProbeContext& ctx, const StaircaseLevel& first,
                            std::uint64_t footprint) {
  const std::vector<ChaseSpec> batch = {
      make_chase(LoadPath::cg, footprint, kConstantStrideBytes)
          .timed_loads(std::min(kL2ReferenceSamples, ctx.backend.limits().max_timed_loads))};
  const Spread reference =
      summarize(corrected_cycles(ctx.run(batch, "constant_l1.size/l2").front()));
  require_clearly_faster(first.spread, reference, LoadPath::constant, LoadPath::cg,
                         "constant loads are not cached on the SM (const ≈ cg)");
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
  const Staircase s =
      sweep.coarse(footprint_grid(start, bank, row.grid_ratio, kConstantStrideBytes));
  require_constant_cache(ctx, s.levels.front(), start);
  std::vector<RefinedStep> refined;
  for (std::size_t k = 0; k < s.steps.size(); ++k) refined.push_back(sweep.refine(s, k));

  const std::string method = constant_method(bank);
  const nlohmann::json evidence = staircase_evidence(s, sweep);
  const double clock = ctx.backend.current_sm_clock_khz();
  for (std::size_t k = 0; k < row.elements.size() && k < s.levels.size(); ++k) {
    Element& element = element_for(ctx.topology, row.elements[k]);
    Property size =
        k < refined.size()
            ? size_from_step(refined[k], method)
            : lower_bound_size(s.levels[k],
                               "the constant bank (" + format_bytes(static_cast<double>(bank)) +
                                   ") caps the footprint",
                               method);
    size.evidence["staircase"] = evidence;
    size.evidence["level"] = k;
    element.set(std::move(size));
    element.set(
        latency_of_level(sweep, s.levels[k], clock,
                         "level " + std::to_string(k) + " of the constant staircase: " + method));
  }
}

}  // namespace memtopo::staircase
