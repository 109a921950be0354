// l2.fetch_granularity: the spacing of misses in a cold (flushed) 4 B-stride chase, with a
// threshold between the level's warm hits and DRAM measured first (l2_line_probe.hpp). What a
// miss brings into the L2 from DRAM, which need not be the L2's sector: an H200 reads 64 B where
// NVIDIA documents 32 B sectors (a miss fetches two). Until this name existed the probe wrote it
// as l2.sector; that name stays, deprecated, with the same value (kDeprecatedSectorNote).
#include <algorithm>
#include <cstdio>

#include "analysis/linesize.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/line/alone_chases.hpp"
#include "probes/line/l2_line_probe.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {
namespace {

// Hit baseline: a warm chase over a footprint of many lines (so that near and far partitions
// both answer) that any L2 holds and no L1 is involved in (the path skips L1).
constexpr std::uint64_t kHitFootprintBytes = 64 * 1024;
// Miss baseline: cold, flushed, one load per 1 KiB (a new line and sector every time).
constexpr std::uint32_t kMissStrideBytes = 1024;
// Timed loads of each baseline and of the cold chase at 4 B stride.
constexpr std::uint32_t kSamples = 4096;
constexpr std::uint32_t kGapsTimedLoads = 4096;

struct HitAndDram {
  Spread hit;
  Spread dram;
  double threshold_cycles = 0;
};

// The level's warm hits and cold DRAM answers, and the threshold between the slowest typical hit
// (p95: far partitions) and the fastest typical miss (p5): their midpoint. Skips when they
// overlap.
HitAndDram hit_and_dram(AloneChases& chases, const LineTarget& target, std::uint64_t seed,
                        std::uint32_t samples) {
  const std::uint64_t miss_footprint = std::uint64_t{samples} * kMissStrideBytes;
  const Trace hit_trace = chases.run(make_chase(target.path, kHitFootprintBytes, kSmallestLineBytes)
                                         .random(seed)
                                         .timed_loads(samples),
                                     "hit");
  const Trace miss_trace = chases.run(make_chase(target.path, miss_footprint, kMissStrideBytes)
                                          .warm_passes(0)
                                          .timed_loads(samples)
                                          .flush_device_caches(),
                                      "miss");
  HitAndDram out;
  out.hit = summarize(corrected_cycles(hit_trace));
  out.dram = summarize(corrected_cycles(miss_trace));
  if (!(out.hit.p95 < out.dram.p5)) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, ": hit p95 %.1f cycles, DRAM p5 %.1f", out.hit.p95,
                  out.dram.p5);
    throw ProbeSkipped("the level's hits and DRAM answers overlap" + std::string(numbers));
  }
  out.threshold_cycles = (out.hit.p95 + out.dram.p5) / 2;
  return out;
}

// Why l2.sector is still written, and what to read instead (README.md, "Stable names").
constexpr const char* kDeprecatedSectorNote =
    "deprecated name, kept within JSON schema 1 for scripts: the value is l2.fetch_granularity, "
    "what a miss fetches from DRAM (the spacing of misses in a cold 4 B-stride chase), not the "
    "L2's sector, which this chase cannot see when a miss fetches more than one";

std::string sector_method(const LineTarget& target, std::uint32_t timed, double threshold) {
  char method[400];
  std::snprintf(method, sizeof method,
                "cold fine-grained pointer chase via %s (device caches flushed, no warm pass): "
                "%u timed loads at 4 B stride, sequential, alone on the device; the mode of the "
                "byte gaps between accesses slower than %.1f cycles (midpoint of the warm hit "
                "p95 and the cold 1 KiB-stride DRAM p5)",
                std::string(to_string(target.path)).c_str(), timed, threshold);
  return method;
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
  AloneChases chases(ctx, id);
  ctx.progress(id + ": hit and DRAM baselines, then a cold 4 B-stride chase");
  const HitAndDram baselines = hit_and_dram(chases, target, ctx.seed, samples);
  const double threshold = baselines.threshold_cycles;
  const std::uint32_t timed = std::min(kGapsTimedLoads, limits.max_timed_loads);
  const Trace trace =
      chases.run(make_chase(target.path, std::uint64_t{timed} * kWordBytes, kWordBytes)
                     .warm_passes(0)
                     .timed_loads(timed)
                     .flush_device_caches(),
                 "gaps");
  const auto cycles = corrected_cycles(trace);
  const GapEstimate gaps = estimate_fetch_granularity(cycles, trace.indices, threshold);

  Property p;
  p.name = "fetch_granularity";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = sector_method(target, timed, threshold);
  p.evidence = gap_evidence(gaps, threshold);
  p.evidence.update({{"path", to_string(target.path)},
                     {"timed_loads", timed},
                     {"hit_cycles", spread_evidence(baselines.hit)},
                     {"dram_cycles", spread_evidence(baselines.dram)},
                     {"cost", chases.cost_evidence()}});
  set_granularity(p, gaps, cycles);
  Element& element = element_for(ctx.topology, target.element);
  Property deprecated = p;
  deprecated.name = "sector";
  deprecated.note = (p.note.empty() ? "" : p.note + "; ") + kDeprecatedSectorNote;
  deprecated.evidence["deprecated"] = {{"replaced_by", target.element + ".fetch_granularity"},
                                       {"why", kDeprecatedSectorNote}};
  element.set(std::move(p));
  element.set(std::move(deprecated));
}

}  // namespace memtopo
