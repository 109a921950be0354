#include "probes/constant/constant_line_probe.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "analysis/confidence.hpp"
#include "analysis/linesize.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {

namespace {

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

const char* const kL1 = "constant_l1";
const char* const kL15 = "constant_l15";

// The staircase's findings the probe plans from.
struct ConstantLevels {
  double l1_size = 0;
  double l1_latency = 0;
  std::optional<double> l15_latency;  // only when slower than L1: a level to tell apart
};

ConstantLevels read_levels(const Topology& topology) {
  const auto l1_size = finding_value(topology, kL1, "size");
  const auto l1_latency = finding_value(topology, kL1, "latency");
  if (!l1_size || !l1_latency || *l1_size <= 0) {
    throw ProbeSkipped(
        "needs a measured constant_l1.size and constant_l1.latency (absent or inconclusive in "
        "this run)");
  }
  ConstantLevels levels{*l1_size, *l1_latency, std::nullopt};
  const auto l15_latency = finding_value(topology, kL15, "latency");
  if (l15_latency && *l15_latency > *l1_latency) levels.l15_latency = l15_latency;
  return levels;
}

// One cold pass: no warm pass and one timed pass, so that every line's first load is its miss.
ChaseSpec plan_cold_pass(const BackendLimits& limits, const ConstantLevels& levels) {
  const std::uint64_t wanted =
      std::max(kL1SizeMultiple * static_cast<std::uint64_t>(levels.l1_size),
               kLinesOfLargestLine * kLargestResolvedLineBytes);
  const std::uint64_t footprint =
      round_down(std::min({wanted, limits.max_constant_footprint_bytes,
                           std::uint64_t{limits.max_timed_loads} * kWordBytes}),
                 kWordBytes);
  if (footprint < 2 * kWordBytes) throw ProbeSkipped("the backend cannot chase the constant bank");
  return make_chase(LoadPath::constant, footprint, kWordBytes)
      .warm_passes(0)
      .timed_loads(static_cast<std::uint32_t>(footprint / kWordBytes));
}

// The accesses slower than `above`: the class of answers from beyond a level.
std::vector<double> slower_than(std::span<const double> cycles, double above) {
  std::vector<double> out;
  std::copy_if(cycles.begin(), cycles.end(), std::back_inserter(out),
               [&](double c) { return c > above; });
  return out;
}

// The thresholds: L1 midway between the L1 and L1.5 latencies; L1.5 midway between the L1.5
// latency and the p50 of the accesses clearly beyond it (as far above the L1.5 latency as the L1
// threshold lies below it). Without an L1.5 latency, the L1 threshold lies midway between the L1
// latency and the p50 of the accesses clearly slower than L1.
struct Thresholds {
  std::optional<double> l1;
  std::optional<double> l15;
  double beyond_floor = 0;
  std::vector<double> beyond;  // the accesses above beyond_floor
};

double midway(double a, double b) {
  return (a + b) / 2;
}

Thresholds thresholds_of(std::span<const double> cycles, const ConstantLevels& levels) {
  Thresholds t;
  if (levels.l15_latency) {
    const double l15 = *levels.l15_latency;
    t.l1 = midway(levels.l1_latency, l15);
    t.beyond_floor = l15 + (l15 - *t.l1);
    t.beyond = slower_than(cycles, t.beyond_floor);
    if (t.beyond.size() >= kMinBeyondAccesses) t.l15 = midway(l15, median(t.beyond));
  } else {
    t.beyond_floor = kClearlySlowerFactor * levels.l1_latency;
    t.beyond = slower_than(cycles, t.beyond_floor);
    if (t.beyond.size() >= kMinBeyondAccesses) t.l1 = midway(levels.l1_latency, median(t.beyond));
  }
  return t;
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

// The line from the gaps (its confidence still to be set), or inconclusive with the reason.
// Returns whether it has a value.
bool value_from_gaps(Property& p, const GapEstimate& gaps, double threshold_cycles) {
  p.evidence["gaps"] = gap_evidence(gaps, threshold_cycles);
  if (gaps.slow_accesses == 0) {
    // A pass that had to miss did not: the caches were warm, and no line can be read off it.
    set_inconclusive(p, "no access of the cold pass was slower than " +
                            std::to_string(static_cast<int>(threshold_cycles)) +
                            " cycles: the constant caches were not cold");
    return false;
  }
  if (!gaps.granularity_bytes) {
    set_inconclusive(p, gaps.note);
    return false;
  }
  p.value = *gaps.granularity_bytes;
  return true;
}

struct ColdPass {
  ChaseSpec spec;
  Trace trace;
  std::vector<double> cycles;
  double seconds = 0;
};

nlohmann::json pass_evidence(const ColdPass& pass, const ConstantLevels& levels,
                             const Thresholds& t) {
  return {{"footprint_bytes", pass.spec.footprint_bytes},
          {"stride_bytes", kWordBytes},
          {"timed_loads", pass.spec.timed_loads},
          {"sm", pass.trace.sm_id},
          {"constant_l1_latency_cycles", levels.l1_latency},
          {"constant_l15_latency_cycles",
           levels.l15_latency ? nlohmann::json(*levels.l15_latency) : nullptr},
          {"beyond_floor_cycles", t.beyond_floor},
          {"beyond_cycles",
           t.beyond.empty() ? nlohmann::json(nullptr) : spread_evidence(summarize(t.beyond))},
          {"cycles", spread_evidence(summarize(pass.cycles))},
          {"cost", {{"batches", 1}, {"loads", loads_of(pass.spec)}, {"seconds", pass.seconds}}}};
}

std::string pass_method(const ChaseSpec& spec) {
  return "one cold sequential ld.const chase, " + format_bytes(kWordBytes) +
         " stride, no warm pass, one timed pass of " + std::to_string(spec.timed_loads) +
         " loads over " + format_bytes(spec.footprint_bytes) +
         " (a constant bank just uploaded is cold in the SM's constant caches; the simulator "
         "starts every chase cold)";
}

// constant_l1.line: the gaps above the L1 threshold; the gaps' estimate when it has a line.
std::optional<GapEstimate> measure_l1_line(Property& p, const ColdPass& pass, const Thresholds& t) {
  if (!t.l1) {
    // No miss in a pass that had to miss: the caches were warm, and nothing can be read off it.
    set_inconclusive(p, too_few_beyond("L1", t.beyond.size(), t.beyond_floor));
    return std::nullopt;
  }
  const GapEstimate gaps = estimate_fetch_granularity(pass.cycles, pass.trace.indices, *t.l1);
  if (!value_from_gaps(p, gaps, *t.l1)) return std::nullopt;
  set_confidence(p, gap_confidence(gaps));
  return gaps;
}

// constant_l15.line: the gaps above the L1.5 threshold. An L1.5 miss fills the L1 line inside
// the L1.5 line, so an L1.5 line that is not a whole number of L1 lines contradicts the L1 line:
// the two readings disagree, and the L1.5 value stands at even odds.
void measure_l15_line(Property& p, const ColdPass& pass, const ConstantLevels& levels,
                      const Thresholds& t, const std::optional<GapEstimate>& l1_gaps) {
  if (!levels.l15_latency) {
    return set_inconclusive(p,
                            "needs a measured constant_l15.latency above constant_l1.latency "
                            "(absent or inconclusive in this run)");
  }
  if (!t.l15) return set_inconclusive(p, too_few_beyond("L1.5", t.beyond.size(), t.beyond_floor));
  const GapEstimate gaps = estimate_fetch_granularity(pass.cycles, pass.trace.indices, *t.l15);
  if (!value_from_gaps(p, gaps, *t.l15)) return;
  Confidence confidence = gap_confidence(gaps);
  if (l1_gaps) {
    const std::uint64_t l1 = *l1_gaps->granularity_bytes;
    const bool whole = *gaps.granularity_bytes % l1 == 0;
    confidence *= methods_agreeing(whole ? 2 : 1, 2,
                                   "lines (L1 " + std::to_string(l1) + " B, L1.5 " +
                                       std::to_string(*gaps.granularity_bytes) +
                                       " B) consistent with an inclusive fill");
    if (!whole) p.note = "not a whole number of constant L1 lines (" + std::to_string(l1) + " B)";
  }
  set_confidence(p, confidence);
}

}  // namespace

std::string ConstantLineProbe::description() const {
  return "constant L1 and L1.5 line sizes: spacing of each level's misses in one cold 4 B-stride "
         "ld.const chase";
}

void ConstantLineProbe::run(ProbeContext& ctx) {
  const ConstantLevels levels = read_levels(ctx.topology);
  ColdPass pass;
  pass.spec = plan_cold_pass(ctx.backend.limits(), levels);
  ctx.progress(id() + ": one cold pass over " + format_bytes(pass.spec.footprint_bytes));
  const auto start = std::chrono::steady_clock::now();
  pass.trace = ctx.run(std::vector<ChaseSpec>{pass.spec}, id() + "/cold").front();
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  pass.cycles = corrected_cycles(pass.trace);
  const Thresholds t = thresholds_of(pass.cycles, levels);
  const nlohmann::json evidence = pass_evidence(pass, levels, t);
  const std::string method = pass_method(pass.spec);

  Property l1_line = line_property(
      method + "; line = the mode of the byte gaps between consecutive accesses slower than " +
          (levels.l15_latency ? "midway between the constant L1 and L1.5 latencies"
                              : "midway between the constant L1 latency and the p50 of the "
                                "accesses clearly slower than it (no L1.5 latency measured)"),
      evidence);
  const std::optional<GapEstimate> l1_gaps = measure_l1_line(l1_line, pass, t);
  Property l15_line = line_property(
      method +
          "; line = the mode of the byte gaps between consecutive accesses slower than "
          "midway between the constant L1.5 latency and the p50 of the accesses beyond it",
      evidence);
  measure_l15_line(l15_line, pass, levels, t, l1_gaps);
  element_for(ctx.topology, kL1).set(std::move(l1_line));
  element_for(ctx.topology, kL15).set(std::move(l15_line));
}

}  // namespace memtopo
