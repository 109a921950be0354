#include "probes/latency/latency_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <span>

#include "analysis/histogram.hpp"
#include "analysis/staircase.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/latency_modes.hpp"
#include "probes/core/region_order.hpp"

namespace memtopo {

const std::vector<LatencyTarget>& latency_targets() {
  static const std::vector<LatencyTarget> table = {
      {"l1", LoadPath::ca, LatencyFootprint::inside_element, 32, 1, false,
       LatencyOrder::random_permutation, false, LoadPath::cg,
       "global loads are not cached in L1 (ca ≈ cg)",
       "L1 data cache hit latency: warm pointer chase over ld.global.ca"},
      {"tex", LoadPath::tex, LatencyFootprint::inside_element, 32, 1, false,
       LatencyOrder::random_permutation, false, LoadPath::cg,
       "texture fetches are not cached on the SM (tex ≈ cg)",
       "texture cache hit latency: warm pointer chase over tex1Dfetch"},
      {"ro", LoadPath::nc, LatencyFootprint::inside_element, 32, 1, false,
       LatencyOrder::random_permutation, false, LoadPath::cg,
       "read-only loads are not cached on the SM (nc ≈ cg)",
       "read-only cache hit latency: warm pointer chase over ld.global.nc"},
      {"shared", LoadPath::shared, LatencyFootprint::inside_element, 32, 1, false,
       LatencyOrder::random_permutation, false, std::nullopt, "",
       "shared memory latency: warm pointer chase over ld.shared"},
      {"l2", LoadPath::cg, LatencyFootprint::beyond_l1_within_l2, 32, 1, false,
       LatencyOrder::region_sampled, true, std::nullopt, "",
       "L2 hit latency: warm pointer chase over ld.global.cg, footprint between L1 and L2",
       /*near_mode_headline=*/true, "the far partitions: l2.far_latency"},
      // DRAM: 1 KiB apart, so that no two loads share a line or a sector and nothing is ever
      // warm; random inside 64 KiB regions taken one after the other, no larger than any page
      // size GPUs map device memory with, so that the TLB misses at most on a page's first load
      // and the latency is DRAM's, not the TLB's.
      // Lines behind a far L2 partition come from DRAM through it: on an H200 about 175 cycles
      // slower (540 and 715), as far L2 hits are.
      {"dram", LoadPath::cg, LatencyFootprint::beyond_l2, 1024, 0, true,
       LatencyOrder::page_local_random, true, std::nullopt, "",
       "DRAM latency: cold pointer chase over ld.global.cg after flushing L2",
       /*near_mode_headline=*/true, "lines behind the far L2 partitions"},
  };
  return table;
}

namespace {

constexpr std::uint32_t kConcurrentChases = 4;
// A chase alone (a device-wide level) takes what kConcurrentChases chases of kBaselineSamples
// would otherwise pool.
constexpr std::uint32_t kSamplesAlone = 4096;
// With no API L2 size to plan from: a footprint for L2 hits, and one far beyond any L2.
constexpr std::uint64_t kFallbackL2FootprintBytes = 1ull << 20;
constexpr std::uint64_t kFallbackDramFootprintBytes = 1ull << 30;
// The corrected samples' distribution kept in the evidence, for the reports' plot: enough bins
// to show two modes (near and far L2) at whole cycles, few enough to keep the JSON small.
constexpr std::size_t kHistogramBins = 64;

nlohmann::json histogram_json(const Histogram& histogram) {
  return {{"from_cycles", histogram.from},
          {"bin_cycles", histogram.bin_width},
          {"counts", histogram.counts},
          {"below", histogram.below},
          {"above", histogram.above}};
}

class LatencyMeasurement {
 public:
  LatencyMeasurement(ProbeContext& ctx, const LatencyTarget& target)
      : ctx_(ctx), target_(target), limits_(ctx.backend.limits()) {}
  void run();

 private:
  std::string id() const { return target_.element + ".latency"; }
  std::uint64_t plan_footprint(std::string& why) const;
  ChaseSpec plan_chase(LoadPath path, std::uint64_t footprint, std::uint32_t samples,
                       std::uint64_t seed) const;
  std::vector<ChaseSpec> plan_batch(std::uint64_t footprint, std::uint32_t chases,
                                    std::uint32_t samples) const;
  void report(std::uint64_t footprint, const std::string& footprint_why, std::uint32_t chases,
              std::span<const Trace> traces);

  ProbeContext& ctx_;
  const LatencyTarget& target_;
  BackendLimits limits_;
};

std::uint64_t LatencyMeasurement::plan_footprint(std::string& why) const {
  const std::uint64_t l2_api = ctx_.backend.facts().l2_bytes;
  const std::uint64_t stride = target_.stride_bytes;
  std::uint64_t cap = target_.path == LoadPath::shared     ? limits_.max_shared_footprint_bytes
                      : target_.path == LoadPath::constant ? limits_.max_constant_footprint_bytes
                                                           : limits_.max_footprint_bytes;
  std::uint64_t footprint = 0;
  switch (target_.footprint) {
    case LatencyFootprint::inside_element: {
      if (const auto size = finding_count(ctx_.topology, target_.element, "size")) {
        footprint = *size / 4;
        why = "a quarter of the measured " + target_.element + ".size";
      } else {
        footprint = kFitsAnyCacheBytes;
        why = "small (no measured " + target_.element + ".size)";
      }
      break;
    }
    case LatencyFootprint::beyond_l1_within_l2: {
      // Sizes of this run only (never an API value or a bound); 0 when not measured.
      const std::uint64_t l1 = finding_count(ctx_.topology, "l1", "size").value_or(0);
      if (l2_api > 0) {
        // Much smaller than L2 (1/16 of the API size), but at least twice the measured L1.
        footprint = std::max(floor_power_of_two(l2_api / 16), 2 * l1);
        footprint = std::min(footprint, l2_api / 2);
        why = "1/16 of the API L2 size, above twice the measured L1";
      } else {
        footprint = l1 > 0 ? 2 * l1 : kFallbackL2FootprintBytes;
        why = "no API L2 size: twice the measured L1, or 1 MiB";
      }
      break;
    }
    case LatencyFootprint::beyond_l2:
      // The chain itself needs one stride per sample; the footprint around it is kept far larger
      // than L2, so that nothing of it can be an L2 hit even where a flush is imperfect.
      footprint = std::max(l2_api > 0 ? 4 * l2_api : kFallbackDramFootprintBytes,
                           std::uint64_t{kSamplesAlone} * stride);
      why = l2_api > 0 ? "4x the API L2 size" : "no API L2 size: 1 GiB";
      break;
  }
  if (footprint > cap) {
    footprint = cap;
    why += ", capped by the backend";
  }
  footprint = round_down(footprint, stride);
  if (footprint < stride)
    throw ProbeSkipped("the backend cannot chase one " + format_bytes(stride) + " element");
  return footprint;
}

ChaseSpec LatencyMeasurement::plan_chase(LoadPath path, std::uint64_t footprint,
                                         std::uint32_t samples, std::uint64_t seed) const {
  ChaseBuilder chase =
      make_chase(path, footprint, target_.stride_bytes).warm_passes(target_.warm_passes);
  if (target_.flush_device_caches) chase.flush_device_caches();
  if (target_.order != LatencyOrder::random_permutation && footprint >= kRegionBytes) {
    auto indices = region_ordered_indices(
        footprint, target_.stride_bytes, samples, seed,
        target_.order == LatencyOrder::region_sampled ? RegionCover::every_region
                                                      : RegionCover::whole_regions);
    // A cold chain loads each element once; a warm one goes round its cycle as often as the
    // samples need (a footprint of fewer elements than samples).
    const auto loads = target_.order == LatencyOrder::region_sampled
                           ? samples
                           : static_cast<std::uint32_t>(indices.size());
    chase.visiting(std::move(indices)).timed_loads(loads);
  } else {
    chase.random(seed).timed_loads(samples);
  }
  return std::move(chase).spec();
}

std::vector<ChaseSpec> LatencyMeasurement::plan_batch(std::uint64_t footprint, std::uint32_t chases,
                                                      std::uint32_t samples) const {
  std::vector<ChaseSpec> batch;
  for (std::uint32_t c = 0; c < chases; ++c) {
    batch.push_back(plan_chase(target_.path, footprint, samples, ctx_.seed + c));
  }
  // The reference chase (the first chase's, on the path that skips the level) only decides
  // whether the level exists; it may share the batch.
  if (target_.must_beat) {
    batch.push_back(plan_chase(*target_.must_beat, footprint, samples, ctx_.seed));
  }
  return batch;
}

// The timed loads of several chases as one sample, with what each chase measured alongside.
struct PooledChases {
  std::vector<double> corrected;
  std::vector<double> raw;
  nlohmann::json per_chase = nlohmann::json::array();
  nlohmann::json sms = nlohmann::json::array();
  double mean_overhead_cycles = 0;
  std::optional<double> mean_clock_khz;  // unset when any chase could not measure its clock
  Histogram histogram;                   // of the corrected loads, for the reports' plot
};

PooledChases pool(std::span<const Trace> traces) {
  PooledChases pooled;
  double clock_sum = 0, overhead_sum = 0;
  bool clock_known = true;
  for (const Trace& t : traces) {
    const auto corrected = corrected_cycles(t);
    const auto raw = raw_cycles(t);
    pooled.corrected.insert(pooled.corrected.end(), corrected.begin(), corrected.end());
    pooled.raw.insert(pooled.raw.end(), raw.begin(), raw.end());
    pooled.sms.push_back(t.sm_id);
    pooled.per_chase.push_back({{"sm", t.sm_id},
                                {"overhead_cycles", t.overhead_cycles},
                                {"clock_khz", t.clock_khz},
                                {"p50_cycles", median(corrected)}});
    clock_sum += t.clock_khz;
    overhead_sum += t.overhead_cycles;
    clock_known = clock_known && t.clock_khz > 0;
  }
  const auto n = static_cast<double>(traces.size());
  pooled.histogram = make_histogram(pooled.corrected, kHistogramBins);
  pooled.mean_overhead_cycles = overhead_sum / n;
  if (clock_known) pooled.mean_clock_khz = clock_sum / n;
  return pooled;
}

// Skips the probe unless the level answers clearly faster than the reference path; returns the
// reference's evidence.
nlohmann::json check_level_exists(const LatencyTarget& target, const Spread& level,
                                  const Trace& reference_trace) {
  const Spread reference = summarize(corrected_cycles(reference_trace));
  require_clearly_faster(level, reference, target.path, *target.must_beat, target.skip_reason);
  return {{"path", to_string(*target.must_beat)}, {"cycles", spread_evidence(reference)}};
}

void LatencyMeasurement::run() {
  std::string footprint_why;
  const std::uint64_t footprint = plan_footprint(footprint_why);
  const std::uint32_t chases =
      target_.run_alone ? 1
                        : std::clamp<std::uint32_t>(limits_.concurrent_slots, 1, kConcurrentChases);
  const std::uint32_t samples =
      std::min(target_.run_alone ? kSamplesAlone : kBaselineSamples, limits_.max_timed_loads);
  ctx_.progress(id() + ": " + std::to_string(chases) + " chase(s) over " + format_bytes(footprint));
  const std::vector<Trace> traces = ctx_.run(plan_batch(footprint, chases, samples), id());
  report(footprint, footprint_why, chases, traces);
}

void LatencyMeasurement::report(std::uint64_t footprint, const std::string& footprint_why,
                                std::uint32_t chases, std::span<const Trace> traces) {
  PooledChases pooled = pool(traces.first(chases));
  const std::size_t loads = pooled.corrected.size();
  const LatencyDescription d =
      describe_latency({std::move(pooled.corrected), std::move(pooled.raw)},
                       target_.near_mode_headline, "timed loads");
  nlohmann::json reference = nullptr;
  if (target_.must_beat) reference = check_level_exists(target_, d.value, traces.back());

  Property p;
  p.name = "latency";
  p.unit = "cycles";
  p.source = Source::measured;
  const std::string order =
      target_.order == LatencyOrder::page_local_random
          ? "random within " + format_bytes(kRegionBytes) + " regions"
      : target_.order == LatencyOrder::region_sampled && footprint >= kRegionBytes
          ? "every " + format_bytes(kRegionBytes) + " region in turn, random elements in each"
          : "random order";
  p.method =
      "fine-grained pointer chase via " + std::string(to_string(target_.path)) + ", " +
      format_bytes(footprint) + " footprint, " + format_bytes(target_.stride_bytes) + " stride, " +
      order + ", " + std::to_string(target_.warm_passes) + " warm pass(es)" +
      (target_.flush_device_caches ? ", L2 flushed" : "") + "; p50 of " +
      (d.modes.empty() ? std::to_string(loads)
                       : "the near mode, " + std::to_string(d.value.samples) + " of " +
                             std::to_string(loads)) +
      " timed loads on " + std::to_string(chases) + " SM(s), timing overhead subtracted";
  p.evidence = {
      {"path", to_string(target_.path)},
      {"footprint_bytes", footprint},
      {"footprint_rule", footprint_why},
      {"stride_bytes", target_.stride_bytes},
      {"order", order},
      {"warm_passes", target_.warm_passes},
      {"flushed", target_.flush_device_caches},
      {"samples", loads},
      {"sm", std::move(pooled.sms)},
      {"overhead_cycles", pooled.mean_overhead_cycles},
      {"clock_khz", pooled.mean_clock_khz ? nlohmann::json(*pooled.mean_clock_khz) : nullptr},
      {"chases", std::move(pooled.per_chase)},
      {"reference", std::move(reference)},
      {"histogram", histogram_json(pooled.histogram)},
  };
  set_latency(p, d, pooled.mean_clock_khz.value_or(0));
  if (d.value.p50 <= 0) {
    p.inconclusive = true;
    p.note = "the timing overhead swallowed the latency";
  } else {
    // How well one number describes the level: jitter keeps the share near 1; frequent TLB
    // misses pull it down. Where the loads split in two, the near mode's confidence: that it
    // is a mode, with this p50.
    set_confidence(p, d.confidence);
    if (!d.modes.empty()) {
      p.note = near_mode_note(d, target_.far_mode);
    } else if (*p.confidence < kSeveralLatenciesBelow) {
      p.note =
          "loads answered at more than one latency (e.g. near and far L2 partitions); the p50 "
          "describes only some of them";
    }
  }
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

}  // namespace

void LatencyProbe::run(ProbeContext& ctx) {
  LatencyMeasurement(ctx, target_).run();
}

}  // namespace memtopo
