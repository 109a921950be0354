#include "probes/l2/l2_segments_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Each chase of a pair covers this share of the one-SM L2 size E: alone it fits with room to
// spare (a quarter of E for imperfect replacement and hashing), while two of them in one
// segment ask for 1.5 E and evict each other.
constexpr double kFootprintShareOfSegment = 0.75;
// Timed loads per chase after its warm pass: a few thousand samples of the steady state.
constexpr std::uint32_t kTimedLoads = 4096;
// SMs paired with the first SM: spread over the id range, so that SMs of every segment (near
// any part of the chip) are among them.
constexpr std::size_t kMaxPartnerSms = 16;
// Pairs at most, over every grouping round: enough to resolve two groups however the SMs split
// between them (16 pairs in the first round, at most 15 in the second), and a bound on the run
// time when SMs do not group.
constexpr std::size_t kMaxPairs = 2 * kMaxPartnerSms;
// Verdicts on each chase's share of timed loads slower than the L2/DRAM threshold. Two
// 0.75 E arrays in one segment of E miss on every load under LRU or FIFO and on about 58 %
// under random replacement (a line survives 1.5 E / E other fills with probability
// exp(-1.5 x miss rate)); a pair in separate segments misses no more than a chase alone.
// Both chases must agree: one segment evicts both arrays. A pair where only one chase loses
// lines is unclear (an H100 showed SM 0 losing 30-70 % against six partner SMs whose own chases
// lost at most 12 %; averaged, that read as one segment, and in a later run both lost < 5 %).
constexpr double kSeparateAtMost = 0.1;
constexpr double kSharedAtLeast = 0.3;
// segments x segment size agrees with the API L2 size within this share: the one-SM size is a
// section search's edge, a few lines below the capacity, and an API size may count a few
// reserved lines.
constexpr double kAgreesWithApiShare = 0.02;

enum class PairVerdict { separate, shared, unclear };

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

PairVerdict verdict_of(double leader_slow_share, double partner_slow_share) {
  const double less = std::min(leader_slow_share, partner_slow_share);
  const double more = std::max(leader_slow_share, partner_slow_share);
  if (more <= kSeparateAtMost) return PairVerdict::separate;
  if (less >= kSharedAtLeast) return PairVerdict::shared;
  return PairVerdict::unclear;
}

// Share of a trace's timed loads slower than the threshold (overhead-corrected).
double slow_share(const Trace& trace, double threshold_cycles) {
  const std::vector<double> cycles = corrected_cycles(trace);
  if (cycles.empty()) return 0;
  const auto slow =
      std::count_if(cycles.begin(), cycles.end(), [&](double c) { return c > threshold_cycles; });
  return static_cast<double>(slow) / static_cast<double>(cycles.size());
}

// Up to `count` ids of `ids[1..]`, evenly spread over them (the first one always included).
std::vector<std::uint32_t> spread_partners(const std::vector<std::uint32_t>& ids,
                                           std::size_t count) {
  const std::size_t others = ids.size() - 1;
  const std::size_t take = std::min(count, others);
  std::vector<std::uint32_t> partners;
  for (std::size_t k = 0; k < take; ++k) partners.push_back(ids[1 + k * others / take]);
  return partners;
}

// What the pairs are planned from: l2.size (E, its L2/DRAM threshold, its stride) and the SMs.
struct SegmentPlan {
  const Property* l2_size = nullptr;
  std::uint64_t one_sm_bytes = 0;  // E
  double threshold_cycles = 0;
  // The stride l2.size was measured with: the pair's chases must count lines exactly as the
  // chase that found E did.
  std::uint32_t stride = 0;
  std::uint64_t footprint = 0;  // 3/4 E, on the stride
  std::vector<std::uint32_t> sms;
};

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

class SegmentMeasurement {
 public:
  SegmentMeasurement(ProbeContext& ctx, const SegmentPlan& plan) : ctx_(ctx), plan_(plan) {}

  // Slow shares of chases run together, one per SM of `sms`, nothing else in the batch: a
  // device-wide cache must hold only their lines.
  std::vector<double> run_together(const std::vector<std::uint32_t>& sms,
                                   const std::string& label) {
    std::vector<ChaseSpec> batch;
    for (std::uint32_t sm : sms) {
      batch.push_back(make_chase(LoadPath::cg, plan_.footprint, plan_.stride)
                          .timed_loads(std::min(kTimedLoads, ctx_.backend.limits().max_timed_loads))
                          .on_sm(sm));
      loads_ += loads_of(batch.back());
    }
    ++batches_;
    std::vector<double> shares;
    for (const Trace& trace : ctx_.run(batch, label)) {
      shares.push_back(slow_share(trace, plan_.threshold_cycles));
    }
    return shares;
  }

  std::uint64_t loads() const { return loads_; }
  std::uint32_t batches() const { return batches_; }

 private:
  ProbeContext& ctx_;
  const SegmentPlan& plan_;
  std::uint64_t loads_ = 0;
  std::uint32_t batches_ = 0;
};

struct PairResult {
  std::uint32_t leader = 0;
  std::uint32_t partner = 0;
  double leader_slow_share = 0;
  double partner_slow_share = 0;
  PairVerdict verdict = PairVerdict::unclear;
  // A "separate" verdict opens a segment: the pair runs once more, and only a second
  // "separate" keeps it (the repeat's shares; else the verdict becomes unclear).
  std::optional<std::vector<double>> repeat_shares;
};

// The SMs grouped by whom they share a segment with.
struct Grouping {
  std::uint32_t first_sm = 0;
  double alone_share = 0;  // the control: the first SM's chase alone
  std::size_t sms_tested = 0;
  std::vector<std::vector<std::uint32_t>> groups;
  std::vector<std::uint32_t> unclear;     // SMs whose pair with a leader was unclear
  std::vector<std::uint32_t> unresolved;  // SMs in no group when the pair limit was reached
  std::vector<PairResult> pairs;
  bool capped = false;

  bool control_fits() const { return alone_share <= kSeparateAtMost; }
  std::size_t pairs_with(bool (*keep)(PairVerdict)) const {
    return static_cast<std::size_t>(std::count_if(
        pairs.begin(), pairs.end(), [&](const PairResult& p) { return keep(p.verdict); }));
  }
  std::size_t shared_pairs() const {
    return pairs_with([](PairVerdict v) { return v == PairVerdict::shared; });
  }
  std::size_t clear_pairs() const {
    return pairs_with([](PairVerdict v) { return v != PairVerdict::unclear; });
  }
  // Whether the count is only a lower bound: no pair shared, SMs left ungrouped, or SMs whose
  // pairs were unclear (they may fill a segment of their own).
  bool count_is_lower_bound() const {
    return (shared_pairs() == 0 && groups.size() > 1) || capped || !unclear.empty();
  }
};

// One round: the first unresolved SM leads and is paired with every other unresolved SM, one
// pair per batch; those that share its segment join its group, those in separate segments stay
// unresolved for the next round, unclear ones leave every group.
void lead_round(ProbeContext& ctx, SegmentMeasurement& measurement, Grouping& g) {
  const std::uint32_t leader = g.unresolved.front();
  std::vector<std::uint32_t> group = {leader};
  std::vector<std::uint32_t> remaining;
  for (std::size_t k = 1; k < g.unresolved.size(); ++k) {
    const std::uint32_t partner = g.unresolved[k];
    if (g.pairs.size() >= kMaxPairs) {
      g.capped = true;
      remaining.push_back(partner);
      continue;
    }
    ctx.progress("l2.segments: SMs " + std::to_string(leader) + " and " + std::to_string(partner));
    const std::vector<double> shares =
        measurement.run_together({leader, partner}, "l2.segments/pair");
    PairResult pair{leader, partner, shares[0], shares[1], verdict_of(shares[0], shares[1])};
    if (pair.verdict == PairVerdict::separate) {
      // On an H200 the same six SMs were unclear against SM 0 in four runs (SM 0 lost 19-87 %
      // of its lines) and separate in the fifth: a new segment must hold when measured again.
      ctx.progress("l2.segments: SMs " + std::to_string(leader) + " and " +
                   std::to_string(partner) + " again");
      pair.repeat_shares = measurement.run_together({leader, partner}, "l2.segments/repeat");
      const auto& again = *pair.repeat_shares;
      if (verdict_of(again[0], again[1]) != PairVerdict::separate) pair.verdict = PairVerdict::unclear;
    }
    g.pairs.push_back(pair);
    if (pair.verdict == PairVerdict::shared) group.push_back(partner);
    if (pair.verdict == PairVerdict::separate) remaining.push_back(partner);
    if (pair.verdict == PairVerdict::unclear) g.unclear.push_back(partner);
  }
  g.groups.push_back(std::move(group));
  g.unresolved = std::move(remaining);
}

// Control first (the first SM's chase alone must fit, or no pair could show anything), then
// rounds until every SM tested is grouped or the pair limit is reached.
Grouping group_sms(ProbeContext& ctx, SegmentMeasurement& measurement, const SegmentPlan& plan) {
  Grouping g;
  g.first_sm = plan.sms.front();
  ctx.progress("l2.segments: SM " + std::to_string(g.first_sm) + " alone");
  g.alone_share = measurement.run_together({g.first_sm}, "l2.segments/alone").front();
  g.unresolved = {g.first_sm};
  for (std::uint32_t sm : spread_partners(plan.sms, kMaxPartnerSms)) g.unresolved.push_back(sm);
  g.sms_tested = g.unresolved.size();
  if (!g.control_fits()) return g;
  while (!g.unresolved.empty() && !g.capped) lead_round(ctx, measurement, g);
  return g;
}

std::string segments_method(const SegmentPlan& plan, std::uint32_t first_sm) {
  return "pairs of concurrent warm pointer chases via cg on two SMs, one pair per batch, each "
         "over its own " +
         format_bytes(static_cast<double>(plan.footprint)) + " (3/4 of the one-SM l2.size, " +
         format_bytes(static_cast<double>(plan.stride)) + " stride, sequential, 1 warm pass + " +
         std::to_string(kTimedLoads) +
         " timed loads); a pair whose loads stay below the l2.size L2/DRAM threshold fills two "
         "segments (only when a second run of the pair agrees), one whose loads miss shares one; "
         "SMs grouped by whom they share with, "
         "starting from SM " +
         std::to_string(first_sm) + " and up to " + std::to_string(kMaxPartnerSms) +
         " SMs spread over the id range";
}

nlohmann::json segments_evidence(const SegmentPlan& plan, const Grouping& g,
                                 const SegmentMeasurement& measurement) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairResult& p : g.pairs) {
    nlohmann::json pair = {{"sm_a", p.leader},
                           {"sm_b", p.partner},
                           {"slow_share_a", p.leader_slow_share},
                           {"slow_share_b", p.partner_slow_share},
                           {"verdict", to_string(p.verdict)}};
    if (p.repeat_shares) {
      pair["repeat_slow_share_a"] = (*p.repeat_shares)[0];
      pair["repeat_slow_share_b"] = (*p.repeat_shares)[1];
    }
    pairs.push_back(pair);
  }
  return {{"footprint_bytes", plan.footprint},
          {"stride_bytes", plan.stride},
          {"threshold_cycles", plan.threshold_cycles},
          {"separate_at_most", kSeparateAtMost},
          {"shared_at_least", kSharedAtLeast},
          {"alone", {{"sm", g.first_sm}, {"slow_share", g.alone_share}}},
          {"sms_tested", g.sms_tested},
          {"pairs", pairs},
          {"groups", g.groups},
          {"unclear_sms", g.unclear},
          {"unresolved_sms", g.unresolved},
          {"loads", measurement.loads()},
          {"batches", measurement.batches()}};
}

// segments x segment size against the API L2 size (known only with an API size and a count).
struct ApiComparison {
  bool known = false;
  double ratio = 0;
  bool agrees = false;
  std::string text;  // "" when not known
};

ApiComparison compare_with_api(const SegmentPlan& plan, const Grouping& g, std::uint64_t api) {
  const std::size_t count = g.groups.size();
  if (api == 0 || count == 0) return {};
  const double segments_bytes = static_cast<double>(count * plan.one_sm_bytes);
  ApiComparison c;
  c.known = true;
  c.ratio = segments_bytes / static_cast<double>(api);
  c.agrees = std::abs(c.ratio - 1.0) <= kAgreesWithApiShare;
  c.text = std::string(g.count_is_lower_bound() ? "at least " : "") + std::to_string(count) +
           " segment(s) x " + format_bytes(static_cast<double>(plan.one_sm_bytes)) + " = " +
           format_bytes(segments_bytes) + " against the API L2 of " +
           format_bytes(static_cast<double>(api)) + " (ratio " + format_number(c.ratio, 3) +
           (c.agrees ? ": agrees)" : ")");
  return c;
}

// The count when pairs shared: a lower bound when the pair limit left SMs ungrouped or pairs
// were unclear; otherwise conclusive, as sure as the agreement of the pairs' two chases.
void conclude_count(Property& segments, const Grouping& g, const ApiComparison& api) {
  const std::size_t count = g.groups.size();
  segments.value = count;
  if (g.capped) {
    segments.inconclusive = true;
    segments.bound = Bound::lower;
    segments.note = "the pair limit (" + std::to_string(kMaxPairs) + ") left " +
                    std::to_string(g.unresolved.size()) + " SM(s) ungrouped: at least " +
                    std::to_string(count) + " segments. ";
  }
  if (!g.unclear.empty()) {
    segments.inconclusive = true;
    segments.bound = Bound::lower;
    segments.note += std::to_string(g.unclear.size()) +
                     " SM(s) gave unclear pairs (one chase lost lines, the other not, or a share "
                     "between the limits): they may fill another segment, so at least " +
                     std::to_string(count) + ". " + api.text;
  } else if (count == 1) {
    segments.note += "every SM tested shares SM " + std::to_string(g.first_sm) +
                     "'s segment: one segment. " + api.text +
                     (api.known && !api.agrees
                          ? "; the single-SM size differs from the API for another reason than "
                            "segments (explanation inconclusive)"
                          : "");
  } else {
    segments.note +=
        std::to_string(count) + " groups of SMs fill separate parts of L2: " + api.text;
  }
  if (!segments.inconclusive) {
    set_confidence(segments, {agreement(g.clear_pairs(), g.pairs.size(),
                                        "SM pairs whose two chases agreed (a clear verdict)")});
  }
}

Property segments_property(const SegmentPlan& plan, const Grouping& g,
                           const SegmentMeasurement& measurement, std::uint64_t api,
                           const ApiComparison& comparison) {
  Property segments;
  segments.name = "segments";
  segments.unit = "";
  segments.method = segments_method(plan, g.first_sm);
  segments.evidence = segments_evidence(plan, g, measurement);
  if (comparison.known) {
    segments.evidence["api_l2_bytes"] = api;
    segments.evidence["segments_x_size_over_api"] = comparison.ratio;
  }
  if (!g.control_fits()) {
    segments.value = nullptr;
    segments.inconclusive = true;
    segments.note = "a chase over 3/4 of l2.size alone on SM " + std::to_string(g.first_sm) +
                    " already misses (" + format_number(g.alone_share, 3) +
                    " of its loads): no pair can be judged";
  } else if (g.shared_pairs() == 0 && g.groups.size() > 1) {
    // Every SM alone in its group: concurrent chases never disturbed each other.
    segments.value = g.groups.size();
    segments.inconclusive = true;
    segments.bound = Bound::lower;
    segments.note =
        "no pair of the " + std::to_string(g.sms_tested) + " SMs tested (" +
        std::to_string(g.pairs.size()) +
        " pairs) evicted each other's lines: either they fill separate segments (the value "
        "counts the groups resolved within the pair limit, a lower bound), or concurrent chases "
        "on different SMs do not share a device cache (a simulated device whose specs run "
        "alone)";
  } else {
    conclude_count(segments, g, comparison);
  }
  return segments;
}

// l2.segment_size (derived) = E: one SM's chase fills its own segment only. As sure as l2.size
// when the segment count is conclusive.
Property segment_size_property(const SegmentPlan& plan, const Grouping& g, const Property& segments,
                               const Element& l2, std::uint64_t api,
                               const ApiComparison& comparison) {
  const std::size_t count = g.groups.size();
  Property p;
  p.name = "segment_size";
  p.unit = "bytes";
  p.source = Source::derived;
  p.value = plan.one_sm_bytes;
  p.inconclusive = segments.inconclusive;
  p.method = "the one-SM l2.size: one SM's cg chase fills its own segment only (l2.segments)";
  p.evidence = {{"l2_size_bytes", plan.one_sm_bytes},
                {"segments", segments.value},
                {"segments_x_size_bytes", static_cast<double>(count * plan.one_sm_bytes)}};
  if (api > 0) p.evidence["api_l2_bytes"] = api;
  // The staircase's own step inside L2 (a near/far boundary, if it saw one) stays as evidence.
  if (const Property* inner = l2.find("segment_size")) {
    p.evidence["staircase_inner_step"] = {{"value", inner->value}, {"method", inner->method}};
  }
  p.note = count > 0 ? comparison.text : "no segment count: " + segments.note;
  if (!p.inconclusive && plan.l2_size->confidence) {
    set_confidence(p, {inherited(*plan.l2_size->confidence, "l2.size")});
  }
  return p;
}

}  // namespace

std::string L2SegmentsProbe::description() const {
  return "L2 segments: pairs of concurrent cg chases on two SMs, each over 3/4 of the one-SM L2 "
         "size, evict each other when the SMs fill one segment";
}

void L2SegmentsProbe::run(ProbeContext& ctx) {
  const SegmentPlan plan = plan_segments(ctx);
  SegmentMeasurement measurement(ctx, plan);
  const Grouping grouping = group_sms(ctx, measurement, plan);
  const std::uint64_t api = ctx.backend.facts().l2_bytes;
  const ApiComparison comparison = compare_with_api(plan, grouping, api);
  Property segments = segments_property(plan, grouping, measurement, api, comparison);
  Element& l2 = element_for(ctx.topology, "l2");
  Property segment_size = segment_size_property(plan, grouping, segments, l2, api, comparison);
  l2.set(std::move(segments));
  l2.set(std::move(segment_size));
}

}  // namespace memtopo
