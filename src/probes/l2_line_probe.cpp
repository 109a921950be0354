#include "probes/l2_line_probe.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/linesize.hpp"
#include "analysis/stats.hpp"
#include "probes/chase_helpers.hpp"
#include "probes/elements.hpp"

namespace memtopo {
namespace {

// Hit baseline: a warm chase over a footprint of many lines (so that near and far partitions
// both answer) that any L2 holds and no L1 is involved in (the path skips L1).
constexpr std::uint64_t kHitFootprintBytes = 64 * 1024;
constexpr std::uint32_t kHitStrideBytes = 32;
// Miss baseline: cold, flushed, one load per 1 KiB (a new line and sector every time).
constexpr std::uint32_t kMissStrideBytes = 1024;
constexpr std::uint32_t kSamples = 4096;
// The timed cold chase at 4 B stride.
constexpr std::uint32_t kGapsTimedLoads = 4096;
// Affordability of the capacity-per-stride line method: loads of one classification chase at
// the smallest prime stride (7 x 32 B) over 3/4 of 7 x the size, warm + 2 timed passes.
constexpr std::uint64_t kLinePrime = 7;
constexpr std::uint64_t kSmallestUnitBytes = 32;
constexpr std::uint64_t kPassesPerChase = 3;

ChaseSpec alone(LoadPath path, std::uint64_t footprint, std::uint32_t stride, std::uint32_t warm,
                std::uint32_t timed, bool flush, std::uint64_t seed) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = stride;
  spec.order = warm > 0 ? ChaseOrder::random_permutation : ChaseOrder::sequential;
  spec.seed = seed;
  spec.warm_passes = warm;
  spec.timed_loads = timed;
  spec.flush_device_caches = flush;
  return spec;
}

}  // namespace

void measure_device_cache_sector(ProbeContext& ctx, const LineTarget& target,
                                 const std::string& id) {
  const BackendLimits limits = ctx.backend.limits();
  const std::uint32_t samples = std::min(kSamples, limits.max_timed_loads);
  const std::uint64_t miss_footprint = std::uint64_t{samples} * kMissStrideBytes;
  if (miss_footprint > limits.max_footprint_bytes) {
    throw ProbeSkipped("the backend cannot chase " + format_bytes(miss_footprint));
  }
  // Device-wide: every chase alone (a batch of one), so that no other chase disturbs it.
  std::uint64_t loads = 0;
  auto run_alone = [&](const ChaseSpec& spec, const std::string& phase) {
    loads += loads_of(spec);
    return std::move(ctx.run(std::vector<ChaseSpec>{spec}, id + "/" + phase).front());
  };
  ctx.progress(id + ": hit and DRAM baselines, then a cold 4 B-stride chase");
  const Trace hit_trace = run_alone(
      alone(target.path, kHitFootprintBytes, kHitStrideBytes, 1, samples, false, ctx.seed), "hit");
  const Trace miss_trace = run_alone(
      alone(target.path, miss_footprint, kMissStrideBytes, 0, samples, true, ctx.seed), "miss");
  const Spread hit = summarize(corrected_cycles(hit_trace));
  const Spread miss = summarize(corrected_cycles(miss_trace));
  // The slowest typical hit (p95: far partitions) against the fastest typical miss (p5).
  if (!(hit.p95 < miss.p5)) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, ": hit p95 %.1f cycles, DRAM p5 %.1f", hit.p95, miss.p5);
    throw ProbeSkipped("the level's hits and DRAM answers overlap" + std::string(numbers));
  }
  const double threshold = 0.5 * (hit.p95 + miss.p5);
  const std::uint32_t timed = std::min(kGapsTimedLoads, limits.max_timed_loads);
  ChaseSpec cold = alone(target.path, std::uint64_t{timed} * 4, 4, 0, timed, true, ctx.seed);
  const Trace trace = run_alone(cold, "gaps");
  const auto cycles = corrected_cycles(trace);
  const GapEstimate gaps = estimate_fetch_granularity(cycles, trace.indices, threshold);

  Property p;
  p.name = "sector";
  p.unit = "bytes";
  p.source = Source::measured;
  char method[400];
  std::snprintf(method, sizeof method,
                "cold fine-grained pointer chase via %s (device caches flushed, no warm pass): "
                "%u timed loads at 4 B stride, sequential, alone on the device; the mode of the "
                "byte gaps between accesses slower than %.1f cycles (midpoint of the warm hit "
                "p95 and the cold 1 KiB-stride DRAM p5)",
                std::string(to_string(target.path)).c_str(), timed, threshold);
  p.method = method;
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [gap, count] : gaps.histogram) histogram[std::to_string(gap)] = count;
  p.evidence = {{"path", to_string(target.path)},
                {"timed_loads", timed},
                {"threshold_cycles", threshold},
                {"hit_cycles", spread_evidence(hit)},
                {"dram_cycles", spread_evidence(miss)},
                {"slow_accesses", gaps.slow_accesses},
                {"gaps", gaps.gaps},
                {"mode_gap_bytes", gaps.mode_gap_bytes},
                {"median_gap_bytes", gaps.median_gap_bytes},
                {"consistency", gaps.consistency},
                {"gap_histogram_bytes", std::move(histogram)},
                {"cost", {{"batches", 3}, {"loads", loads}}}};
  if (gaps.granularity_bytes) {
    p.value = *gaps.granularity_bytes;
    p.confidence = gaps.consistency;
    p.spread = summarize(cycles);
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = gaps.note;
  }
  element_for(ctx.topology, target.element).set(std::move(p));
}

void report_device_cache_line(ProbeContext& ctx, const LineTarget& target, const std::string& id) {
  (void)id;
  const std::uint64_t l2_api = ctx.backend.facts().l2_bytes;
  Property p;
  p.name = "line";
  p.unit = "bytes";
  p.source = Source::measured;
  p.value = nullptr;
  p.inconclusive = true;
  p.method =
      "not measured: capacity in elements per stride (the L1 method) needs a chain of at "
      "least size / line distinct lines per chase";
  // What the L1 method would cost here: one classification chase at the smallest prime stride
  // alone covers 3/4 of 7 x the size.
  const std::uint64_t elements = l2_api * kLinePrime * 3 / 4 / (kLinePrime * kSmallestUnitBytes);
  const std::uint64_t loads = elements * kPassesPerChase;
  p.evidence = {{"api_size_bytes", l2_api},
                {"smallest_classification_chase_loads", loads},
                {"max_timed_loads_per_chase", ctx.backend.limits().max_timed_loads},
                {"why", "a sectored cache fetches sectors (see " + target.element +
                            ".sector), so no cold chase shows the line; only the capacity at "
                            "strides around it does, and each such chase must hold more "
                            "lines than the cache"}};
  p.note =
      "inconclusive: the line shows only in the capacity at strides around it, and one "
      "chase of that method on this " +
      (l2_api ? format_bytes(l2_api) : std::string("L2")) + " cache takes about " +
      std::to_string(loads) +
      " loads (several are needed, each alone on the device): not affordable; the sector "
      "is measured";
  element_for(ctx.topology, target.element).set(std::move(p));
}

}  // namespace memtopo
