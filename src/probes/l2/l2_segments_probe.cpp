#include "probes/l2/l2_segments_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"

namespace memtopo {
namespace {

// Each chase of a pair covers this share of the one-SM L2 size E: alone it fits with room to
// spare (a quarter of E for imperfect replacement and hashing), while two of them in one
// segment ask for 1.5 E and evict each other.
constexpr double kFootprintShareOfSegment = 0.75;
// The stride l2.size was measured with when no l1.line was measured (as its staircase does):
// the pair's chases must count lines exactly as the chase that found E did.
constexpr std::uint32_t kFallbackStrideBytes = 32;
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
constexpr double kSeparateAtMost = 0.1;
constexpr double kSharedAtLeast = 0.3;
// Both chases must agree: one segment evicts both arrays. A pair where only one chase loses
// lines is unclear (an H100 showed SM 0 losing 30-70 % against six partner SMs whose own chases
// lost at most 12 %; averaged, that read as one segment, and in a later run both lost < 5 %).
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

// A measured property of the topology that is a number, not a bound or inconclusive.
const Property* measured_number(const Topology& topology, const std::string& element,
                                const std::string& name) {
  const Element* e = topology.find(element);
  const Property* p = e ? e->find(name) : nullptr;
  if (!p || p->source != Source::measured || p->inconclusive || !p->value.is_number()) {
    return nullptr;
  }
  return p;
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

class SegmentMeasurement {
 public:
  SegmentMeasurement(ProbeContext& ctx, std::uint64_t footprint, std::uint32_t stride,
                     double threshold)
      : ctx_(ctx), footprint_(footprint), stride_(stride), threshold_(threshold) {}

  ChaseSpec chase_on(std::uint32_t sm) const {
    ChaseSpec spec;
    spec.path = LoadPath::cg;
    spec.footprint_bytes = footprint_;
    spec.stride_bytes = stride_;
    spec.order = ChaseOrder::sequential;
    spec.warm_passes = 1;
    spec.timed_loads = std::min(kTimedLoads, ctx_.backend.limits().max_timed_loads);
    spec.sm = sm;
    return spec;
  }

  // Slow shares of chases run together, one per SM of `sms`, nothing else in the batch: a
  // device-wide cache must hold only their lines.
  std::vector<double> run_together(const std::vector<std::uint32_t>& sms,
                                   const std::string& label) {
    std::vector<ChaseSpec> batch;
    for (std::uint32_t sm : sms) {
      batch.push_back(chase_on(sm));
      loads_ += loads_of(batch.back());
    }
    ++batches_;
    std::vector<double> shares;
    for (const Trace& trace : ctx_.run(batch, label)) {
      shares.push_back(slow_share(trace, threshold_));
    }
    return shares;
  }

  std::uint64_t loads() const { return loads_; }
  std::uint32_t batches() const { return batches_; }

 private:
  ProbeContext& ctx_;
  std::uint64_t footprint_;
  std::uint32_t stride_;
  double threshold_;
  std::uint64_t loads_ = 0;
  std::uint32_t batches_ = 0;
};

struct PairResult {
  std::uint32_t leader = 0;
  std::uint32_t partner = 0;
  double leader_slow_share = 0;
  double partner_slow_share = 0;
  PairVerdict verdict = PairVerdict::unclear;
};

}  // namespace

std::string L2SegmentsProbe::description() const {
  return "L2 segments: pairs of concurrent cg chases on two SMs, each over 3/4 of the one-SM L2 "
         "size, evict each other when the SMs fill one segment";
}

void L2SegmentsProbe::run(ProbeContext& ctx) {
  const Property* l2_size = measured_number(ctx.topology, "l2", "size");
  if (!l2_size) throw ProbeSkipped("needs a measured l2.size (the L2 one SM fills)");
  const auto* threshold = l2_size->evidence.find("threshold_cycles") != l2_size->evidence.end()
                              ? &l2_size->evidence.at("threshold_cycles")
                              : nullptr;
  if (!threshold || !threshold->is_number()) {
    throw ProbeSkipped("l2.size has no L2/DRAM threshold in its evidence");
  }
  const double threshold_cycles = threshold->get<double>();
  const auto one_sm_bytes = l2_size->value.get<std::uint64_t>();
  const Property* line = measured_number(ctx.topology, "l1", "line");
  const std::uint32_t stride = line ? line->value.get<std::uint32_t>() : kFallbackStrideBytes;
  const BackendLimits limits = ctx.backend.limits();
  const std::uint64_t footprint = round_down(
      std::min(
          static_cast<std::uint64_t>(kFootprintShareOfSegment * static_cast<double>(one_sm_bytes)),
          limits.max_footprint_bytes),
      stride);
  if (footprint < stride) throw ProbeSkipped("l2.size is too small to chase 3/4 of it");
  std::vector<std::uint32_t> ids = limits.sm_ids;
  if (ids.empty()) {
    for (std::uint32_t sm = 0; sm < limits.concurrent_slots; ++sm) ids.push_back(sm);
  }
  if (ids.size() < 2) throw ProbeSkipped("one SM only: no pair of SMs to compare");

  SegmentMeasurement measurement(ctx, footprint, stride, threshold_cycles);
  // Control: SM a's chase alone must fit, or no pair could show anything.
  const std::uint32_t first_sm = ids.front();
  ctx.progress("l2.segments: SM " + std::to_string(first_sm) + " alone");
  const double alone_share = measurement.run_together({first_sm}, "l2.segments/alone").front();

  // Grouping: the first unresolved SM leads a round and is paired with every other unresolved
  // SM, one pair per batch; the SMs that share its segment join its group. Unclear pairs leave
  // their SM out of every group.
  std::vector<std::uint32_t> unresolved = {first_sm};
  for (std::uint32_t sm : spread_partners(ids, kMaxPartnerSms)) unresolved.push_back(sm);
  const std::size_t sms_tested = unresolved.size();
  std::vector<std::vector<std::uint32_t>> groups;
  std::vector<std::uint32_t> unclear;
  std::vector<PairResult> pairs;
  bool capped = false;
  if (alone_share <= kSeparateAtMost) {
    while (!unresolved.empty()) {
      const std::uint32_t leader = unresolved.front();
      std::vector<std::uint32_t> group = {leader};
      std::vector<std::uint32_t> remaining;
      for (std::size_t k = 1; k < unresolved.size(); ++k) {
        const std::uint32_t partner = unresolved[k];
        if (pairs.size() >= kMaxPairs) {
          capped = true;
          remaining.push_back(partner);
          continue;
        }
        ctx.progress("l2.segments: SMs " + std::to_string(leader) + " and " +
                     std::to_string(partner));
        const std::vector<double> shares =
            measurement.run_together({leader, partner}, "l2.segments/pair");
        PairResult pair{leader, partner, shares[0], shares[1],
                        verdict_of(shares[0], shares[1])};
        pairs.push_back(pair);
        if (pair.verdict == PairVerdict::shared) group.push_back(partner);
        if (pair.verdict == PairVerdict::separate) remaining.push_back(partner);
        if (pair.verdict == PairVerdict::unclear) unclear.push_back(partner);
      }
      groups.push_back(std::move(group));
      if (capped) {
        unresolved = std::move(remaining);
        break;
      }
      unresolved = std::move(remaining);
    }
  }

  const std::uint64_t api = ctx.backend.facts().l2_bytes;
  const auto shared_pairs = std::count_if(pairs.begin(), pairs.end(), [](const PairResult& p) {
    return p.verdict == PairVerdict::shared;
  });
  const auto clear_pairs = std::count_if(pairs.begin(), pairs.end(), [](const PairResult& p) {
    return p.verdict != PairVerdict::unclear;
  });
  nlohmann::json pair_evidence = nlohmann::json::array();
  for (const PairResult& p : pairs) {
    pair_evidence.push_back({{"sm_a", p.leader},
                             {"sm_b", p.partner},
                             {"slow_share_a", p.leader_slow_share},
                             {"slow_share_b", p.partner_slow_share},
                             {"verdict", to_string(p.verdict)}});
  }
  const std::string method =
      "pairs of concurrent warm pointer chases via cg on two SMs, one pair per batch, each over "
      "its own " +
      format_bytes(static_cast<double>(footprint)) + " (3/4 of the one-SM l2.size, " +
      format_bytes(static_cast<double>(stride)) + " stride, sequential, 1 warm pass + " +
      std::to_string(kTimedLoads) +
      " timed loads); a pair whose loads stay below the l2.size L2/DRAM threshold fills two "
      "segments, one whose loads miss shares one; SMs grouped by whom they share with, "
      "starting from SM " +
      std::to_string(first_sm) + " and up to " + std::to_string(kMaxPartnerSms) +
      " SMs spread over the id range";
  Property segments;
  segments.name = "segments";
  segments.unit = "";
  segments.method = method;
  segments.evidence = {{"footprint_bytes", footprint},
                       {"stride_bytes", stride},
                       {"threshold_cycles", threshold_cycles},
                       {"separate_at_most", kSeparateAtMost},
                       {"shared_at_least", kSharedAtLeast},
                       {"alone", {{"sm", first_sm}, {"slow_share", alone_share}}},
                       {"sms_tested", sms_tested},
                       {"pairs", pair_evidence},
                       {"groups", groups},
                       {"unclear_sms", unclear},
                       {"unresolved_sms", unresolved},
                       {"loads", measurement.loads()},
                       {"batches", measurement.batches()}};
  const std::size_t count = groups.size();
  const double segments_bytes = static_cast<double>(count * one_sm_bytes);
  const std::string api_text = format_bytes(static_cast<double>(api));
  // Whether the count is only a lower bound: no pair shared, SMs left ungrouped, or SMs whose
  // pairs were unclear (they may fill a segment of their own).
  const bool count_is_lower_bound = (shared_pairs == 0 && count > 1) || capped || !unclear.empty();
  std::string comparison;
  bool agrees_with_api = false;
  if (api > 0 && count > 0) {
    const double ratio = segments_bytes / static_cast<double>(api);
    agrees_with_api = std::abs(ratio - 1.0) <= kAgreesWithApiShare;
    segments.evidence["api_l2_bytes"] = api;
    segments.evidence["segments_x_size_over_api"] = ratio;
    comparison = std::string(count_is_lower_bound ? "at least " : "") + std::to_string(count) +
                 " segment(s) x " + format_bytes(static_cast<double>(one_sm_bytes)) + " = " +
                 format_bytes(segments_bytes) + " against the API L2 of " + api_text + " (ratio " +
                 format_number(ratio, 3) + (agrees_with_api ? ": agrees)" : ")");
  }
  if (alone_share > kSeparateAtMost) {
    segments.value = nullptr;
    segments.inconclusive = true;
    segments.note = "a chase over 3/4 of l2.size alone on SM " + std::to_string(first_sm) +
                    " already misses (" + format_number(alone_share, 3) +
                    " of its loads): no pair can be judged";
  } else if (shared_pairs == 0 && count > 1) {
    // Every SM alone in its group: concurrent chases never disturbed each other.
    segments.value = count;
    segments.inconclusive = true;
    segments.bound = Bound::lower;
    segments.note =
        "no pair of the " + std::to_string(sms_tested) + " SMs tested (" +
        std::to_string(pairs.size()) +
        " pairs) evicted each other's lines: either they fill separate segments (the value "
        "counts the groups resolved within the pair limit, a lower bound), or concurrent chases "
        "on different SMs do not share a device cache (a simulated device whose specs run "
        "alone)";
  } else {
    segments.value = count;
    segments.confidence =
        pairs.empty() ? 0.0 : static_cast<double>(clear_pairs) / static_cast<double>(pairs.size());
    if (capped) {
      segments.inconclusive = true;
      segments.bound = Bound::lower;
      segments.note = "the pair limit (" + std::to_string(kMaxPairs) + ") left " +
                      std::to_string(unresolved.size()) + " SM(s) ungrouped: at least " +
                      std::to_string(count) + " segments. ";
    }
    if (!unclear.empty()) {
      segments.inconclusive = true;
      segments.bound = Bound::lower;
      segments.note += std::to_string(unclear.size()) +
                       " SM(s) gave unclear pairs (one chase lost lines, the other not, or a "
                       "share between the limits): they may fill another segment, so at least " +
                       std::to_string(count) + ". " + comparison;
    } else if (count == 1) {
      segments.note += "every SM tested shares SM " + std::to_string(first_sm) +
                       "'s segment: one segment. " + comparison +
                       (api > 0 && !agrees_with_api
                            ? "; the single-SM size differs from the API for another reason "
                              "than segments (explanation inconclusive)"
                            : "");
    } else {
      segments.note +=
          std::to_string(count) + " groups of SMs fill separate parts of L2: " + comparison;
    }
  }
  Element& l2 = element_for(ctx.topology, "l2");
  Property segment_size;
  segment_size.name = "segment_size";
  segment_size.unit = "bytes";
  segment_size.source = Source::derived;
  segment_size.value = one_sm_bytes;
  segment_size.inconclusive = segments.inconclusive;
  segment_size.confidence = l2_size->confidence;
  segment_size.method =
      "the one-SM l2.size: one SM's cg chase fills its own segment only (l2.segments)";
  segment_size.evidence = {{"l2_size_bytes", one_sm_bytes},
                           {"segments", segments.value},
                           {"segments_x_size_bytes", segments_bytes}};
  if (api > 0) segment_size.evidence["api_l2_bytes"] = api;
  // The staircase's own step inside L2 (a near/far boundary, if it saw one) stays as evidence.
  if (const Property* inner = l2.find("segment_size")) {
    segment_size.evidence["staircase_inner_step"] = {{"value", inner->value},
                                                     {"method", inner->method}};
  }
  segment_size.note = count > 0 ? comparison : "no segment count: " + segments.note;
  l2.set(std::move(segments));
  l2.set(std::move(segment_size));
}

}  // namespace memtopo
