#pragma once
// l2.segments planned from l2.partition_map: which SMs of which partitions are paired, and the
// judgement of every pair against what the map predicts (within one partition: one segment;
// across partitions: less loss than within).
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"
#include "probes/core/probe.hpp"
#include "probes/l2/l2_segment_pairs.hpp"

namespace memtopo {

// SMs of each partition paired when the pairs are planned from l2.partition_map: the map has
// already placed every SM, the pairs check what the partitions mean for capacity.
inline constexpr std::size_t kSmsPerPartition = 4;

enum class MapJudgement { agrees, contradicts, unclear };

struct MapCheck {
  std::vector<std::vector<std::uint32_t>> partitions;
  std::vector<PairResult> pairs;
  std::vector<bool> within;                               // per pair: both SMs in one partition
  std::vector<std::uint32_t> partitions_without_sharing;  // no pair within shared (unclear)
  std::optional<double> within_min_total;  // smallest total loss of a pair within that shared
  std::vector<MapJudgement> judgements;    // per pair

  std::size_t count(MapJudgement j) const;
  std::size_t agreeing() const { return count(MapJudgement::agrees); }
  std::size_t contradicting() const { return count(MapJudgement::contradicts); }
};

// The map's partitions, each with up to kSmsPerPartition of its SMs (those the backend can pin
// chases to), the first SM's partition first and the first SM leading it. Empty without a
// conclusive map of two or more partitions.
std::vector<std::vector<std::uint32_t>> partitions_to_pair(const Topology& topology,
                                                           const SegmentPlan& plan);

// Pairs that check the map (l2_segment_map_check.cpp says which), each judged.
MapCheck check_map(ProbeContext& ctx, SegmentMeasurement& measurement,
                   std::vector<std::vector<std::uint32_t>> partitions);

nlohmann::json map_check_evidence(const MapCheck& check);

}  // namespace memtopo
