#include "probes/sharing/count_per_sm_probe.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Each chaser's segment is this fraction of the measured size: it fits one instance with room
// for a little noise, and two of them (3/2 of the size) overfill a shared instance under any
// replacement policy.
constexpr std::uint64_t kFootprintNumerator = 3, kFootprintDenominator = 4;
// Chaser counts per batch: instance counts are small (1, 2 and 4 are what GPUs have had), so
// the first batch usually settles the question and later batches are rarely needed.
constexpr std::uint32_t kCountsPerBatch = 4;

struct CountVerdict {
  std::uint32_t chasers = 0;
  bool all_hit = false;
  double worst_miss_fraction = 0;  // of the chasers
  nlohmann::json evidence;
};

class CountMeasurement {
 public:
  CountMeasurement(ProbeContext& ctx, const SmCacheElement& target)
      : ctx_(ctx), target_(target), limits_(ctx.backend.limits()) {}

  void run();

 private:
  // `chasers` warps of one block at once, each on its private segment; sequential, so that an
  // overfull set thrashes on every pass.
  ChaseSpec chase(std::uint32_t chasers) const {
    return make_chase(target_.path, segment_ * chasers, stride_)
        .timed_loads(timed_loads_)
        .chasers(chasers, ChaserSchedule::concurrent)
        .private_segments();
  }
  // One chaser over kMissReferenceCapacities times the size (within the path's limit): what a
  // miss of this element costs.
  ChaseSpec miss_reference() const {
    const std::uint64_t footprint =
        round_down(std::min(size_ * kMissReferenceCapacities, max_footprint_), stride_);
    return make_chase(target_.path, footprint, stride_)
        .timed_loads(static_cast<std::uint32_t>(
            std::min<std::uint64_t>(footprint / stride_, limits_.max_timed_loads)));
  }
  // Plans from the element's size and line; false when the size is not usable (the finding
  // then says why, or the probe is skipped like the size).
  bool plan();
  // The count verdicts of k = 1, 2, ... chasers, up to the first count that misses.
  std::vector<CountVerdict> measure_counts();
  CountVerdict judge(std::uint32_t chasers, const Trace& trace) const;
  void report(const std::vector<CountVerdict>& verdicts) const;
  // The count and its confidence, a lower bound, or no value, from the verdicts.
  void set_count(Property& p, const std::vector<CountVerdict>& verdicts) const;
  std::string id() const { return target_.element + ".count_per_sm"; }

  ProbeContext& ctx_;
  const SmCacheElement& target_;
  BackendLimits limits_;
  std::uint64_t size_ = 0;
  std::uint64_t segment_ = 0;
  std::uint64_t max_footprint_ = 0;  // of the element's path
  std::uint32_t stride_ = 0;
  std::uint32_t timed_loads_ = 0;
  std::uint32_t bound_ = 0;  // the most chasers one SM can run on segments of this size
  LevelBaselines baselines_;
  double overflow_ = 1;  // miss fraction of the overflowing reference: the contrast's scale
  std::uint64_t loads_ = 0;
};

CountVerdict CountMeasurement::judge(std::uint32_t chasers, const Trace& trace) const {
  const std::vector<double> cycles = corrected_cycles(trace);
  CountVerdict verdict{chasers, true, 0, nlohmann::json::array()};
  for (std::uint32_t c = 0; c < chasers; ++c) {
    const std::size_t first = std::size_t{c} * timed_loads_;
    const FitVerdict fit =
        judge_fit(std::span<const double>(cycles).subspan(first, timed_loads_),
                  std::span<const std::uint32_t>(trace.indices).subspan(first, timed_loads_),
                  baselines_.rule);
    verdict.all_hit = verdict.all_hit && fit.fits;
    verdict.worst_miss_fraction = std::max(verdict.worst_miss_fraction, fit.miss_fraction);
    verdict.evidence.push_back(verdict_evidence(fit));
  }
  return verdict;
}

bool CountMeasurement::plan() {
  const auto size = finding_count(ctx_.topology, target_.element, "size");
  if (!size) {
    const bool size_ran = finding_exists(ctx_.topology, target_.element, "size");
    const std::string why = target_.element + ".size is " +
                            (size_ran ? "inconclusive" : "not measured (skipped)") +
                            ": the per-chaser footprint is planned from it";
    if (!size_ran) throw ProbeSkipped(why);
    set_inconclusive(ctx_.topology, target_.element, "count_per_sm",
                     "concurrent chasers on private segments (thesis 004, 4.6)", why);
    return false;
  }
  size_ = *size;
  stride_ = static_cast<std::uint32_t>(
      finding_count(ctx_.topology, target_.element, "line").value_or(kSmallestLineBytes));
  segment_ = round_down(size_ * kFootprintNumerator / kFootprintDenominator, stride_);
  if (segment_ < stride_) throw ProbeSkipped("the measured size holds less than one line");
  max_footprint_ = target_.path == LoadPath::constant ? limits_.max_constant_footprint_bytes
                                                      : limits_.max_footprint_bytes;
  // Chasers are warps of one block, so a block of max_chasers warps is the most we can place
  // on one SM; and their segments together must fit the path's footprint limit.
  bound_ = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(limits_.max_chasers, max_footprint_ / segment_));
  if (bound_ < 2) throw ProbeSkipped("the backend cannot run two chasers of this footprint");
  timed_loads_ = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(segment_ / stride_, limits_.max_timed_loads));
  return true;
}

std::vector<CountVerdict> CountMeasurement::measure_counts() {
  std::vector<CountVerdict> verdicts;
  std::uint32_t next = 1;
  const std::uint32_t per_batch = std::max<std::uint32_t>(
      1, std::min(kCountsPerBatch, std::max<std::uint32_t>(1, limits_.concurrent_slots)));
  while (next <= bound_ && (verdicts.empty() || verdicts.back().all_hit)) {
    std::vector<ChaseSpec> batch;
    for (std::uint32_t k = next; k < next + per_batch && k <= bound_; ++k) {
      batch.push_back(chase(k));
    }
    const bool first = next == 1;
    // The first batch carries the miss reference: one chaser over several times the size.
    if (first) batch.push_back(miss_reference());
    ctx_.progress(id() + ": " + std::to_string(next) + " .. " +
                  std::to_string(next + (first ? batch.size() - 1 : batch.size()) - 1) +
                  " concurrent chasers of " + format_bytes(segment_));
    const auto traces = ctx_.run(batch, id());
    for (const auto& spec : batch) loads_ += loads_of(spec);
    if (first) {
      baselines_ = judge_against_own_misses(
          traces.front(), traces.back(), target_.path,
          target_.element + " does not cache " + std::string(to_string(target_.path)) + " loads");
      overflow_ = overflow_miss_fraction(traces.back(), baselines_.rule);
    }
    const std::size_t counted = first ? batch.size() - 1 : batch.size();
    for (std::size_t i = 0; i < counted; ++i) {
      verdicts.push_back(judge(next + static_cast<std::uint32_t>(i), traces[i]));
      if (!verdicts.back().all_hit) break;
    }
    next += static_cast<std::uint32_t>(counted);
  }
  return verdicts;
}

void CountMeasurement::run() {
  if (plan()) report(measure_counts());
}

void CountMeasurement::report(const std::vector<CountVerdict>& verdicts) const {
  Property p;
  p.name = "count_per_sm";
  p.unit = "";
  p.source = Source::measured;
  char method[360];
  std::snprintf(method, sizeof method,
                "k warps of one block chase %s concurrently, each a private %s segment (3/4 of "
                "the measured size) at a %u B stride, k = 1, 2, 3 ... up to %u; the count is the "
                "largest k whose chasers all still hit (thesis 004, 4.6)",
                std::string(to_string(target_.path)).c_str(), format_bytes(segment_).c_str(),
                stride_, bound_);
  p.method = method;
  nlohmann::json tried = nlohmann::json::array();
  for (const CountVerdict& v : verdicts) {
    tried.push_back({{"chasers", v.chasers},
                     {"all_hit", v.all_hit},
                     {"worst_miss_fraction", v.worst_miss_fraction},
                     {"per_chaser", v.evidence}});
  }
  p.evidence = {{"segment_bytes", segment_},
                {"stride_bytes", stride_},
                {"size_bytes", size_},
                {"hit_cycles", spread_evidence(baselines_.hit)},
                {"next_level_cycles", spread_evidence(baselines_.next_level)},
                {"threshold_cycles", baselines_.rule.threshold_cycles},
                {"overflow_miss_fraction", overflow_},
                {"max_chasers", bound_},
                {"loads", loads_},
                {"counts_tried", std::move(tried)}};
  set_count(p, verdicts);
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

void CountMeasurement::set_count(Property& p, const std::vector<CountVerdict>& verdicts) const {
  if (verdicts.empty() || !verdicts.front().all_hit) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = "even one chaser missed: the segment does not fit one instance";
    return;
  }
  if (verdicts.back().all_hit) {
    p.value = verdicts.back().chasers;
    p.inconclusive = true;
    p.bound = Bound::lower;
    p.note = "lower bound: all " + std::to_string(verdicts.back().chasers) +
             " chasers the backend can place on one SM still hit";
    return;
  }
  const CountVerdict& crowded = verdicts.back();
  double worst_fit = 0;
  for (std::size_t i = 0; i + 1 < verdicts.size(); ++i) {
    worst_fit = std::max(worst_fit, verdicts[i].worst_miss_fraction);
  }
  p.value = crowded.chasers - 1;
  // The contrast between the first crowded count and the worst uncrowded one, on the scale of
  // what a chase that certainly overflows the cache shows at this stride.
  set_confidence(p, Confidence{contrast(crowded.worst_miss_fraction - worst_fit, overflow_,
                                        "miss fraction of " + std::to_string(crowded.chasers) +
                                            " chasers over the worst of fewer, against an "
                                            "overflowing chase's,")});
}

}  // namespace

std::string CountPerSmProbe::description() const {
  return target_.element + " instances per SM: concurrent warps on private segments of 3/4 of " +
         target_.element + ".size, the largest count that still hits";
}

std::vector<std::string> CountPerSmProbe::needs() const {
  std::vector<std::string> needs;
  for (const std::string& id : registered_size_probes()) {
    if (id == target_.element + ".size") needs.push_back(id);
  }
  return needs;
}

void CountPerSmProbe::run(ProbeContext& ctx) {
  CountMeasurement(ctx, target_).run();
}

std::vector<std::unique_ptr<Probe>> count_per_sm_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const SmCacheElement& row : sm_cache_elements()) {
    probes.push_back(std::make_unique<CountPerSmProbe>(row));
  }
  return probes;
}

}  // namespace memtopo
