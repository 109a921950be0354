#include "probes/scan_resistance.hpp"

#include <algorithm>
#include <vector>

#include "analysis/size_rule.hpp"
#include "probes/chase_helpers.hpp"
#include "probes/sm_caches.hpp"

namespace memtopo {
namespace {

// The reused working set: a quarter of the cache, warmed twice (every line reused once).
constexpr std::uint64_t kWorkingSetDenominator = 4;
constexpr std::uint32_t kWarmPasses = 2;
// The stream: sequential over this many times the cache, twice, through the same path. Under
// LRU, FIFO or random replacement one pass over the size already evicts the working set.
constexpr std::uint64_t kStreamCapacities = 8;
constexpr std::uint32_t kStreamPasses = 2;
// Without a measured line: one load per this many bytes, no smaller than any cache line, so
// that no line of the stream is used twice (the sectors of one line would make the stream look
// reused to a policy that promotes on any hit).
constexpr std::uint32_t kLargestLineBytes = 256;

}  // namespace

std::optional<Property> scan_resistance_policy(ProbeContext& ctx, const std::string& element,
                                               LoadPath path, LoadPath next_level_path) {
  const auto size = measured_size(ctx.topology, element);
  if (!size) return std::nullopt;
  const std::uint32_t line = measured_line_or(ctx.topology, element, kLargestLineBytes);
  const BackendLimits limits = ctx.backend.limits();
  const std::uint64_t stream_bytes =
      round_down(std::min(*size * kStreamCapacities, limits.max_footprint_bytes), line);

  ChaseSpec working_set;
  working_set.path = path;
  working_set.footprint_bytes = round_down(*size / kWorkingSetDenominator, line);
  working_set.stride_bytes = line;
  working_set.order = ChaseOrder::sequential;
  working_set.warm_passes = kWarmPasses;
  working_set.timed_loads = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(chain_length(working_set), limits.max_timed_loads));
  ChaseSpec streamed = working_set;
  streamed.eviction = EvictionSweep{path, stream_bytes, line, kStreamPasses};
  ChaseSpec next_level = working_set;
  next_level.path = next_level_path;
  const std::vector<ChaseSpec> batch = {working_set, streamed, next_level};
  const auto traces = ctx.run(batch, element + ".policy/scan");

  const LevelBaselines baselines =
      judge_baselines(traces[0], traces[2], path, next_level_path,
                      element + " does not cache " + std::string(to_string(path)) + " loads");
  const FitVerdict verdict =
      judge_fit(corrected_cycles(traces[1]), traces[1].indices, baselines.rule);

  Property p;
  p.name = "policy";
  p.unit = "";
  p.source = Source::measured;
  p.method = "a working set of 1/4 of the size, reused, then a sequential stream of " +
             std::to_string(kStreamCapacities) + "x the size (" +
             std::to_string(kStreamPasses) +
             " passes) through the same path, then the working set timed again: LRU, FIFO and "
             "random replacement evict it, a scan-resistant policy keeps it (used when the ways "
             "are not known)";
  p.evidence = {{"working_set_bytes", working_set.footprint_bytes},
                {"stream_bytes", stream_bytes},
                {"stride_bytes", line},
                {"after_stream", verdict_evidence(verdict)},
                {"hit_cycles", spread_evidence(baselines.hit)},
                {"next_level_cycles", spread_evidence(baselines.next_level)},
                {"threshold_cycles", baselines.rule.threshold_cycles}};
  if (verdict.missing <= verdict.allowed) {
    p.value = "scan_resistant";
    p.confidence = 1.0 - verdict.miss_fraction;
    p.note = "not LRU, FIFO or random: reused lines survived a stream of " +
             std::to_string(kStreamCapacities) + "x the cache";
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

}  // namespace memtopo
