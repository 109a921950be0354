#include "probes/geometry/scan_resistance.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/sm_caches.hpp"

namespace memtopo {
namespace {

// The reused working set: a quarter of the cache, warmed twice (every line reused once).
constexpr std::uint64_t kWorkingSetDenominator = 4;
constexpr std::uint32_t kWarmPasses = 2;
// The stream: sequential over this many times the cache, twice, through the same path. Under
// LRU, FIFO or random replacement one pass over the size already evicts the working set.
constexpr std::uint64_t kStreamCapacities = 8;
constexpr std::uint32_t kStreamPasses = 2;
// A device-wide cache (every chase alone) is tens of MiB and its stream goes to DRAM: 8 x 2
// capacities of an L2 took 0.6 s on an H100. One pass over 4 capacities leaves a line of the
// working set about e^-4 (2 %) to survive random replacement, none under LRU or FIFO.
constexpr std::uint64_t kAloneStreamCapacities = 4;
constexpr std::uint32_t kAloneStreamPasses = 1;
// Without a measured line: one load per this many bytes, no smaller than any cache line, so
// that no line of the stream is used twice (the sectors of one line would make the stream look
// reused to a policy that promotes on any hit).
constexpr std::uint32_t kLargestLineBytes = 256;

// How misses are told from hits: by baselines on a path that skips the element (SM caches,
// the three chases in one batch), or by a given threshold with every chase alone (device-wide).
struct MissRule {
  std::optional<LoadPath> next_level_path;
  std::optional<double> threshold_cycles;
};

std::optional<Property> scan_test(ProbeContext& ctx, const std::string& element, LoadPath path,
                                  const MissRule& miss_rule) {
  const auto size = measured_size(ctx.topology, element);
  if (!size) return std::nullopt;
  const std::uint32_t line = measured_line_or(ctx.topology, element, kLargestLineBytes);
  const BackendLimits limits = ctx.backend.limits();
  const bool alone = !miss_rule.next_level_path;
  const std::uint64_t capacities = alone ? kAloneStreamCapacities : kStreamCapacities;
  const std::uint32_t stream_passes = alone ? kAloneStreamPasses : kStreamPasses;
  const std::uint64_t stream_bytes =
      round_down(std::min(*size * capacities, limits.max_footprint_bytes), line);

  ChaseSpec working_set;
  working_set.path = path;
  working_set.footprint_bytes = round_down(*size / kWorkingSetDenominator, line);
  working_set.stride_bytes = line;
  working_set.order = ChaseOrder::sequential;
  working_set.warm_passes = kWarmPasses;
  working_set.timed_loads = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(chain_length(working_set), limits.max_timed_loads));
  ChaseSpec streamed = working_set;
  streamed.eviction = EvictionSweep{path, stream_bytes, line, stream_passes};
  const std::string phase = element + ".policy/scan";
  FitRule rule;
  nlohmann::json baseline_evidence;
  Trace after_stream;
  if (miss_rule.next_level_path) {
    ChaseSpec next_level = working_set;
    next_level.path = *miss_rule.next_level_path;
    const std::vector<ChaseSpec> batch = {working_set, streamed, next_level};
    auto traces = ctx.run(batch, phase);
    const LevelBaselines baselines =
        judge_baselines(traces[0], traces[2], path, *miss_rule.next_level_path,
                        element + " does not cache " + std::string(to_string(path)) + " loads");
    rule = baselines.rule;
    baseline_evidence = {{"hit_cycles", spread_evidence(baselines.hit)},
                         {"next_level_cycles", spread_evidence(baselines.next_level)}};
    after_stream = std::move(traces[1]);
  } else {
    rule.threshold_cycles = miss_rule.threshold_cycles.value();
    const auto run_alone = [&](const ChaseSpec& spec) {
      return std::move(ctx.run(std::vector<ChaseSpec>{spec}, phase).front());
    };
    // The working set without the stream must hit, or the test says nothing.
    const Trace reused = run_alone(working_set);
    const FitVerdict without_stream = judge_fit(corrected_cycles(reused), reused.indices, rule);
    if (!without_stream.fits) {
      throw ProbeSkipped("the scan test's working set (" +
                         format_bytes(static_cast<double>(working_set.footprint_bytes)) +
                         ") misses without a stream: the threshold does not tell " + element +
                         " hits");
    }
    baseline_evidence = {{"hit_cycles", spread_evidence(summarize(corrected_cycles(reused)))},
                         {"each_chase_alone", true}};
    after_stream = run_alone(streamed);
  }
  const FitVerdict verdict = judge_fit(corrected_cycles(after_stream), after_stream.indices, rule);

  Property p;
  p.name = "policy";
  p.unit = "";
  p.source = Source::measured;
  p.method = "a working set of 1/4 of the size, reused, then a sequential stream of " +
             std::to_string(capacities) + "x the size (" + std::to_string(stream_passes) +
             (stream_passes == 1 ? " pass" : " passes") +
             ") through the same path, then the working set timed again: LRU, FIFO and "
             "random replacement evict it, a scan-resistant policy keeps it (used when the ways "
             "are not known)";
  p.evidence = {
      {"working_set_bytes", working_set.footprint_bytes},
      {"stream_bytes", stream_bytes},
      {"stride_bytes", line},
      {"after_stream", verdict_evidence(verdict)},
      {"threshold_cycles", rule.threshold_cycles},
      {"threshold_source", miss_rule.next_level_path ? "own baselines" : element + ".size"}};
  p.evidence.update(baseline_evidence);
  if (verdict.missing <= verdict.allowed) {
    p.value = "scan_resistant";
    p.confidence = 1.0 - verdict.miss_fraction;
    p.note = "not LRU, FIFO or random: reused lines survived a stream of " +
             std::to_string(capacities) + "x the cache";
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = "the stream evicted " + std::to_string(verdict.missing) + " of " +
             std::to_string(verdict.elements) +
             " reused lines, as LRU, FIFO and random replacement do; telling them apart needs "
             "the ways";
  }
  return p;
}

}  // namespace

std::optional<Property> scan_resistance_policy(ProbeContext& ctx, const std::string& element,
                                               LoadPath path, LoadPath next_level_path) {
  return scan_test(ctx, element, path, MissRule{next_level_path, std::nullopt});
}

std::optional<Property> scan_resistance_policy_alone(ProbeContext& ctx, const std::string& element,
                                                     LoadPath path, double threshold_cycles) {
  return scan_test(ctx, element, path, MissRule{std::nullopt, threshold_cycles});
}

}  // namespace memtopo
