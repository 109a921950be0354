#include "probes/shared/warp_patterns.hpp"

#include <algorithm>

#include "analysis/stats.hpp"
#include "backend/warp_access.hpp"
#include "probes/core/chase_helpers.hpp"

namespace memtopo {
namespace {

// Untimed accesses before the timed ones: the kernel's loop and the area settle.
constexpr std::uint32_t kWarmAccesses = 8;

WarpAccessSpec spec_of(const BankPattern& pattern, std::uint32_t timed_accesses) {
  WarpAccessSpec spec;
  std::copy(pattern.lane_offsets.begin(), pattern.lane_offsets.end(), spec.lane_offsets.begin());
  spec.word_bytes = pattern.word_bytes;
  spec.warm_accesses = kWarmAccesses;
  spec.timed_accesses = timed_accesses;
  return spec;
}

}  // namespace

std::vector<BankPattern> PatternRun::patterns() const {
  std::vector<BankPattern> out;
  for (const MeasuredPattern& m : measured) out.push_back(m.pattern);
  return out;
}

std::vector<double> PatternRun::p50_cycles() const {
  std::vector<double> out;
  for (const MeasuredPattern& m : measured) out.push_back(m.cycles.p50);
  return out;
}

nlohmann::json PatternRun::evidence(std::uint32_t timed_accesses) const {
  return {{"timed_accesses_per_pattern", timed_accesses},
          {"warm_accesses_per_pattern", kWarmAccesses},
          {"overhead_cycles", overhead_cycles},
          {"clock_khz", clock_khz > 0 ? nlohmann::json(clock_khz) : nlohmann::json(nullptr)},
          {"sm", sm},
          {"left_out", left_out}};
}

PatternRun run_patterns(ProbeContext& ctx, std::span<const BankPattern> patterns,
                        std::uint32_t timed_accesses) {
  const BackendLimits limits = ctx.backend.limits();
  if (limits.max_warp_access_bytes == 0) {
    throw ProbeSkipped("the " + std::string(ctx.backend.kind()) +
                       " backend runs no warp-wide shared-memory access");
  }
  PatternRun run;
  std::vector<BankPattern> kept;
  std::vector<WarpAccessSpec> batch;
  const std::uint32_t timed = std::min(timed_accesses, limits.max_timed_loads);
  for (const BankPattern& pattern : patterns) {
    if (pattern.lane_offsets.size() != kWarpLanes) {
      run.left_out.push_back(pattern.name);
      continue;
    }
    const WarpAccessSpec spec = spec_of(pattern, timed);
    if (area_bytes(spec) > limits.max_warp_access_bytes) {
      run.left_out.push_back(pattern.name);
      continue;
    }
    kept.push_back(pattern);
    batch.push_back(spec);
  }
  if (batch.empty()) throw ProbeSkipped("no access pattern fits the shared memory of a block");
  const std::vector<Trace> traces = ctx.run_warp_access(batch);

  double overhead_sum = 0, clock_sum = 0;
  bool clock_known = true;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const Trace& trace = traces[i];
    run.measured.push_back(
        {kept[i], summarize(corrected_cycles(trace)), summarize(raw_cycles(trace))});
    overhead_sum += trace.overhead_cycles;
    clock_sum += trace.clock_khz;
    clock_known = clock_known && trace.clock_khz > 0;
    run.sm = trace.sm_id;
  }
  const auto n = static_cast<double>(traces.size());
  run.overhead_cycles = overhead_sum / n;
  run.clock_khz = clock_known ? clock_sum / n : 0;
  return run;
}

}  // namespace memtopo
