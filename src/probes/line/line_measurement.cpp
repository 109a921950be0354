#include "probes/line/line_measurement.hpp"

#include <algorithm>
#include <chrono>

#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "run/clock.hpp"

namespace memtopo {
namespace {

// Baselines as the size probe takes them: 1 KiB, every line touched, warm.
constexpr std::uint64_t kBaselineFootprintBytes = 1024;

}  // namespace

LineMeasurement::LineMeasurement(ProbeContext& ctx, const LineTarget& target, std::string id)
    : ctx_(ctx), target_(target), limits_(ctx.backend.limits()), id_(std::move(id)) {}

std::uint64_t LineMeasurement::size_or_skip() const {
  const auto size = finding_count(ctx_.topology, target_.element, "size");
  if (!size) {
    throw ProbeSkipped("needs a measured " + target_.element +
                       ".size (absent or inconclusive in this run)");
  }
  return *size;
}

std::optional<std::uint64_t> LineMeasurement::measured_sector() const {
  return finding_count(ctx_.topology, target_.element, "sector");
}

std::vector<ChaseSpec> LineMeasurement::baseline_specs() const {
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  return {
      make_chase(target_.path, kBaselineFootprintBytes, kSmallestLineBytes).timed_loads(samples),
      make_chase(target_.next_level_path, kBaselineFootprintBytes, kSmallestLineBytes)
          .timed_loads(samples)};
}

void LineMeasurement::take_baselines(const Trace& hit, const Trace& next_level) {
  const LevelBaselines baselines = judge_baselines(
      hit, next_level, target_.path, target_.next_level_path, target_.not_cached_reason);
  hit_ = baselines.hit;
  next_level_ = baselines.next_level;
  rule_ = with_measured_outlier_rate(baselines.rule, corrected_cycles(hit));
}

nlohmann::json LineMeasurement::baseline_evidence() const {
  return {{"hit_cycles", spread_evidence(hit_)},
          {"next_level_cycles", spread_evidence(next_level_)}};
}

std::uint32_t LineMeasurement::slots() const {
  return std::max<std::uint32_t>(1, limits_.concurrent_slots);
}

std::vector<Trace> LineMeasurement::run_batches(const std::vector<ChaseSpec>& specs,
                                                const std::string& phase) {
  std::vector<Trace> traces;
  const auto start = Clock::now();
  for (std::size_t begin = 0; begin < specs.size(); begin += slots()) {
    const std::size_t end = std::min(specs.size(), begin + slots());
    const std::vector<ChaseSpec> batch(specs.begin() + static_cast<std::ptrdiff_t>(begin),
                                       specs.begin() + static_cast<std::ptrdiff_t>(end));
    auto part = ctx_.run(batch, id_ + "/" + phase);
    std::uint64_t longest = 0;
    for (const auto& spec : batch) {
      loads_ += loads_of(spec);
      longest = std::max(longest, loads_of(spec));
    }
    critical_path_loads_ += longest;
    ++batches_;
    for (auto& t : part) traces.push_back(std::move(t));
  }
  seconds_ += seconds_since(start);
  return traces;
}

ChaseSpec LineMeasurement::fit_chase(std::uint64_t footprint, std::uint64_t stride) const {
  const std::uint64_t elements = footprint / stride;
  const std::uint64_t passes =
      elements * kTimedPasses <= limits_.max_timed_loads ? kTimedPasses : 1;
  return make_chase(target_.path, footprint, static_cast<std::uint32_t>(stride))
      .timed_loads(static_cast<std::uint32_t>(elements * passes));
}

FitVerdict LineMeasurement::judge(const Trace& trace) const {
  return judge_fit(corrected_cycles(trace), trace.indices, rule_);
}

nlohmann::json LineMeasurement::cost_evidence() const {
  return {{"batches", batches_},
          {"loads", loads_},
          {"critical_path_loads", critical_path_loads_},
          {"seconds", seconds_}};
}

void LineMeasurement::publish(Property property) const {
  element_for(ctx_.topology, target_.element).set(std::move(property));
}

}  // namespace memtopo
