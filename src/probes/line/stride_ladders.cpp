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

}  // namespace

LinePlan plan_stride_ladders(const LineMeasurement& m, std::uint64_t size,
                             std::optional<std::uint64_t> sector) {
  LinePlan plan;
  plan.size_bytes = size;
  plan.sector_bytes = sector;
  plan.unit_bytes = sector.value_or(kSmallestLineBytes);
  const std::uint64_t prime_target = size * kLinePrime * kProbeNumerator / kProbeDenominator;
  const std::uint64_t max_unit =
      std::min<std::uint64_t>(kLargestUnitBytes, prime_target / (kLinePrime * kMinProbeElements));
  const auto prime_strides = line_stride_ladder(plan.unit_bytes, kLinePrime, max_unit);
  if (prime_strides.empty()) throw ProbeSkipped("the cache is too small for a stride ladder");
  if (prime_target > m.limits().max_footprint_bytes) {
    throw ProbeSkipped("the backend cannot chase " + format_bytes(prime_target) + ", " +
                       std::to_string(kLinePrime) + " x 3/4 of the measured size");
  }
  plan.prime = ladder_at(prime_target, prime_strides);
  const std::uint64_t pow2_target = size * kPow2ProbeNumerator / kPow2ProbeDenominator;
  plan.power_of_two = ladder_at(pow2_target, power_of_two_strides(plan.unit_bytes, pow2_target));
  return plan;
}

void classify_strides(LineMeasurement& m, LinePlan& plan) {
  const std::vector<StrideLadder*> ladders = {&plan.prime, &plan.power_of_two};
  auto specs = m.baseline_specs();
  std::size_t strides = 0;
  for (const StrideLadder* ladder : ladders) {
    for (const StrideCapacity& c : ladder->strides) {
      specs.push_back(m.fit_chase(c.probe_footprint_bytes, c.stride_bytes));
      ++strides;
    }
  }
  m.ctx().progress(m.id() + ": classifying " + std::to_string(strides) + " strides");
  const auto traces = m.run_batches(specs, "classify");
  m.take_baselines(traces[0], traces[1]);
  std::size_t next = 2;  // the traces after the baselines, in the order of the specs
  for (StrideLadder* ladder : ladders) {
    for (StrideCapacity& c : ladder->strides) {
      const FitVerdict verdict = m.judge(traces[next++]);
      c.fits_at_probe = verdict.fits;
      ladder->verdicts.push_back(verdict);
    }
  }
}

}  // namespace memtopo
