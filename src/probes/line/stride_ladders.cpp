#include "probes/line/stride_ladders.hpp"

#include <algorithm>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {
namespace {

// Every classifying chase has at least this many elements.
constexpr std::uint64_t kMinProbeElements = 16;

StrideLadder ladder_at(std::uint64_t probe_target, const std::vector<std::uint64_t>& strides) {
  StrideLadder ladder;
  ladder.probe_target_bytes = probe_target;
  for (std::uint64_t stride : strides) {
    StrideCapacity c;
    c.stride_bytes = stride;
    c.probe_footprint_bytes = round_down(probe_target, stride);
    ladder.strides.push_back(c);
  }
  return ladder;
}

// Strides unit x 2^k from twice the unit: no line is smaller than the unit (the sector), so at
// the unit itself every line is touched and the capacity is the size, as the size probe measured.
std::vector<std::uint64_t> power_of_two_strides(std::uint64_t unit, std::uint64_t probe_target) {
  std::vector<std::uint64_t> strides;
  for (std::uint64_t u = 2 * unit; u <= kLargestUnitBytes && probe_target / u >= kMinProbeElements;
       u *= 2) {
    strides.push_back(u);
  }
  return strides;
}

// The prime ladder of `prime` for `plan`'s size and unit; empty when the cache is too small for
// one.
StrideLadder prime_ladder(const LinePlan& plan, std::uint64_t prime) {
  const std::uint64_t target = plan.size_bytes * prime * kProbeNumerator / kProbeDenominator;
  const std::uint64_t max_unit =
      std::min<std::uint64_t>(kLargestUnitBytes, target / (prime * kMinProbeElements));
  return ladder_at(target, line_stride_ladder(plan.unit_bytes, prime, max_unit));
}

// Per stride of `ladder`, its chase at the probe footprint.
void add_fit_chases(const LineMeasurement& m, const StrideLadder& ladder,
                    std::vector<ChaseSpec>& specs) {
  for (const StrideCapacity& c : ladder.strides) {
    specs.push_back(m.fit_chase(c.probe_footprint_bytes, c.stride_bytes));
  }
}

// Each stride's verdict from its trace, `traces` from `next` on in the ladder's order.
void record_verdicts(LineMeasurement& m, const std::vector<Trace>& traces, std::size_t& next,
                     StrideLadder& ladder) {
  for (StrideCapacity& c : ladder.strides) {
    const FitVerdict verdict = m.judge(traces[next++]);
    c.fits_at_probe = verdict.fits;
    ladder.verdicts.push_back(verdict);
  }
}

}  // namespace

LinePlan plan_stride_ladders(const LineMeasurement& m, std::uint64_t size,
                             std::optional<std::uint64_t> sector) {
  LinePlan plan;
  plan.size_bytes = size;
  plan.sector_bytes = sector;
  plan.unit_bytes = sector.value_or(kSmallestLineBytes);
  plan.prime_number = kLinePrime;
  plan.prime = prime_ladder(plan, kLinePrime);
  if (plan.prime.strides.empty()) throw ProbeSkipped("the cache is too small for a stride ladder");
  if (plan.prime.probe_target_bytes > m.limits().max_footprint_bytes) {
    throw ProbeSkipped("the backend cannot chase " + format_bytes(plan.prime.probe_target_bytes) +
                       ", " + std::to_string(kLinePrime) + " x 3/4 of the measured size");
  }
  const std::uint64_t pow2_target = size * kPow2ProbeNumerator / kPow2ProbeDenominator;
  plan.power_of_two = ladder_at(pow2_target, power_of_two_strides(plan.unit_bytes, pow2_target));
  return plan;
}

std::optional<LinePlan> with_prime(const LineMeasurement& m, const LinePlan& plan,
                                   std::uint64_t prime) {
  LinePlan out = plan;
  out.prime_number = prime;
  out.prime = prime_ladder(plan, prime);
  out.power_of_two = {};
  if (out.prime.strides.empty() || out.prime.probe_target_bytes > m.limits().max_footprint_bytes) {
    return std::nullopt;
  }
  return out;
}

void classify_strides(LineMeasurement& m, LinePlan& plan) {
  auto specs = m.baseline_specs();
  add_fit_chases(m, plan.prime, specs);
  add_fit_chases(m, plan.power_of_two, specs);
  m.ctx().progress(m.id() + ": classifying " + std::to_string(specs.size() - 2) + " strides");
  const auto traces = m.run_batches(specs, "classify");
  m.take_baselines(traces[0], traces[1]);
  std::size_t next = 2;  // the traces after the baselines, in the order of the specs
  record_verdicts(m, traces, next, plan.prime);
  record_verdicts(m, traces, next, plan.power_of_two);
}

void classify_prime_strides(LineMeasurement& m, LinePlan& plan) {
  std::vector<ChaseSpec> specs;
  add_fit_chases(m, plan.prime, specs);
  m.ctx().progress(m.id() + ": classifying " + std::to_string(specs.size()) + " strides of " +
                   std::to_string(plan.prime_number) + " x unit");
  const auto traces = m.run_batches(specs, "classify_prime_" + std::to_string(plan.prime_number));
  std::size_t next = 0;
  record_verdicts(m, traces, next, plan.prime);
}

}  // namespace memtopo
