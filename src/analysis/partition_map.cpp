#include "analysis/partition_map.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/stats.hpp"
#include "model/units.hpp"

namespace memtopo {
namespace {

// An SM whose verdicts agree with its partition less often than this is left unclear.
constexpr double kMinSmAgreement = 0.75;
// The map is conclusive when at most these shares of verdicts are mixed and of SMs unclear.
constexpr double kMaxMixedShare = 0.25;
constexpr double kMaxUnclearShare = 0.1;
// One mode means: this share of the first touches within kOneModeBand of their p50.
constexpr double kOneModeBand = 0.1;
constexpr double kMinOneModeShare = 0.9;
// Launches that measure disagreeing SMs again, after the partitions are found and checked.
constexpr std::size_t kRemeasureLaunches = 2;

TouchVerdict verdict_of(const ReaderFirstTouch& reader, double threshold) {
  if (reader.first.empty()) return TouchVerdict::mixed;
  const auto far = std::count_if(reader.first.begin(), reader.first.end(),
                                 [&](double cycles) { return cycles > threshold; });
  const double far_share = static_cast<double>(far) / static_cast<double>(reader.first.size());
  if (far_share <= kNearShareLimit) return TouchVerdict::near;
  if (far_share >= kFarShareLimit) return TouchVerdict::far;
  return TouchVerdict::mixed;
}

// Every SM a launch names (warmers and readers), sorted.
std::vector<std::uint32_t> every_sm(std::span<const FirstTouchLaunch> launches) {
  std::set<std::uint32_t> sms;
  for (const FirstTouchLaunch& launch : launches) {
    sms.insert(launch.warmer_sm);
    for (const ReaderFirstTouch& reader : launch.readers) sms.insert(reader.sm);
  }
  return {sms.begin(), sms.end()};
}

// Partitions as the launches open them: a warmer no earlier launch placed opens one, with the
// readers near it that no earlier launch placed.
std::map<std::uint32_t, std::uint32_t> opening_partitions(
    std::span<const FirstTouchLaunch> launches,
    const std::vector<std::vector<TouchVerdict>>& verdicts,
    std::vector<std::optional<std::uint32_t>>& warmer_partition, std::uint32_t& opened) {
  std::map<std::uint32_t, std::uint32_t> partition_of;
  opened = 0;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const FirstTouchLaunch& launch = launches[k];
    auto found = partition_of.find(launch.warmer_sm);
    if (found == partition_of.end()) {
      found = partition_of.emplace(launch.warmer_sm, opened++).first;
    }
    warmer_partition[k] = found->second;
    for (std::size_t r = 0; r < launch.readers.size(); ++r) {
      if (verdicts[k][r] == TouchVerdict::near) {
        partition_of.emplace(launch.readers[r].sm, found->second);
      }
    }
  }
  return partition_of;
}

// Each SM in the partition its verdicts agree with most; unclear on a tie or below
// kMinSmAgreement.
void assign_sms(std::span<const FirstTouchLaunch> launches, std::uint32_t opened,
                const std::map<std::uint32_t, std::uint32_t>& opening, PartitionMap& map) {
  for (const std::uint32_t sm : every_sm(launches)) {
    std::vector<std::size_t> agreeing(opened, 0);
    std::size_t verdicts = 0;
    for (std::size_t k = 0; k < launches.size(); ++k) {
      if (!map.warmer_partition[k]) continue;
      for (std::size_t r = 0; r < launches[k].readers.size(); ++r) {
        if (launches[k].readers[r].sm != sm || map.verdicts[k][r] == TouchVerdict::mixed) continue;
        ++verdicts;
        const bool near = map.verdicts[k][r] == TouchVerdict::near;
        for (std::uint32_t p = 0; p < opened; ++p) {
          if (near == (*map.warmer_partition[k] == p)) ++agreeing[p];
        }
      }
    }
    SmPartition placed;
    placed.sm = sm;
    placed.verdicts = verdicts;
    if (verdicts == 0) {
      // Only warmed: its own launch placed it.
      if (const auto found = opening.find(sm); found != opening.end()) {
        placed.partition = found->second;
      }
    } else {
      const auto best = std::max_element(agreeing.begin(), agreeing.end());
      placed.agreeing = *best;
      const bool tie = std::count(agreeing.begin(), agreeing.end(), *best) > 1;
      const bool enough = static_cast<double>(*best) >= kMinSmAgreement * verdicts;
      if (!tie && enough) placed.partition = static_cast<std::uint32_t>(best - agreeing.begin());
    }
    map.sms.push_back(placed);
  }
}

// Partitions renumbered in the order they were opened, empty ones dropped.
void collect_partitions(PartitionMap& map, std::uint32_t opened) {
  std::vector<std::vector<std::uint32_t>> members(opened);
  for (const SmPartition& sm : map.sms) {
    if (sm.partition) {
      members[*sm.partition].push_back(sm.sm);
    } else {
      map.unclear.push_back(sm.sm);
    }
  }
  std::vector<std::optional<std::uint32_t>> renumbered(opened);
  for (std::uint32_t p = 0; p < opened; ++p) {
    if (members[p].empty()) continue;
    renumbered[p] = static_cast<std::uint32_t>(map.partitions.size());
    map.partitions.push_back(members[p]);
  }
  for (SmPartition& sm : map.sms) {
    if (sm.partition) sm.partition = renumbered[*sm.partition];
    if (sm.partition) {
      map.agreeing += sm.agreeing;
      map.checked += sm.verdicts;
    }
  }
  for (auto& partition : map.warmer_partition) {
    if (partition) partition = renumbered[*partition];
  }
}

void judge(PartitionMap& map) {
  const double mixed_share =
      map.total_verdicts ? static_cast<double>(map.mixed) / map.total_verdicts : 0;
  std::size_t near = 0;
  for (const auto& launch : map.verdicts) {
    near += static_cast<std::size_t>(std::count(launch.begin(), launch.end(), TouchVerdict::near));
  }
  if (map.split.bimodal && map.verdicts.size() > 1 && near == 0) {
    map.by_address = true;
    map.reason = "no reader found all its lines near in any of " +
                 std::to_string(map.verdicts.size()) +
                 " launches, whichever SM warmed them: lines answer by their address, not by the "
                 "side of the SM that loaded them, so first touches do not map SMs to partitions";
    return;
  }
  const double unclear_share =
      map.sms.empty() ? 1 : static_cast<double>(map.unclear.size()) / map.sms.size();
  if (mixed_share > kMaxMixedShare) {
    map.reason = std::to_string(map.mixed) + " of " + std::to_string(map.total_verdicts) +
                 " reader verdicts fall between near (at most " +
                 format_number(100 * kNearShareLimit, 0) + " % of the lines far) and far (at least " +
                 format_number(100 * kFarShareLimit, 0) + " %)";
  } else if (unclear_share > kMaxUnclearShare) {
    map.reason = std::to_string(map.unclear.size()) + " of " + std::to_string(map.sms.size()) +
                 " SMs agree with no partition in at least " +
                 std::to_string(static_cast<int>(kMinSmAgreement * 100)) + " % of their verdicts";
  } else {
    map.conclusive = true;
    map.reason = std::to_string(map.agreeing) + " of " + std::to_string(map.checked) +
                 " reader verdicts agree with the map";
  }
}

}  // namespace

const char* to_string(TouchVerdict verdict) {
  switch (verdict) {
    case TouchVerdict::near: return "near";
    case TouchVerdict::far: return "far";
    case TouchVerdict::mixed: return "mixed";
  }
  return "?";
}

PartitionMap map_partitions(std::span<const FirstTouchLaunch> launches) {
  PartitionMap map;
  // Every line first: a far reader finds only part of its lines far, so its median may land on
  // either side (which made the far sets of one configuration differ by 15 SMs from launch to
  // launch). The readers' medians where lines do not split: a far line's latency spreads
  // widely (400 to 490 cycles on an H200) and may blur the modes of single lines.
  std::vector<double> medians, lines;
  for (const FirstTouchLaunch& launch : launches) {
    for (const ReaderFirstTouch& reader : launch.readers) {
      if (reader.first.empty()) continue;
      medians.push_back(summarize(reader.first).p50);
      lines.insert(lines.end(), reader.first.begin(), reader.first.end());
    }
  }
  if (medians.empty()) {
    map.reason = "no first touches";
    return map;
  }
  map.split = split_two_modes(lines, kFirstTouchModes);
  if (!map.split.bimodal) {
    if (ModeSplit by_reader = split_two_modes(medians, kFirstTouchModes); by_reader.bimodal) {
      map.split = by_reader;
    }
  }
  for (const FirstTouchLaunch& launch : launches) {
    std::vector<TouchVerdict> verdicts;
    for (const ReaderFirstTouch& reader : launch.readers) {
      verdicts.push_back(map.split.bimodal ? verdict_of(reader, map.split.threshold)
                                           : TouchVerdict::near);
      map.mixed += verdicts.back() == TouchVerdict::mixed;
      ++map.total_verdicts;
    }
    map.verdicts.push_back(std::move(verdicts));
  }
  map.warmer_partition.assign(launches.size(), std::nullopt);
  std::uint32_t opened = 0;
  const auto opening = opening_partitions(launches, map.verdicts, map.warmer_partition, opened);
  assign_sms(launches, opened, opening, map);
  collect_partitions(map, opened);
  judge(map);
  if (map.conclusive && !map.split.bimodal) {
    // One mode only when the first touches really are one: a spread without two modes (the
    // H200's 260 to 490 cycles in three clusters, with an earlier kernel) is no answer either way.
    const Spread all = summarize(lines);
    const double within = fraction_within(lines, all.p50, kOneModeBand);
    if (within < kMinOneModeShare) {
      map.conclusive = false;
      map.reason = "first touches spread from " + format_number(all.p5, 0) + " to " +
                   format_number(all.p95, 0) + " cycles (p5-p95; " +
                   format_number(100 * within, 0) + " % within 10 % of the p50 " +
                   format_number(all.p50, 0) + ") without two modes (" + map.split.reason +
                   "): neither one partition nor a map";
      map.partitions.clear();
    } else {
      map.reason = "first touches from every SM answer alike (" + map.split.reason +
                   "): one partition, or partitions that answer alike";
    }
  }
  return map;
}

std::optional<std::uint32_t> next_warmer(const PartitionMap& map,
                                         std::span<const FirstTouchLaunch> launches,
                                         std::size_t max_launches) {
  if (launches.empty() || launches.size() >= max_launches) return std::nullopt;
  std::set<std::uint32_t> warmers;
  for (const FirstTouchLaunch& launch : launches) warmers.insert(launch.warmer_sm);
  const auto unused_member = [&](const std::vector<std::uint32_t>& members)
      -> std::optional<std::uint32_t> {
    std::vector<std::uint32_t> unused;
    for (const std::uint32_t sm : members) {
      if (!warmers.count(sm)) unused.push_back(sm);
    }
    if (unused.empty()) return std::nullopt;
    return unused[unused.size() / 2];
  };
  if (!map.split.bimodal) {
    // One mode: check it once from another SM, then stop.
    return launches.size() == 1 ? unused_member(every_sm(launches)) : std::nullopt;
  }
  // Lines that answer by address: nobody near in two launches; more launches will not help.
  if (map.by_address) return std::nullopt;
  // A partition no warmer was in: an SM far in every launch it read in.
  std::map<std::uint32_t, bool> always_far;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    for (std::size_t r = 0; r < launches[k].readers.size(); ++r) {
      const std::uint32_t sm = launches[k].readers[r].sm;
      const bool far = map.verdicts[k][r] == TouchVerdict::far;
      const auto [it, inserted] = always_far.emplace(sm, far);
      if (!inserted) it->second = it->second && far;
    }
  }
  for (const auto& [sm, far] : always_far) {
    if (far && !warmers.count(sm)) return sm;
  }
  // Each partition of several SMs warmed from a second member.
  std::size_t planned = 0;
  std::vector<std::size_t> warmed(map.partitions.size(), 0);
  for (const auto& partition : map.warmer_partition) {
    if (partition) ++warmed[*partition];
  }
  for (std::size_t p = 0; p < map.partitions.size(); ++p) {
    planned += map.partitions[p].size() > 1 ? 2 : 1;
    if (map.partitions[p].size() > 1 && warmed[p] < 2) {
      if (const auto sm = unused_member(map.partitions[p])) return sm;
    }
  }
  // SMs that disagree with their partition, or are unclear: measured again, from the
  // partition warmed least so far.
  const bool disagreeing = std::any_of(map.sms.begin(), map.sms.end(), [](const SmPartition& s) {
    return s.verdicts > 0 && (!s.partition || s.agreeing < s.verdicts);
  });
  if (!disagreeing || launches.size() >= planned + kRemeasureLaunches || map.partitions.empty()) {
    return std::nullopt;
  }
  const auto least = std::min_element(warmed.begin(), warmed.end()) - warmed.begin();
  return unused_member(map.partitions[least]);
}

std::string sm_ranges(std::span<const std::uint32_t> sms) {
  std::string text;
  for (std::size_t i = 0; i < sms.size();) {
    std::size_t j = i;
    while (j + 1 < sms.size() && sms[j + 1] == sms[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    text += std::to_string(sms[i]);
    if (j > i) text += "-" + std::to_string(sms[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace memtopo
