#include "probes/l2/l2_segments_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "model/partition_rows.hpp"
#include "model/units.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/l2/l2_segment_map_check.hpp"
#include "probes/l2/l2_segment_pairs.hpp"

namespace memtopo {
namespace {

// SMs paired with the first SM when there is no partition map: spread over the id range, so
// that SMs of every segment (near any part of the chip) are among them.
constexpr std::size_t kMaxPartnerSms = 16;
// Pairs at most, over every grouping round: enough to resolve two groups however the SMs split
// between them (16 pairs in the first round, at most 15 in the second), and a bound on the run
// time when SMs do not group.
constexpr std::size_t kMaxPairs = 2 * kMaxPartnerSms;
// segments x segment size agrees with the API L2 size within this share: the one-SM size is a
// section search's edge, a few lines below the capacity, and an API size may count a few
// reserved lines.
constexpr double kAgreesWithApiShare = 0.02;

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
    const PairResult pair = measure_pair(ctx, measurement, leader, partner);
    g.pairs.push_back(pair);
    if (pair.verdict == PairVerdict::shared) group.push_back(partner);
    if (pair.verdict == PairVerdict::separate) remaining.push_back(partner);
    if (pair.verdict == PairVerdict::unclear) g.unclear.push_back(partner);
  }
  g.groups.push_back(std::move(group));
  g.unresolved = std::move(remaining);
}

// The first SM's chase alone must fit, or no pair could show anything.
double run_control(ProbeContext& ctx, SegmentMeasurement& measurement, std::uint32_t sm) {
  ctx.progress("l2.segments: SM " + std::to_string(sm) + " alone");
  return measurement.run_together({sm}, "l2.segments/alone").front();
}

// Rounds until every SM tested is grouped or the pair limit is reached.
Grouping group_sms(ProbeContext& ctx, SegmentMeasurement& measurement, const SegmentPlan& plan,
                   double alone_share) {
  Grouping g;
  g.first_sm = plan.sms.front();
  g.alone_share = alone_share;
  g.unresolved = {g.first_sm};
  for (std::uint32_t sm : spread_partners(plan.sms, kMaxPartnerSms)) g.unresolved.push_back(sm);
  g.sms_tested = g.unresolved.size();
  if (!g.control_fits()) return g;
  while (!g.unresolved.empty() && !g.capped) lead_round(ctx, measurement, g);
  return g;
}

// ---- The properties ---------------------------------------------------------------------------

std::string grouping_method(const SegmentPlan& plan, std::uint32_t first_sm) {
  return "pairs of concurrent warm pointer chases via cg on two SMs, one pair per batch, each "
         "over its own " +
         format_bytes(static_cast<double>(plan.footprint)) + " (3/4 of the one-SM l2.size, " +
         format_bytes(static_cast<double>(plan.stride)) + " stride, sequential, 1 warm pass + " +
         std::to_string(kSegmentTimedLoads) +
         " timed loads); a pair whose loads stay below the l2.size L2/DRAM threshold fills two "
         "segments (only when a second run of the pair agrees), one whose loads miss shares one "
         "(an unclear pair is measured twice); SMs grouped by whom they share with, "
         "starting from SM " +
         std::to_string(first_sm) + " and up to " + std::to_string(kMaxPartnerSms) +
         " SMs spread over the id range";
}

std::string map_method(const SegmentPlan& plan) {
  return "the partitions of l2.partition_map, checked by pairs of concurrent warm pointer chases "
         "via cg on two SMs, one pair per batch, each over its own " +
         format_bytes(static_cast<double>(plan.footprint)) + " (3/4 of the one-SM l2.size, " +
         format_bytes(static_cast<double>(plan.stride)) + " stride, sequential, 1 warm pass + " +
         std::to_string(kSegmentTimedLoads) + " timed loads): up to " +
         std::to_string(kSmsPerPartition) +
         " SMs of every partition paired with the first SM and within their partition; the map "
         "predicts one segment within a partition (both chases lose lines) and, across, a total "
         "loss (both chases' slow shares) at most 3/4 of the smallest within; a pair that is not "
         "one segment is measured twice";
}

nlohmann::json plan_evidence(const SegmentPlan& plan, std::uint32_t first_sm, double alone_share) {
  return {{"footprint_bytes", plan.footprint},
          {"stride_bytes", plan.stride},
          {"threshold_cycles", plan.threshold_cycles},
          {"separate_at_most", kSeparateAtMost},
          {"shared_at_least", kSharedAtLeast},
          {"alone", {{"sm", first_sm}, {"slow_share", alone_share}}}};
}

void add_grouping_evidence(nlohmann::json& evidence, const Grouping& g) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairResult& p : g.pairs) pairs.push_back(pair_json(p));
  evidence["sms_tested"] = g.sms_tested;
  evidence["pairs"] = pairs;
  evidence["groups"] = g.groups;
  evidence["unclear_sms"] = g.unclear;
  evidence["unresolved_sms"] = g.unresolved;
}

// segments x segment size against the API L2 size (known only with an API size and a count).
struct ApiComparison {
  bool known = false;
  double ratio = 0;
  bool agrees = false;
  std::string text;  // "" when not known
};

ApiComparison compare_with_api(const SegmentPlan& plan, std::size_t count, bool lower_bound,
                               std::uint64_t api) {
  if (api == 0 || count == 0) return {};
  const double segments_bytes = static_cast<double>(count * plan.one_sm_bytes);
  ApiComparison c;
  c.known = true;
  c.ratio = segments_bytes / static_cast<double>(api);
  c.agrees = std::abs(c.ratio - 1.0) <= kAgreesWithApiShare;
  c.text = std::string(lower_bound ? "at least " : "") + std::to_string(count) + " segment(s) x " +
           format_bytes(static_cast<double>(plan.one_sm_bytes)) + " = " +
           format_bytes(segments_bytes) + " against the API L2 of " +
           format_bytes(static_cast<double>(api)) + " (ratio " + format_number(c.ratio, 3) +
           (c.agrees ? ": agrees)" : ")");
  return c;
}

// What the probe concluded, before it becomes the two properties.
struct SegmentCount {
  Property segments;
  std::size_t count = 0;  // 0: none
  ApiComparison api;
};

void add_api_evidence(SegmentCount& result, std::uint64_t api) {
  if (!result.api.known) return;
  result.segments.evidence["api_l2_bytes"] = api;
  result.segments.evidence["segments_x_size_over_api"] = result.api.ratio;
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
                     " SM(s) gave unclear pairs twice (one chase lost lines, the other not, or a "
                     "share between the limits): they may fill another segment, so at least " +
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

SegmentCount count_by_grouping(const SegmentPlan& plan, const Grouping& g, std::uint64_t api) {
  SegmentCount result;
  Property& segments = result.segments;
  segments.method = grouping_method(plan, g.first_sm);
  segments.evidence = plan_evidence(plan, g.first_sm, g.alone_share);
  add_grouping_evidence(segments.evidence, g);
  if (g.control_fits()) {
    result.count = g.groups.size();
    result.api = compare_with_api(plan, result.count, g.count_is_lower_bound(), api);
    add_api_evidence(result, api);
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
    conclude_count(segments, g, result.api);
  }
  return result;
}

// The map's partitions are the segments when no pair contradicted the map and every partition
// showed one segment within it. Confidence: the map's, times the agreement of the pairs with
// what the map predicts (an unclear pair counts as a check that did not agree).
SegmentCount count_from_map(const SegmentPlan& plan, const MapCheck& check, double alone_share,
                            std::uint64_t api) {
  SegmentCount result;
  Property& segments = result.segments;
  const std::uint32_t first = check.partitions.front().front();
  segments.method = map_method(plan);
  segments.evidence = plan_evidence(plan, first, alone_share);
  segments.evidence["map_check"] = map_check_evidence(check);
  segments.evidence["groups"] = check.partitions;
  result.count = check.partitions.size();
  segments.value = result.count;
  result.api = compare_with_api(plan, result.count, false, api);
  add_api_evidence(result, api);
  const std::string partitions = std::to_string(result.count) + " L2 partitions";
  if (!check.partitions_without_sharing.empty()) {
    segments.inconclusive = true;
    std::string which;
    for (std::uint32_t p : check.partitions_without_sharing) {
      which += (which.empty() ? "" : ", ") + std::to_string(p);
    }
    segments.note = "no pair within partition(s) " + which +
                    " of l2.partition_map shared a segment clearly (their pairs were unclear "
                    "twice): the " +
                    partitions + " may be segments, not shown. " + result.api.text;
    return result;
  }
  segments.note = "the " + partitions +
                  " of l2.partition_map are the segments: SMs of one "
                  "partition evict each other's lines, " +
                  std::to_string(check.agreeing()) + " of " + std::to_string(check.pairs.size()) +
                  " pairs as the map predicts, none against it. " + result.api.text;
  // Planned from l2.partition_map: the runner caps by it (core/inheritance.hpp).
  Confidence confidence{agreement(check.agreeing(), check.pairs.size(),
                                  "SM pairs that behaved as the partition map predicts")};
  set_confidence(segments, confidence);
  return result;
}

// l2.segment_size (derived) = E: one SM's chase fills its own segment only. As sure as l2.size
// (the runner's `inherited` factor) when the segment count is conclusive.
Property segment_size_property(const SegmentPlan& plan, const SegmentCount& result,
                               const Element& l2, std::uint64_t api) {
  Property p;
  p.name = "segment_size";
  p.unit = "bytes";
  p.source = Source::derived;
  p.value = plan.one_sm_bytes;
  p.spread = plan.l2_size->spread;  // the edge's spread over placements (l2.size)
  p.inconclusive = result.segments.inconclusive;
  p.method = "the one-SM l2.size: one SM's cg chase fills its own segment only (l2.segments)";
  p.evidence = {{"l2_size_bytes", plan.one_sm_bytes},
                {"segments", result.segments.value},
                {"segments_x_size_bytes", static_cast<double>(result.count * plan.one_sm_bytes)}};
  if (api > 0) p.evidence["api_l2_bytes"] = api;
  // The staircase's own step inside L2 (a near/far boundary, if it saw one) stays as evidence.
  if (const Property* inner = l2.find("segment_size")) {
    p.evidence["staircase_inner_step"] = {{"value", inner->value}, {"method", inner->method}};
  }
  p.note = result.count > 0 ? result.api.text : "no segment count: " + result.segments.note;
  if (!p.inconclusive) set_confidence(p, Confidence{});
  return p;
}

// With a partition map: its pairs first; a pair against the map sends the probe back to
// grouping SMs by their pairs alone (the map's partitions are then not the segments), with the
// map's pairs kept in the evidence.
SegmentCount measure_segments(ProbeContext& ctx, const SegmentPlan& plan,
                              SegmentMeasurement& measurement, std::uint64_t api) {
  auto partitions = partitions_to_pair(ctx.topology, plan);
  const std::uint32_t first = partitions.empty() ? plan.sms.front() : partitions.front().front();
  const double alone_share = run_control(ctx, measurement, first);
  std::optional<MapCheck> check;
  if (!partitions.empty() && alone_share <= kSeparateAtMost) {
    check = check_map(ctx, measurement, std::move(partitions));
    if (check->contradicting() == 0) {
      return count_from_map(plan, *check, alone_share, api);
    }
  }
  SegmentCount result =
      count_by_grouping(plan, group_sms(ctx, measurement, plan, alone_share), api);
  if (check) {
    result.segments.evidence["map_check"] = map_check_evidence(*check);
    result.segments.note = std::to_string(check->contradicting()) +
                           " pair(s) contradicted l2.partition_map (its partitions are not the "
                           "segments), so SMs were grouped by their pairs alone: " +
                           result.segments.note;
  }
  return result;
}

}  // namespace

std::string L2SegmentsProbe::description() const {
  return "L2 segments: pairs of concurrent cg chases on two SMs, each over 3/4 of the one-SM L2 "
         "size, evict each other when the SMs fill one segment; planned from the L2 partition "
         "map when there is one";
}

void L2SegmentsProbe::run(ProbeContext& ctx) {
  const SegmentPlan plan = plan_segments(ctx);
  SegmentMeasurement measurement(ctx, plan);
  const std::uint64_t api = ctx.backend.facts().l2_bytes;
  SegmentCount result = measure_segments(ctx, plan, measurement, api);
  result.segments.name = "segments";
  result.segments.unit = "";
  result.segments.evidence["loads"] = measurement.loads();
  result.segments.evidence["batches"] = measurement.batches();
  Element& l2 = element_for(ctx.topology, "l2");
  Property segment_size = segment_size_property(plan, result, l2, api);
  l2.set(std::move(result.segments));
  l2.set(std::move(segment_size));
}

}  // namespace memtopo
