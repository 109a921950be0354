#include "probes/size/cache_size_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/size/size_search.hpp"
#include "run/clock.hpp"

namespace memtopo {

const std::vector<SizeTarget>& size_targets() {
  static const std::vector<SizeTarget> table = {
      {"l1", LoadPath::ca, LoadPath::cg, "L2", "global loads are not cached in L1 (ca ≈ cg)",
       "L1 data cache size: pointer chase over ld.global.ca, doubling then section then scan"},
      // Two warm passes: through nc an H200 reaches its steady state more slowly than through
      // ca or tex (after one warm pass footprints from 200 KB up missed whole lines in the first
      // timed pass: docs/results/nvidia-h200/2026-11-24_f89fb03-item3); with two, ro.size alone
      // has the clean 240 KiB edge of ca and tex.
      {"ro", LoadPath::nc, LoadPath::cg, "L2", "read-only loads are not cached on the SM (nc ≈ cg)",
       "read-only (__ldg) cache size: pointer chase over ld.global.nc, doubling, section, scan", 2},
      // After ro: after chases through the texture path, nc loads in the same process keep
      // missing lines of footprints that fit (why is not known). On an H200 (f45167e) ro.size was
      // 240 KiB with a clean edge in 6 of 6 processes when it ran alone or after l1.size, and
      // inconclusive at 221-234 KiB in 6 of 6 when tex.size ran before it
      // (docs/results/nvidia-h200/2026-11-24_f45167e-ro-order).
      {"tex", LoadPath::tex, LoadPath::cg, "L2",
       "texture fetches are not cached on the SM (tex ≈ cg)",
       "texture cache size: pointer chase over tex1Dfetch, doubling then section then scan"},
  };
  return table;
}

namespace {

// The hit baseline also measures the outlier rate the fit rule allows for (size_rule.hpp): a
// few outliers in kBaselineSamples loads bound the rate only loosely, 16384 tie it near the
// true rate.
constexpr std::uint32_t kHitBaselineSamples = 16384;
// Small footprints are timed over more than kTimedPasses passes, up to this many timed loads:
// their chains are short, so this costs little, and the slow-access test needs some thousand
// accesses before the few misses of one overfull set under random replacement stand out from
// the outliers.
constexpr std::uint64_t kMinTimedLoads = 4096;

// Everything one run of the probe measures, for the finding and its evidence.
class SizeMeasurement {
 public:
  SizeMeasurement(ProbeContext& ctx, const SizeTarget& target)
      : ctx_(ctx), target_(target), limits_(ctx.backend.limits()) {}

  void run();

 private:
  // The line size is not known when sizes are measured, so chain elements are
  // kSmallestLineBytes apart: no line or sector is smaller, so no line is skipped and one
  // overfull set shows up. Sequential: every pass visits an overfull set's lines in the same
  // cyclic order, which thrashes LRU and FIFO sets completely, so a single overfull set misses
  // on every pass.
  ChaseSpec chase(LoadPath path, std::uint64_t footprint, std::uint32_t timed_loads) const {
    return make_chase(path, footprint, kSmallestLineBytes)
        .warm_passes(target_.warm_passes)
        .timed_loads(timed_loads);
  }
  std::vector<Trace> run_batch(const std::vector<ChaseSpec>& batch, std::string_view phase);
  void measure_baselines();
  std::uint64_t search_limit() const;
  // Whole timed passes: at least kTimedPasses and kMinTimedLoads, within the backend's limit.
  std::uint32_t timed_loads_for(std::uint64_t footprint) const;
  std::vector<FitVerdict> measure_footprints(std::span<const std::uint64_t> footprints,
                                             std::string_view phase);
  void report(const SizeSearchResult& result);
  std::string method() const;
  nlohmann::json evidence(const SizeSearchResult& result) const;
  void set_outcome(Property& p, const SizeSearchResult& result) const;
  std::string id() const { return target_.element + ".size"; }

  ProbeContext& ctx_;
  const SizeTarget& target_;
  BackendLimits limits_;
  Spread hit_{}, next_level_{};
  std::uint32_t hit_sm_ = 0, next_level_sm_ = 0;
  FitRule rule_;
  // Footprint -> its corrected cycles, last measured: the finding's spread is the summary of
  // one of them, summarised at the end (a summary of each was 73 ms of an H200 discovery).
  std::map<std::uint64_t, std::vector<double>> cycles_by_footprint_;
  std::map<std::string, double, std::less<>> phase_seconds_;
  std::uint64_t loads_ = 0;
};

std::vector<Trace> SizeMeasurement::run_batch(const std::vector<ChaseSpec>& batch,
                                              std::string_view phase) {
  const auto start = Clock::now();
  auto traces = ctx_.run(batch, id() + "/" + std::string(phase));
  phase_seconds_[std::string(phase)] += seconds_since(start);
  for (const auto& spec : batch) loads_ += loads_of(spec);
  return traces;
}

void SizeMeasurement::measure_baselines() {
  if (kFitsAnyCacheBytes > limits_.max_footprint_bytes) {
    // The footprint limit comes from the device's memory: a lack of memory, which the CLI
    // tells apart (a run where nothing fits ends with exit 6).
    throw MemoryUnavailableError("the backend cannot chase even " +
                                 format_bytes(kFitsAnyCacheBytes));
  }
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  const std::uint32_t hit_samples = std::min(kHitBaselineSamples, limits_.max_timed_loads);
  // Two independent chases on different SMs: the one under test and one that skips it.
  const std::vector<ChaseSpec> batch = {
      chase(target_.path, kFitsAnyCacheBytes, hit_samples),
      chase(target_.next_level_path, kFitsAnyCacheBytes, samples)};
  const auto traces = run_batch(batch, "baseline");
  const LevelBaselines baselines = judge_baselines(
      traces[0], traces[1], target_.path, target_.next_level_path, target_.not_cached_reason);
  hit_ = baselines.hit;
  next_level_ = baselines.next_level;
  rule_ = with_measured_outlier_rate(baselines.rule, corrected_cycles(traces[0]));
  hit_sm_ = traces[0].sm_id;
  next_level_sm_ = traces[1].sm_id;
}

std::uint64_t SizeMeasurement::search_limit() const {
  // Whole passes must be timed: one timed load per element at the least.
  std::uint64_t limit = std::min<std::uint64_t>(
      limits_.max_footprint_bytes, std::uint64_t{limits_.max_timed_loads} * kSmallestLineBytes);
  // Beyond the next level's capacity a miss is no longer answered at the baseline's latency;
  // the device's own L2 size (an API fact) bounds the plan, it is never the answer.
  if (ctx_.backend.facts().l2_bytes > 0) limit = std::min(limit, ctx_.backend.facts().l2_bytes);
  return round_down(limit, kSmallestLineBytes);
}

std::uint32_t SizeMeasurement::timed_loads_for(std::uint64_t footprint) const {
  const std::uint64_t elements = footprint / kSmallestLineBytes;
  const std::uint64_t wanted = std::max<std::uint64_t>(elements * kTimedPasses, kMinTimedLoads);
  std::uint64_t passes = (wanted + elements - 1) / elements;
  while (passes > 1 && elements * passes > limits_.max_timed_loads) --passes;
  return static_cast<std::uint32_t>(elements * passes);
}

std::vector<FitVerdict> SizeMeasurement::measure_footprints(
    std::span<const std::uint64_t> footprints, std::string_view phase) {
  std::vector<ChaseSpec> batch;
  for (std::uint64_t footprint : footprints) {
    batch.push_back(chase(target_.path, footprint, timed_loads_for(footprint)));
  }
  ctx_.progress(id() + ": " + std::string(phase) + " " + format_bytes(footprints.front()) +
                (footprints.size() > 1 ? " .. " + format_bytes(footprints.back()) : "") + " (" +
                std::to_string(footprints.size()) + " footprints)");
  const auto traces = run_batch(batch, phase);
  std::vector<FitVerdict> verdicts;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    std::vector<double> cycles = corrected_cycles(traces[i]);
    verdicts.push_back(judge_fit(cycles, traces[i].indices, rule_));
    cycles_by_footprint_[footprints[i]] = std::move(cycles);
  }
  return verdicts;
}

void SizeMeasurement::run() {
  measure_baselines();

  SizeSearchPlan plan;
  plan.start_bytes = kFitsAnyCacheBytes;
  plan.max_bytes = search_limit();
  plan.stride_bytes = kSmallestLineBytes;
  plan.batch_slots = std::max<std::uint32_t>(1, limits_.concurrent_slots);
  const auto result = search_cache_size(
      plan, [this](std::span<const std::uint64_t> footprints, std::string_view phase) {
        return measure_footprints(footprints, phase);
      });
  report(result);
}

std::string SizeMeasurement::method() const {
  char text[520];
  std::snprintf(
      text, sizeof text,
      "fine-grained pointer chase via %s, %u B stride, sequential, %u warm + at least %u timed "
      "passes (%llu timed loads); doubling, k-ary section, fine scan; fits while both its "
      "elements slow on every pass and its accesses slower than %.1f cycles (midpoint of hit "
      "p50 %.1f and %s p5 %.1f) stay within what a %.2f %% outlier rate explains",
      std::string(to_string(target_.path)).c_str(), kSmallestLineBytes, target_.warm_passes,
      kTimedPasses, static_cast<unsigned long long>(kMinTimedLoads), rule_.threshold_cycles,
      hit_.p50, target_.next_level_name.c_str(), next_level_.p5, 100 * rule_.outlier_rate);
  return text;
}

nlohmann::json SizeMeasurement::evidence(const SizeSearchResult& result) const {
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& step : result.steps) {
    auto entry = verdict_evidence(step.verdict, step.footprint_bytes);
    entry["phase"] = step.phase;
    entry["allowed_slow"] = step.verdict.allowed_slow;
    entry["miss_score"] = step.verdict.miss_score;
    tried.push_back(std::move(entry));
  }
  // The last fine scan: its points are the last scan steps measured.
  nlohmann::json scan = nlohmann::json::array();
  const std::size_t first_scan_step = result.steps.size() - result.scan.size();
  for (std::size_t i = first_scan_step; i < result.steps.size(); ++i) {
    scan.push_back(verdict_evidence(result.steps[i].verdict, result.steps[i].footprint_bytes));
  }
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& [phase, seconds] : phase_seconds_) timings[phase + "_s"] = seconds;
  return {
      {"outcome", to_string(result.outcome)},
      {"path", to_string(target_.path)},
      {"next_level_path", to_string(target_.next_level_path)},
      {"stride_bytes", kSmallestLineBytes},
      {"hit_cycles", spread_evidence(hit_)},
      {"hit_sm", hit_sm_},
      {"next_level_cycles", spread_evidence(next_level_)},
      {"next_level_sm", next_level_sm_},
      {"threshold_cycles", rule_.threshold_cycles},
      {"outlier_rate", rule_.outlier_rate},
      {"false_miss_probability", rule_.false_miss_probability},
      {"search_limit_bytes", search_limit()},
      {"doubling_bracket", {result.doubling_fit, result.doubling_miss}},
      {"final_bracket", {result.bracket_fit, result.bracket_miss}},
      {"reopenings", result.reopenings},
      {"fine_scan", std::move(scan)},
      {"footprints_tried", std::move(tried)},
      {"batches", result.batches + 1},  // + the baseline batch
      {"loads", loads_},
      {"timings", std::move(timings)},
  };
}

// The value, bound, note and confidence the search's outcome gives the finding.
void SizeMeasurement::set_outcome(Property& p, const SizeSearchResult& result) const {
  const auto confidence = size_confidence(result);
  switch (result.outcome) {
    case SizeSearchOutcome::found:
      p.value = result.size_bytes;
      set_confidence(p, *confidence);
      if (auto it = cycles_by_footprint_.find(result.size_bytes);
          it != cycles_by_footprint_.end()) {
        p.spread = summarize(it->second);
      }
      break;
    case SizeSearchOutcome::fits_up_to_max:
      p.value = result.size_bytes;
      p.inconclusive = true;
      p.bound = Bound::lower;
      p.note = "lower bound: no footprint up to " + format_bytes(result.size_bytes) +
               " missed (the search limit)";
      break;
    case SizeSearchOutcome::misses_at_start:
      p.value = nullptr;
      p.inconclusive = true;
      p.note = "even the smallest footprint, " + format_bytes(kFitsAnyCacheBytes) + ", missed";
      break;
    case SizeSearchOutcome::no_edge:
      p.inconclusive = true;
      if (confidence) {
        // Inconclusive, so no confidence on the finding: how sure the estimate is stays in
        // the evidence, with its factors.
        p.value = result.size_bytes;
        p.evidence["estimate_confidence"] = {{"value", confidence->value()},
                                             {"factors", confidence->evidence()}};
        p.note =
            "the fine scans showed no clean edge (verdicts flip near it); the value is the "
            "step the fewest of all verdicts contradict, a best estimate";
      } else {
        p.value = nullptr;
        p.note = "the fine scans showed no clean edge between fitting and missing footprints";
      }
      break;
  }
}

void SizeMeasurement::report(const SizeSearchResult& result) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = method();
  p.evidence = evidence(result);
  set_outcome(p, result);
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

}  // namespace

void CacheSizeProbe::run(ProbeContext& ctx) {
  SizeMeasurement(ctx, target_).run();
}

}  // namespace memtopo
