#include "probes/l2/l2_segment_map_check.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "model/partition_rows.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// l2.partition_map when measured and conclusive (its value is a table, not a number).
const Property* conclusive_map(const Topology& topology) {
  const Property* map = any_finding(topology, "l2", "partition_map");
  if (!map || map->source != Source::measured || map->inconclusive || !map->value.is_array()) {
    return nullptr;
  }
  return map;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> partitions_to_pair(const Topology& topology,
                                                           const SegmentPlan& plan) {
  const Property* map = conclusive_map(topology);
  if (!map) return {};
  const std::set<std::uint32_t> pinnable(plan.sms.begin(), plan.sms.end());
  std::vector<std::vector<std::uint32_t>> partitions;
  for (const PartitionRow& row : partition_rows(*map)) {
    std::vector<std::uint32_t> sms;
    for (std::uint32_t sm : row.sms) {
      if (pinnable.contains(sm)) sms.push_back(sm);
    }
    std::sort(sms.begin(), sms.end());
    if (sms.empty()) continue;
    std::vector<std::uint32_t> chosen = {sms.front()};
    for (std::uint32_t sm : spread_partners(sms, kSmsPerPartition - 1)) chosen.push_back(sm);
    partitions.push_back(std::move(chosen));
  }
  if (partitions.size() < 2) return {};
  std::sort(partitions.begin(), partitions.end());  // the lowest SM id's partition first
  return partitions;
}

namespace {

// Pairs that check the map: SM a (the first SM of the first partition) with the SMs of every
// partition, and the first SM of every other partition with the rest of its own. The map predicts
// that SMs within a partition share a segment (both chases lose lines), and that SMs across
// partitions evict each other less than SMs within one: their pair's total loss (the sum of its
// two slow shares, averaged over its runs) stays at most kAcrossAtMost of the smallest total of a
// pair within a partition that shared. On an H200 a pair across lost about half of that (SM 0
// 45-57 % of its loads, the other 1-7 %, against about 50 % each within), and in one process
// whose l2.size came out large 55-75 % of it (46-77 % each, against 100 % each within): the
// far copies of copy-on-read fill part of the other partition, so pairs across are rarely
// "separate". A pair across that loses at least as much as a pair within contradicts the map.
constexpr double kAcrossAtMost = 0.75;

double total_loss(const PairResult& p) {
  double total = p.slow_share_a + p.slow_share_b;
  if (!p.repeat_shares) return total;
  total += (*p.repeat_shares)[0] + (*p.repeat_shares)[1];
  return total / 2;
}

// Pairs within: one segment agrees, separate (twice) contradicts. Pairs across: judged against
// the pairs within (kAcrossAtMost); unclear without a pair within that shared.
void judge_against_map(MapCheck& check) {
  for (std::size_t i = 0; i < check.pairs.size(); ++i) {
    if (!check.within[i] || check.pairs[i].verdict != PairVerdict::shared) continue;
    const double total = total_loss(check.pairs[i]);
    check.within_min_total = std::min(check.within_min_total.value_or(total), total);
  }
  for (std::size_t i = 0; i < check.pairs.size(); ++i) {
    const PairResult& p = check.pairs[i];
    MapJudgement j = MapJudgement::unclear;
    if (check.within[i]) {
      if (p.verdict == PairVerdict::shared) j = MapJudgement::agrees;
      if (p.verdict == PairVerdict::separate) j = MapJudgement::contradicts;
    } else if (p.verdict == PairVerdict::separate) {
      j = MapJudgement::agrees;
    } else if (check.within_min_total) {
      const double total = total_loss(p);
      if (total <= kAcrossAtMost * *check.within_min_total) j = MapJudgement::agrees;
      if (total >= *check.within_min_total) j = MapJudgement::contradicts;
    }
    check.judgements.push_back(j);
  }
}

const char* to_string(MapJudgement j) {
  switch (j) {
    case MapJudgement::agrees:
      return "as the map predicts";
    case MapJudgement::contradicts:
      return "against the map";
    default:
      return "unclear";
  }
}

}  // namespace

std::size_t MapCheck::count(MapJudgement j) const {
  return static_cast<std::size_t>(std::count(judgements.begin(), judgements.end(), j));
}

MapCheck check_map(ProbeContext& ctx, SegmentMeasurement& measurement,
                   std::vector<std::vector<std::uint32_t>> partitions) {
  MapCheck check;
  check.partitions = std::move(partitions);
  const std::uint32_t first = check.partitions.front().front();
  auto pair = [&](std::uint32_t a, std::uint32_t b, bool within) {
    check.pairs.push_back(measure_pair(ctx, measurement, a, b));
    check.within.push_back(within);
    return check.pairs.back().verdict == PairVerdict::shared;
  };
  for (std::size_t p = 0; p < check.partitions.size(); ++p) {
    const auto& sms = check.partitions[p];
    bool shared = false;
    for (std::size_t k = p == 0 ? 1 : 0; k < sms.size(); ++k) shared |= pair(first, sms[k], p == 0);
    if (p > 0) {
      shared = false;
      for (std::size_t k = 1; k < sms.size(); ++k) shared |= pair(sms.front(), sms[k], true);
    }
    if (!shared) check.partitions_without_sharing.push_back(static_cast<std::uint32_t>(p));
  }
  judge_against_map(check);
  return check;
}

nlohmann::json map_check_evidence(const MapCheck& check) {
  nlohmann::json pairs = nlohmann::json::array();
  for (std::size_t i = 0; i < check.pairs.size(); ++i) {
    nlohmann::json pair = pair_json(check.pairs[i]);
    pair["within_partition"] = static_cast<bool>(check.within[i]);
    pair["total_loss"] = total_loss(check.pairs[i]);
    pair["judged"] = to_string(check.judgements[i]);
    pairs.push_back(pair);
  }
  nlohmann::json evidence = {{"partitions_paired", check.partitions},
                             {"pairs", pairs},
                             {"agreeing", check.agreeing()},
                             {"contradicting", check.contradicting()},
                             {"across_at_most", kAcrossAtMost},
                             {"partitions_without_sharing", check.partitions_without_sharing}};
  if (check.within_min_total) evidence["within_min_total_loss"] = *check.within_min_total;
  return evidence;
}
}  // namespace memtopo
