#include "probes/geometry/scan_resistance.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/findings.hpp"

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
// capacities of an L2 took 0.6 s on an H100. One pass over kMissReferenceCapacities (4) leaves
// a line of the working set about e^-4 (2 %) to survive random replacement, none under LRU or
// FIFO.
constexpr std::uint32_t kAloneStreamPasses = 1;
// Without a measured line: one load per this many bytes, no smaller than any cache line, so
// that no line of the stream is used twice (the sectors of one line would make the stream look
// reused to a policy that promotes on any hit).
constexpr std::uint32_t kLargestLineBytes = 256;
// The stream's own check (run when the working set survived): the stream's array chased alone,
// its first pass untimed, then the first lines of its second pass timed, this many capacities
// of them. A cache of C lines holds at most C of them when the second pass begins, so at least
// the rest must miss if the stream overfilled the cache and went through it (under LRU all of
// them miss; a scan-resistant cache keeps the first lines a cold stream brought in, and misses
// the rest). A stream that did not fill the cache (a size measured too small, a footprint limit)
// hits on all of them.
constexpr std::uint64_t kStreamCheckCapacities = 2;
// The stream went through the cache when at least this share of the misses its length forces
// showed; below it the survival of the working set says nothing about the policy.
constexpr double kStreamFilledShare = 0.5;

// How misses are told from hits: by baselines on a path that skips the element (SM caches,
// the three chases in one batch), or by a given threshold with every chase alone (device-wide).
struct MissRule {
  std::optional<LoadPath> next_level_path;
  std::optional<double> threshold_cycles;
};

// The working set, the same chase with the stream between its warm passes and its timed pass,
// and (SM caches) the working set on the next level's path for a baseline.
struct ScanPlan {
  std::uint64_t capacities = 0;
  std::uint32_t stream_passes = 0;
  std::uint32_t line = 0;
  std::uint64_t stream_bytes = 0;
  ChaseSpec working_set;
  ChaseSpec streamed;
  ChaseSpec next_level;              // the working set on the next level's path (SM caches)
  std::uint64_t capacity_lines = 0;  // of the measured size, at the stride
  ChaseSpec stream_check;            // the stream alone, the start of its second pass timed
};

std::optional<ScanPlan> plan_scan(ProbeContext& ctx, const std::string& element, LoadPath path,
                                  std::optional<LoadPath> next_level_path) {
  const bool alone = !next_level_path;
  const auto size = finding_count(ctx.topology, element, "size");
  if (!size) return std::nullopt;
  ScanPlan plan;
  plan.line = static_cast<std::uint32_t>(
      finding_count(ctx.topology, element, "line").value_or(kLargestLineBytes));
  const BackendLimits limits = ctx.backend.limits();
  plan.capacities = alone ? kMissReferenceCapacities : kStreamCapacities;
  plan.stream_passes = alone ? kAloneStreamPasses : kStreamPasses;
  plan.stream_bytes =
      round_down(std::min(*size * plan.capacities, limits.max_footprint_bytes), plan.line);
  const std::uint64_t working_set_bytes = round_down(*size / kWorkingSetDenominator, plan.line);
  const auto working_set = [&](LoadPath chased_path) {
    return make_chase(chased_path, working_set_bytes, plan.line)
        .warm_passes(kWarmPasses)
        .timed_loads(static_cast<std::uint32_t>(
            std::min<std::uint64_t>(working_set_bytes / plan.line, limits.max_timed_loads)));
  };
  plan.working_set = working_set(path);
  plan.streamed = working_set(path).evicting(
      EvictionSweep{path, plan.stream_bytes, plan.line, plan.stream_passes});
  if (next_level_path) plan.next_level = working_set(*next_level_path);
  plan.capacity_lines = *size / plan.line;
  const std::uint64_t stream_lines = plan.stream_bytes / plan.line;
  plan.stream_check = make_chase(path, plan.stream_bytes, plan.line)
                          .timed_loads(static_cast<std::uint32_t>(
                              std::min({stream_lines, kStreamCheckCapacities * plan.capacity_lines,
                                        std::uint64_t{limits.max_timed_loads}})));
  return plan;
}

// What the test observed: the rule that tells misses, and the working set after the stream.
struct ScanObservation {
  FitRule rule;
  nlohmann::json baseline_evidence;
  Trace after_stream;
};

// SM caches: the working set, the streamed chase and a baseline on the next level's path in one
// batch.
ScanObservation observe_with_baselines(ProbeContext& ctx, const ScanPlan& plan,
                                       const std::string& element, LoadPath path,
                                       LoadPath next_level_path, const std::string& phase) {
  const std::vector<ChaseSpec> batch = {plan.working_set, plan.streamed, plan.next_level};
  auto traces = ctx.run(batch, phase);
  const LevelBaselines baselines =
      judge_baselines(traces[0], traces[2], path, next_level_path,
                      element + " does not cache " + std::string(to_string(path)) + " loads");
  return {baselines.rule,
          {{"hit_cycles", spread_evidence(baselines.hit)},
           {"next_level_cycles", spread_evidence(baselines.next_level)}},
          std::move(traces[1])};
}

// A device-wide cache: every chase alone, misses by the given threshold. The working set
// without the stream must hit, or the test says nothing.
ScanObservation observe_alone(ProbeContext& ctx, const ScanPlan& plan, const std::string& element,
                              double threshold_cycles, const std::string& phase) {
  FitRule rule;
  rule.threshold_cycles = threshold_cycles;
  const auto run_alone = [&](const ChaseSpec& spec) {
    return std::move(ctx.run(std::vector<ChaseSpec>{spec}, phase).front());
  };
  const Trace reused = run_alone(plan.working_set);
  const FitVerdict without_stream = judge_fit(corrected_cycles(reused), reused.indices, rule);
  if (!without_stream.fits) {
    throw ProbeSkipped("the scan test's working set (" +
                       format_bytes(static_cast<double>(plan.working_set.footprint_bytes)) +
                       ") misses without a stream: the threshold does not tell " + element +
                       " hits");
  }
  return {rule,
          {{"hit_cycles", spread_evidence(summarize(corrected_cycles(reused)))},
           {"each_chase_alone", true}},
          run_alone(plan.streamed)};
}

// What the stream's own second pass showed.
struct StreamCheck {
  std::uint64_t timed_lines = 0;
  std::uint64_t forced_misses = 0;  // what a cache of the measured size cannot avoid
  std::uint64_t misses = 0;
  double share = 0;  // misses / forced misses, at most 1; 0 when none are forced
  bool filled() const { return share >= kStreamFilledShare; }
  nlohmann::json evidence(std::uint64_t capacity_lines) const {
    return {{"timed_lines", timed_lines},
            {"capacity_lines", capacity_lines},
            {"forced_misses", forced_misses},
            {"misses", misses},
            {"share_of_forced_misses", share}};
  }
};

StreamCheck check_stream(ProbeContext& ctx, const ScanPlan& plan, const FitRule& rule,
                         const std::string& phase) {
  const Trace trace = std::move(ctx.run(std::vector<ChaseSpec>{plan.stream_check}, phase).front());
  StreamCheck check;
  check.timed_lines = trace.indices.size();
  check.forced_misses =
      check.timed_lines > plan.capacity_lines ? check.timed_lines - plan.capacity_lines : 0;
  check.misses = count_above(corrected_cycles(trace), rule.threshold_cycles);
  if (check.forced_misses > 0) {
    check.share =
        std::min(1.0, static_cast<double>(check.misses) / static_cast<double>(check.forced_misses));
  }
  return check;
}

Property scan_property(const ScanPlan& plan, const ScanObservation& seen, const FitVerdict& verdict,
                       const std::string& threshold_source) {
  Property p;
  p.name = "policy";
  p.unit = "";
  p.source = Source::measured;
  p.method = "a working set of 1/4 of the size, reused, then a sequential stream of " +
             std::to_string(plan.capacities) + "x the size (" + std::to_string(plan.stream_passes) +
             (plan.stream_passes == 1 ? " pass" : " passes") +
             ") through the same path, then the working set timed again: LRU, FIFO and "
             "random replacement evict it, a scan-resistant policy keeps it, provided the "
             "stream went through the cache (its own second pass misses; used when the ways "
             "are not known)";
  p.evidence = {{"working_set_bytes", plan.working_set.footprint_bytes},
                {"stream_bytes", plan.stream_bytes},
                {"stride_bytes", plan.line},
                {"after_stream", verdict_evidence(verdict)},
                {"threshold_cycles", seen.rule.threshold_cycles},
                {"threshold_source", threshold_source}};
  p.evidence.update(seen.baseline_evidence);
  return p;
}

// The verdict: evicted (no class), survived a stream that went through the cache
// (scan-resistant), or survived a stream that did not (no class: the test says nothing).
Property scan_verdict(ProbeContext& ctx, const ScanPlan& plan, const ScanObservation& seen,
                      const std::string& threshold_source, const std::string& phase) {
  const FitVerdict verdict =
      judge_fit(corrected_cycles(seen.after_stream), seen.after_stream.indices, seen.rule);
  Property p = scan_property(plan, seen, verdict, threshold_source);
  if (verdict.missing > verdict.allowed) {
    p.value = nullptr;
    p.inconclusive = true;
    p.evidence["stream_check"] =
        "not run: the stream evicted the working set, so it went through the cache";
    p.note = "the stream evicted " + std::to_string(verdict.missing) + " of " +
             std::to_string(verdict.elements) +
             " reused lines, as LRU, FIFO and random replacement do; telling them apart needs "
             "the ways";
    return p;
  }
  const StreamCheck stream = check_stream(ctx, plan, seen.rule, phase);
  p.evidence["stream_check"] = stream.evidence(plan.capacity_lines);
  if (!stream.filled()) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note =
        "the reused lines survived, but the stream did not go through the cache: its own "
        "second pass missed on " +
        std::to_string(stream.misses) + " of " + std::to_string(stream.timed_lines) +
        " lines, where a cache of the measured size (" + std::to_string(plan.capacity_lines) +
        " lines) forces " + std::to_string(stream.forced_misses) +
        " misses (the cache is larger than the stream, or the stream skipped it)";
    return p;
  }
  p.value = "scan_resistant";
  set_confidence(
      p, {share(1.0 - verdict.miss_fraction, "of the working set's lines survived the stream"),
          share(stream.share,
                "of the misses the stream's length forces on its own "
                "second pass showed")});
  p.note = "not LRU, FIFO or random: reused lines survived a stream of " +
           std::to_string(plan.capacities) + "x the cache";
  return p;
}

std::optional<Property> scan_test(ProbeContext& ctx, const std::string& element, LoadPath path,
                                  const MissRule& miss_rule) {
  const bool alone = !miss_rule.next_level_path;
  const auto plan = plan_scan(ctx, element, path, miss_rule.next_level_path);
  if (!plan) return std::nullopt;
  const std::string phase = element + ".policy/scan";
  const ScanObservation seen =
      alone ? observe_alone(ctx, *plan, element, miss_rule.threshold_cycles.value(), phase)
            : observe_with_baselines(ctx, *plan, element, path, *miss_rule.next_level_path, phase);
  Property p = scan_verdict(ctx, *plan, seen, alone ? element + ".size" : "own baselines", phase);
  std::uint64_t loads = loads_of(plan->working_set) + loads_of(plan->streamed) +
                        (alone ? 0 : loads_of(plan->next_level));
  if (p.evidence.at("stream_check").is_object()) loads += loads_of(plan->stream_check);
  p.evidence["loads"] = loads;
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
