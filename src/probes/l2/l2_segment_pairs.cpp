#include "probes/l2/l2_segment_pairs.hpp"

#include <algorithm>

#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Each chase of a pair covers this share of the one-SM L2 size E: alone it fits with room to
// spare (a quarter of E for imperfect replacement and hashing), while two of them in one
// segment ask for 1.5 E and evict each other.
constexpr double kFootprintShareOfSegment = 0.75;

// Share of a trace's timed loads slower than the threshold (overhead-corrected).
double slow_share(const Trace& trace, double threshold_cycles) {
  const std::vector<double> cycles = corrected_cycles(trace);
  if (cycles.empty()) return 0;
  const auto slow =
      std::count_if(cycles.begin(), cycles.end(), [&](double c) { return c > threshold_cycles; });
  return static_cast<double>(slow) / static_cast<double>(cycles.size());
}

}  // namespace

const char* to_string(PairVerdict verdict) {
  switch (verdict) {
    case PairVerdict::separate:
      return "separate segments";
    case PairVerdict::shared:
      return "one segment";
    default:
      return "unclear";
  }
}

PairVerdict verdict_of(double slow_share_a, double slow_share_b) {
  const double less = std::min(slow_share_a, slow_share_b);
  const double more = std::max(slow_share_a, slow_share_b);
  if (more <= kSeparateAtMost) return PairVerdict::separate;
  if (less >= kSharedAtLeast) return PairVerdict::shared;
  return PairVerdict::unclear;
}

SegmentPlan plan_segments(ProbeContext& ctx) {
  SegmentPlan plan;
  plan.l2_size = conclusive_finding(ctx.topology, "l2", "size");
  if (!plan.l2_size) throw ProbeSkipped("needs a measured l2.size (the L2 one SM fills)");
  const nlohmann::json& evidence = plan.l2_size->evidence;
  if (!evidence.contains("threshold_cycles") || !evidence.at("threshold_cycles").is_number()) {
    throw ProbeSkipped("l2.size has no L2/DRAM threshold in its evidence");
  }
  plan.threshold_cycles = evidence.at("threshold_cycles").get<double>();
  plan.one_sm_bytes = plan.l2_size->value.get<std::uint64_t>();
  plan.stride =
      static_cast<std::uint32_t>(staircase_stride_bytes(evidence).value_or(kSmallestLineBytes));
  const BackendLimits limits = ctx.backend.limits();
  plan.footprint =
      round_down(std::min(static_cast<std::uint64_t>(kFootprintShareOfSegment *
                                                     static_cast<double>(plan.one_sm_bytes)),
                          limits.max_footprint_bytes),
                 plan.stride);
  if (plan.footprint < plan.stride) throw ProbeSkipped("l2.size is too small to chase 3/4 of it");
  plan.sms = limits.sm_ids;
  if (plan.sms.empty()) {
    for (std::uint32_t sm = 0; sm < limits.concurrent_slots; ++sm) plan.sms.push_back(sm);
  }
  if (plan.sms.size() < 2) throw ProbeSkipped("one SM only: no pair of SMs to compare");
  return plan;
}

std::vector<double> SegmentMeasurement::run_together(const std::vector<std::uint32_t>& sms,
                                                     const std::string& label) {
  std::vector<ChaseSpec> batch;
  for (std::uint32_t sm : sms) {
    batch.push_back(
        make_chase(LoadPath::cg, plan_.footprint, plan_.stride)
            .timed_loads(std::min(kSegmentTimedLoads, ctx_.backend.limits().max_timed_loads))
            .on_sm(sm)
            .warming_as_a_stream());  // sequential: the same lines in order, many at once
    loads_ += loads_of(batch.back());
  }
  ++batches_;
  std::vector<double> shares;
  for (const Trace& trace : ctx_.run(batch, label)) {
    shares.push_back(slow_share(trace, plan_.threshold_cycles));
  }
  return shares;
}

PairResult measure_pair(ProbeContext& ctx, SegmentMeasurement& measurement, std::uint32_t sm_a,
                        std::uint32_t sm_b) {
  const std::string sms = "SMs " + std::to_string(sm_a) + " and " + std::to_string(sm_b);
  ctx.progress("l2.segments: " + sms);
  const std::vector<double> shares = measurement.run_together({sm_a, sm_b}, "l2.segments/pair");
  PairResult pair{sm_a, sm_b, shares[0], shares[1], verdict_of(shares[0], shares[1]), std::nullopt};
  if (pair.verdict == PairVerdict::shared) return pair;
  // On an H200 the same six SMs were unclear against SM 0 in four runs (SM 0 lost 19-87 % of
  // its lines) and separate in the fifth: a new segment must hold when measured again, and an
  // unclear pair gets a second chance before the count is concluded.
  ctx.progress("l2.segments: " + sms + " again");
  pair.repeat_shares = measurement.run_together({sm_a, sm_b}, "l2.segments/repeat");
  const PairVerdict again = verdict_of((*pair.repeat_shares)[0], (*pair.repeat_shares)[1]);
  if (pair.verdict == PairVerdict::separate) {
    if (again != PairVerdict::separate) pair.verdict = PairVerdict::unclear;
  } else if (again == PairVerdict::shared) {
    pair.verdict = PairVerdict::shared;
  }
  return pair;
}

nlohmann::json pair_json(const PairResult& p) {
  nlohmann::json pair = {{"sm_a", p.sm_a},
                         {"sm_b", p.sm_b},
                         {"slow_share_a", p.slow_share_a},
                         {"slow_share_b", p.slow_share_b},
                         {"verdict", to_string(p.verdict)}};
  if (p.repeat_shares) {
    pair["repeat_slow_share_a"] = (*p.repeat_shares)[0];
    pair["repeat_slow_share_b"] = (*p.repeat_shares)[1];
  }
  return pair;
}

std::vector<std::uint32_t> spread_partners(const std::vector<std::uint32_t>& ids,
                                           std::size_t count) {
  if (ids.empty()) return {};
  const std::size_t others = ids.size() - 1;
  const std::size_t take = std::min(count, others);
  std::vector<std::uint32_t> partners;
  for (std::size_t k = 0; k < take; ++k) partners.push_back(ids[1 + k * others / take]);
  return partners;
}

}  // namespace memtopo
