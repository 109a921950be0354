#include "probes/line/constant_line_probe.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "analysis/linesize.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"

namespace memtopo {

namespace {

// One word: every byte of a line is on the chain, so in a cold pass the first load of a line is
// its only miss and the spacing of misses is the line.
constexpr std::uint32_t kStrideBytes = 4;
// The footprint: a few times the constant L1, and enough lines of the largest line this probe
// resolves (twice the 256 B L1.5 line of Kepler to Hopper) for twice the gaps the gap rule needs.
// One cold pass visits every line once, so a footprint beyond a cache's size does no harm.
constexpr std::uint64_t kL1SizeMultiple = 4;
constexpr std::uint64_t kLargestResolvedLineBytes = 512;
constexpr std::uint64_t kLinesOfLargestLine = 2 * GapRule{}.min_gaps;
// Fewer accesses beyond a level than the gaps the gap rule needs are no class of misses (rare
// outliers, an interrupt): the level then counts as never missed.
constexpr std::size_t kMinBeyondAccesses = GapRule{}.min_gaps + 1;
// Without an L1.5 latency, the accesses slower than this multiple of the L1 latency are the
// misses whose p50 sets the L1 threshold (require_clearly_faster's sense of "clearly slower").
constexpr double kClearlySlowerFactor = 1.5;
// A line of the L1.5 that is not a whole number of L1 lines contradicts the inclusive fill
// (an L1.5 miss fills the L1 line inside the L1.5 line): the L1.5 value stands, less sure.
constexpr double kIncoherentLinesPenalty = 0.5;

const char* const kL1 = "constant_l1";
const char* const kL15 = "constant_l15";

// A number the run measured (not an API value, not inconclusive), or nothing.
std::optional<double> measured_value(const Topology& topology, const std::string& element,
                                     const std::string& property) {
  const Element* e = topology.find(element);
  const Property* p = e ? e->find(property) : nullptr;
  if (!p || p->source != Source::measured || p->inconclusive || !p->value.is_number()) {
    return std::nullopt;
  }
  return p->value.get<double>();
}

// The accesses slower than `above`: the class of answers from beyond a level.
std::vector<double> slower_than(std::span<const double> cycles, double above) {
  std::vector<double> out;
  std::copy_if(cycles.begin(), cycles.end(), std::back_inserter(out),
               [&](double c) { return c > above; });
  return out;
}

// Why a level's line cannot be read: its misses are missing from a pass that had to miss.
std::string too_few_beyond(const std::string& level, std::size_t beyond, double floor_cycles) {
  return std::to_string(beyond) + " accesses of the cold pass were slower than the constant " +
         level + " (above " + std::to_string(static_cast<int>(floor_cycles)) + " cycles; " +
         std::to_string(kMinBeyondAccesses) +
         " needed): the constant caches were not cold there, no line to read off the pass";
}

Property line_property(const std::string& method, const nlohmann::json& evidence) {
  Property p;
  p.name = "line";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = method;
  p.evidence = evidence;
  return p;
}

void set_inconclusive(Property& p, const std::string& why) {
  p.value = nullptr;
  p.inconclusive = true;
  p.note = why;
}

// The line from the gaps, or inconclusive with the analysis' reason.
void set_from_gaps(Property& p, const GapEstimate& gaps, double threshold_cycles) {
  p.evidence["gaps"] = gap_evidence(gaps, threshold_cycles);
  if (gaps.slow_accesses == 0) {
    // A pass that had to miss did not: the caches were warm, and no line can be read off it.
    return set_inconclusive(p, "no access of the cold pass was slower than " +
                                   std::to_string(static_cast<int>(threshold_cycles)) +
                                   " cycles: the constant caches were not cold");
  }
  if (!gaps.granularity_bytes) return set_inconclusive(p, gaps.note);
  p.value = *gaps.granularity_bytes;
  p.confidence = gaps.consistency;
}

}  // namespace

std::string ConstantLineProbe::description() const {
  return "constant L1 and L1.5 line sizes: spacing of each level's misses in one cold 4 B-stride "
         "ld.const chase";
}

void ConstantLineProbe::run(ProbeContext& ctx) {
  const auto l1_size = measured_value(ctx.topology, kL1, "size");
  const auto l1_latency = measured_value(ctx.topology, kL1, "latency");
  if (!l1_size || !l1_latency || *l1_size <= 0) {
    throw ProbeSkipped(
        "needs a measured constant_l1.size and constant_l1.latency (absent or inconclusive in "
        "this run)");
  }
  // An L1.5 no slower than L1 is no level to tell apart.
  const std::optional<double> l15_latency = [&]() -> std::optional<double> {
    const auto latency = measured_value(ctx.topology, kL15, "latency");
    if (latency && *latency > *l1_latency) return latency;
    return std::nullopt;
  }();

  const BackendLimits limits = ctx.backend.limits();
  const std::uint64_t wanted = std::max(kL1SizeMultiple * static_cast<std::uint64_t>(*l1_size),
                                        kLinesOfLargestLine * kLargestResolvedLineBytes);
  const std::uint64_t footprint =
      round_down(std::min({wanted, limits.max_constant_footprint_bytes,
                           std::uint64_t{limits.max_timed_loads} * kStrideBytes}),
                 kStrideBytes);
  if (footprint < 2 * kStrideBytes)
    throw ProbeSkipped("the backend cannot chase the constant bank");

  // Cold: no warm pass, and one timed pass, so that every line's first load is its miss.
  ChaseSpec spec;
  spec.path = LoadPath::constant;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = kStrideBytes;
  spec.order = ChaseOrder::sequential;
  spec.seed = ctx.seed;
  spec.warm_passes = 0;
  spec.timed_loads = static_cast<std::uint32_t>(footprint / kStrideBytes);
  ctx.progress(id() + ": one cold pass over " + format_bytes(footprint));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ChaseSpec> batch = {spec};
  const Trace trace = ctx.run(batch, id() + "/cold").front();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::vector<double> cycles = corrected_cycles(trace);

  // The thresholds: L1 midway between the L1 and L1.5 latencies; L1.5 midway between the L1.5
  // latency and the p50 of the accesses clearly beyond it (as far above the L1.5 latency as the
  // L1 threshold lies below it). Without an L1.5 latency, the L1 threshold lies midway between
  // the L1 latency and the p50 of the accesses clearly slower than L1.
  std::optional<double> l1_threshold;
  std::optional<double> l15_threshold;
  double beyond_floor = 0;
  std::vector<double> beyond;
  if (l15_latency) {
    l1_threshold = 0.5 * (*l1_latency + *l15_latency);
    beyond_floor = *l15_latency + (*l15_latency - *l1_threshold);
    beyond = slower_than(cycles, beyond_floor);
    if (beyond.size() >= kMinBeyondAccesses) {
      l15_threshold = 0.5 * (*l15_latency + median(beyond));
    }
  } else {
    beyond_floor = kClearlySlowerFactor * *l1_latency;
    beyond = slower_than(cycles, beyond_floor);
    if (beyond.size() >= kMinBeyondAccesses) l1_threshold = 0.5 * (*l1_latency + median(beyond));
  }

  const std::string chase_method =
      "one cold sequential ld.const chase, " + format_bytes(kStrideBytes) +
      " stride, no warm pass, one timed pass of " + std::to_string(spec.timed_loads) +
      " loads over " + format_bytes(footprint) +
      " (a constant bank just uploaded is cold in the SM's constant caches; the simulator starts "
      "every chase cold)";
  nlohmann::json evidence = {
      {"footprint_bytes", footprint},
      {"stride_bytes", kStrideBytes},
      {"timed_loads", spec.timed_loads},
      {"sm", trace.sm_id},
      {"constant_l1_latency_cycles", *l1_latency},
      {"constant_l15_latency_cycles", l15_latency ? nlohmann::json(*l15_latency) : nullptr},
      {"beyond_floor_cycles", beyond_floor},
      {"beyond_cycles",
       beyond.empty() ? nlohmann::json(nullptr) : spread_evidence(summarize(beyond))},
      {"cycles", spread_evidence(summarize(cycles))},
      {"cost", {{"batches", 1}, {"loads", loads_of(spec)}, {"seconds", seconds}}}};

  Property l1_line = line_property(
      chase_method +
          "; line = the mode of the byte gaps between consecutive accesses slower than " +
          (l15_latency ? "midway between the constant L1 and L1.5 latencies"
                       : "midway between the constant L1 latency and the p50 of the accesses "
                         "clearly slower than it (no L1.5 latency measured)"),
      evidence);
  std::optional<GapEstimate> l1_gaps;
  if (l1_threshold) {
    l1_gaps = estimate_fetch_granularity(cycles, trace.indices, *l1_threshold);
    set_from_gaps(l1_line, *l1_gaps, *l1_threshold);
  } else {
    // No miss in a pass that had to miss: the caches were warm, and nothing can be read off it.
    set_inconclusive(l1_line, too_few_beyond("L1", beyond.size(), beyond_floor));
  }

  Property l15_line = line_property(
      chase_method +
          "; line = the mode of the byte gaps between consecutive accesses slower than midway "
          "between the constant L1.5 latency and the p50 of the accesses beyond it",
      evidence);
  if (!l15_latency) {
    set_inconclusive(l15_line,
                     "needs a measured constant_l15.latency above constant_l1.latency (absent or "
                     "inconclusive in this run)");
  } else if (!l15_threshold) {
    set_inconclusive(l15_line, too_few_beyond("L1.5", beyond.size(), beyond_floor));
  } else {
    const GapEstimate l15_gaps = estimate_fetch_granularity(cycles, trace.indices, *l15_threshold);
    set_from_gaps(l15_line, l15_gaps, *l15_threshold);
    if (l15_gaps.granularity_bytes && l1_gaps && l1_gaps->granularity_bytes &&
        *l15_gaps.granularity_bytes % *l1_gaps->granularity_bytes != 0) {
      *l15_line.confidence *= kIncoherentLinesPenalty;
      l15_line.note = "not a whole number of constant L1 lines (" +
                      std::to_string(*l1_gaps->granularity_bytes) + " B)";
    }
  }
  element_for(ctx.topology, kL1).set(std::move(l1_line));
  element_for(ctx.topology, kL15).set(std::move(l15_line));
}

}  // namespace memtopo
