#include "probes/shared/conflict_latency.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/banks.hpp"
#include "analysis/confidence.hpp"
#include "backend/warp_access.hpp"
#include "probes/shared/warp_patterns.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Recorded accesses per degree: the rows are the product, so more than the sweep's.
constexpr std::uint32_t kLadderTimedAccesses = 512;

const char* kConflictLatencyMethod =
    "conflict ladder: one warp, lanes below d loading d distinct 4 B words one bank row (banks x "
    "width) apart, all in one bank, the other lanes the last of them, each access timed in a "
    "dependent chain; per degree d = 1..32 the p50 of its timed accesses minus the timing "
    "overhead, with spread";

nlohmann::json row_json(std::uint32_t degree, const MeasuredPattern& m) {
  return {{"degree", degree},
          {"cycles", m.cycles.p50},
          {"spread", spread_evidence(m.cycles)},
          {"raw_cycles", m.raw.p50}};
}

}  // namespace

void measure_conflict_latency(ProbeContext& ctx) {
  if (!finding_exists(ctx.topology, "shared", "banks") ||
      !finding_exists(ctx.topology, "shared", "bank_width")) {
    throw ProbeSkipped("needs the layout of shared.banks and shared.bank_width");
  }
  const Property* banks = conclusive_finding(ctx.topology, "shared", "banks");
  const Property* width = conclusive_finding(ctx.topology, "shared", "bank_width");
  if (!banks || !width) {
    set_inconclusive(ctx.topology, "shared", "conflict_latency", kConflictLatencyMethod,
                     "planned from shared.banks and shared.bank_width, which are not conclusive");
    return;
  }
  const std::uint64_t row_bytes =
      banks->value.get<std::uint64_t>() * width->value.get<std::uint64_t>();  // bank row
  std::vector<BankPattern> ladder;
  for (std::uint32_t degree = 1; degree <= kWarpLanes; ++degree) {
    ladder.push_back(degree_ladder_pattern(kWarpLanes, degree, row_bytes));
  }
  ctx.progress("shared.conflict_latency: degrees 1.." + std::to_string(kWarpLanes) + ", " +
               std::to_string(row_bytes) + " B apart");
  const PatternRun run = run_patterns(ctx, ladder, kLadderTimedAccesses);

  // The rows measured, each at the degree its pattern has on this layout (its position in the
  // ladder), and the ladder's own fit of one cost per pass.
  const BankHypothesis layout{banks->value.get<std::uint32_t>(), width->value.get<std::uint32_t>()};
  std::vector<std::uint32_t> degrees;
  for (const MeasuredPattern& m : run.measured)
    degrees.push_back(predicted_degree(m.pattern, layout));
  const std::vector<BankPattern> patterns = run.patterns();
  const std::vector<double> cycles = run.p50_cycles();
  const DegreeScale scale = fit_degree_scale(patterns, cycles, degrees);
  nlohmann::json rows = nlohmann::json::array();
  std::size_t on_the_line = 0;
  for (std::size_t i = 0; i < run.measured.size(); ++i) {
    rows.push_back(row_json(degrees[i], run.measured[i]));
    const double measured = measured_degree(cycles[i], patterns[i].word_bytes, scale);
    on_the_line += scale.per_pass_cycles > 0 && degree_agrees(measured, degrees[i]) ? 1 : 0;
  }

  Property p;
  p.name = "conflict_latency";
  p.unit = "cycles";
  p.source = Source::measured;
  p.method = kConflictLatencyMethod;
  p.value = rows;
  p.evidence = {{"run", run.evidence(kLadderTimedAccesses)},
                {"row_bytes", row_bytes},
                {"per_pass_cycles", scale.per_pass_cycles},
                {"base_cycles", scale.base_for(4)},
                {"rows_on_one_cost_per_pass", on_the_line}};
  // shared.banks and shared.bank_width place the ladder: the runner caps by them
  // (core/inheritance.hpp).
  Confidence confidence{
      agreement(on_the_line, rows.size(), "degrees whose cycles lie on one cost per pass")};
  set_confidence(p, confidence);
  element_for(ctx.topology, "shared").set(std::move(p));
}

}  // namespace memtopo
