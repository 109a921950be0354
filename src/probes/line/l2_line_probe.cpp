#include "probes/line/l2_line_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include "analysis/line_from_fits.hpp"
#include "analysis/linesize.hpp"
#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"

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
// Line: strides kLinePrime x unit (odd, so that a modulo index over an even set count still
// reaches every set at the line; 7 rarely divides a set count, as in the L1 line probe).
constexpr std::uint64_t kLinePrime = 7;
// Units are tried up to this: four times the largest line any GPU cache is known to have
// (256 B), and strides of 7 KiB stay far below a page, so the TLB adds at most one miss per page.
constexpr std::uint64_t kMaxLineBytes = 1024;
// Fewer chain elements than this are too few to judge a fit by.
constexpr std::uint64_t kMinJudgedElements = 64;
// Timed loads per line chase, after one warm pass: the oldest lines of the chain, the first to
// go under any recency-based policy; a full timed pass would double every chase's loads.
constexpr std::uint32_t kLineTimedLoads = 4096;
// The contiguous check chases 5/4 of the size at the answer's own stride (see below).
constexpr std::uint64_t kContiguousNumerator = 5, kContiguousDenominator = 4;
// No sector or line is smaller (the size probes assume the same) when no sector was measured.
constexpr std::uint64_t kFallbackSectorBytes = 32;

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
  p.evidence = gap_evidence(gaps, threshold);
  p.evidence.update({{"path", to_string(target.path)},
                     {"timed_loads", timed},
                     {"hit_cycles", spread_evidence(hit)},
                     {"dram_cycles", spread_evidence(miss)},
                     {"cost", {{"batches", 3}, {"loads", loads}}}});
  set_granularity(p, gaps, cycles);
  element_for(ctx.topology, target.element).set(std::move(p));
}

void measure_device_cache_line(ProbeContext& ctx, const LineTarget& target, const std::string& id) {
  const BackendLimits limits = ctx.backend.limits();
  const Element* element = ctx.topology.find(target.element);
  const Property* size_property = element ? element->find("size") : nullptr;
  if (!size_property || size_property->source != Source::measured || size_property->inconclusive ||
      !size_property->value.is_number()) {
    throw ProbeSkipped("needs a measured " + target.element +
                       ".size (absent or inconclusive in this run): the capacity one SM fills "
                       "is what the strides are planned from");
  }
  const std::uint64_t size = size_property->value.get<std::uint64_t>();
  const nlohmann::json& size_evidence = size_property->evidence;
  const auto threshold = device_wide_threshold(size_evidence);
  if (!threshold) {
    throw ProbeSkipped(target.element + ".size has no threshold_cycles in its evidence");
  }
  FitRule rule;
  rule.threshold_cycles = threshold->cycles;
  const Property* sector_property = element->find("sector");
  const bool sector_measured = sector_property && sector_property->source == Source::measured &&
                               !sector_property->inconclusive && sector_property->value.is_number();
  const std::uint64_t sector =
      sector_measured ? sector_property->value.get<std::uint64_t>() : kFallbackSectorBytes;

  const std::uint64_t classify_target =
      size * kLinePrime * kClassifyNumerator / kClassifyDenominator;
  const std::uint64_t cross_check_target =
      size * kLinePrime * kCrossCheckNumerator / kCrossCheckDenominator;
  if (cross_check_target > limits.max_footprint_bytes) {
    throw ProbeSkipped("the backend cannot chase " + format_bytes(cross_check_target) + ", " +
                       std::to_string(kLinePrime) + " x 5/4 of the measured size");
  }
  // Units from the largest worth trying down to the sector (descending: the cheapest chases
  // first, and the first miss ends the ladder since every smaller unit misses too).
  std::vector<std::uint64_t> units;
  for (std::uint64_t unit = sector;
       unit <= kMaxLineBytes && classify_target / (kLinePrime * unit) >= kMinJudgedElements;
       unit *= 2) {
    units.insert(units.begin(), unit);
  }
  if (units.empty()) throw ProbeSkipped("the cache is too small for a stride ladder");
  const std::uint32_t timed = std::min(kLineTimedLoads, limits.max_timed_loads);

  std::uint64_t loads = 0, batches = 0;
  // One sequential chase alone at `stride` over `footprint_target` (rounded down to it), judged.
  auto judge_at_stride = [&](std::uint64_t footprint_target, std::uint64_t stride,
                             const std::string& phase) {
    ChaseSpec spec = alone(target.path, round_down(footprint_target, stride),
                           static_cast<std::uint32_t>(stride), 1, timed, false, ctx.seed);
    spec.order = ChaseOrder::sequential;  // the capacity argument assumes address order
    loads += loads_of(spec);
    ++batches;
    const Trace trace = std::move(ctx.run(std::vector<ChaseSpec>{spec}, id + "/" + phase).front());
    return std::pair{spec.footprint_bytes, judge_fit(corrected_cycles(trace), trace.indices, rule)};
  };
  auto judge_alone = [&](std::uint64_t footprint_target, std::uint64_t unit,
                         const std::string& phase) {
    return judge_at_stride(footprint_target, kLinePrime * unit, phase);
  };

  nlohmann::json per_unit = nlohmann::json::array();
  std::vector<UnitFit> fits;
  for (std::uint64_t unit : units) {
    ctx.progress(id + ": unit " + std::to_string(unit) + " B (stride " +
                 std::to_string(kLinePrime * unit) + " B) over " + format_bytes(classify_target));
    const auto [footprint, verdict] =
        judge_alone(classify_target, unit, "unit" + std::to_string(unit));
    fits.push_back({unit, verdict.fits, verdict.miss_score});
    per_unit.push_back({{"unit_bytes", unit},
                        {"stride_bytes", kLinePrime * unit},
                        {"elements", footprint / (kLinePrime * unit)},
                        {"verdict", verdict_evidence(verdict, footprint)}});
    if (!verdict.fits) break;
  }
  std::optional<UnitFit> cross_check;
  nlohmann::json cross_check_evidence = nullptr;
  const auto smallest_fit =
      std::find_if(fits.rbegin(), fits.rend(), [](const UnitFit& f) { return f.fits; });
  if (smallest_fit != fits.rend()) {
    const std::uint64_t unit = smallest_fit->unit_bytes;
    ctx.progress(id + ": cross-check at unit " + std::to_string(unit) + " B over " +
                 format_bytes(cross_check_target));
    const auto [footprint, verdict] = judge_alone(cross_check_target, unit, "cross_check");
    cross_check = UnitFit{unit, verdict.fits, verdict.miss_score};
    cross_check_evidence = {{"unit_bytes", unit},
                            {"stride_bytes", kLinePrime * unit},
                            {"elements", footprint / (kLinePrime * unit)},
                            {"verdict", verdict_evidence(verdict, footprint)}};
  }
  const FitLadderLine inference = infer_line_from_unit_fits(fits, sector, cross_check);

  // Contiguous check of the answer u: a sequential chase at stride u itself over 5/4 of the
  // size. With a line of u every element takes a line of its own, the chase needs 5/4 of the
  // capacity and misses (a modulo cache reaches no more sets at stride u). If it fits, the
  // cache holds more than size / u elements u apart: its line is smaller than u, and the odd
  // strides' misses came from elsewhere (on Hopper: hashed L2 slices and TLB misses at
  // footprints of hundreds of MiB, which make L2 hits slower than the threshold).
  // It can only fit when u exceeds the stride the size was measured at (below that the size
  // already counts a line per element), so it runs only then.
  const std::uint64_t size_stride = staircase_stride_bytes(size_evidence).value_or(0);
  nlohmann::json contiguous_evidence = nullptr;
  bool contradicted = false;
  if (inference.line_bytes && *inference.line_bytes > sector &&
      *inference.line_bytes > size_stride) {
    const std::uint64_t unit = *inference.line_bytes;
    const std::uint64_t footprint_target = size * kContiguousNumerator / kContiguousDenominator;
    ctx.progress(id + ": contiguous check at stride " + std::to_string(unit) + " B over " +
                 format_bytes(footprint_target));
    const auto [footprint, verdict] = judge_at_stride(footprint_target, unit, "contiguous_check");
    contradicted = verdict.fits;
    contiguous_evidence = {{"stride_bytes", unit},
                           {"elements", footprint / unit},
                           {"verdict", verdict_evidence(verdict, footprint)},
                           {"contradicts", contradicted}};
  }

  Property p;
  p.name = "line";
  p.unit = "bytes";
  p.source = Source::measured;
  char method[700];
  std::snprintf(method, sizeof method,
                "capacity per stride, one fit verdict each: warm pointer chases via %s, alone on "
                "the device, sequential, 1 warm pass + %u timed loads, judged with the "
                "%s.size threshold; strides %llu x unit for units %llu B down to %s%llu B, each "
                "over 3/4 of %llu x the measured size %s (held only when unit >= line); line = "
                "the smallest unit that fits; cross-check: 5/4 of it must miss there",
                std::string(to_string(target.path)).c_str(), timed, target.element.c_str(),
                static_cast<unsigned long long>(kLinePrime),
                static_cast<unsigned long long>(units.front()),
                sector_measured ? "the measured sector " : "an assumed ",
                static_cast<unsigned long long>(sector),
                static_cast<unsigned long long>(kLinePrime), format_bytes(size).c_str());
  p.method = method;
  p.evidence = {
      {"path", to_string(target.path)},
      {"size_bytes", size},
      {"sector_bytes", sector_measured ? nlohmann::json(sector) : nlohmann::json(nullptr)},
      {"prime", kLinePrime},
      {"threshold_cycles", rule.threshold_cycles},
      {"threshold_rule", threshold->rule},
      {"timed_loads", timed},
      {"classify_footprint_bytes", classify_target},
      {"cross_check_footprint_bytes", cross_check_target},
      {"units", std::move(per_unit)},
      {"cross_check", std::move(cross_check_evidence)},
      {"smallest_fitting_unit_bytes", inference.smallest_fitting_unit},
      {"largest_missing_unit_bytes", inference.largest_missing_unit},
      {"contrast", inference.contrast},
      {"cross_check_agrees", inference.cross_check_agrees},
      {"size_over_capacity_bytes",
       {{"low_exclusive", inference.size_over_capacity_low_bytes},
        {"high", inference.size_over_capacity_high_bytes}}},
      {"cost", {{"batches", batches}, {"loads", loads}}}};
  p.evidence["contiguous_check"] = std::move(contiguous_evidence);
  p.note = inference.note;
  if (contradicted) {
    // Known: the line is below the odd strides' answer. Reported as that bound, inconclusive.
    p.value = *inference.line_bytes;
    p.bound = Bound::upper;
    p.inconclusive = true;
    p.confidence = 0;
    p.note = "the odd strides say " + std::to_string(*inference.line_bytes) +
             " B, but a sequential chase at that stride over 5/4 of the size fits: the cache "
             "holds more elements that far apart than size / stride, so its line is smaller";
  } else if (inference.line_bytes) {
    p.value = *inference.line_bytes;
    p.confidence = inference.confidence.value();
    p.evidence["sectored"] = *inference.line_bytes > sector;
  } else {
    p.value = nullptr;
    p.inconclusive = true;
  }
  element_for(ctx.topology, target.element).set(std::move(p));
}

}  // namespace memtopo
