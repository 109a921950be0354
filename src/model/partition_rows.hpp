#pragma once
// l2.partition_map's value read back: which SMs each L2 partition is near. Shared by the report
// (its section and grid) and by the probes planned from the map (l2.segments).
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// One partition of the map: its number and SMs.
struct PartitionRow {
  std::uint32_t partition = 0;
  std::vector<std::uint32_t> sms;
};

// l2.partition_map's value as rows; rows of another shape (a hand-edited or corrupt JSON) are
// left out rather than trusted, and so are SM ids above 65535.
std::vector<PartitionRow> partition_rows(const Property& map);

// The partition of each SM the map lists (nullopt: unclear), from l2.partition_map's value and
// evidence; empty when it has none.
std::map<std::uint32_t, std::optional<std::uint32_t>> partition_of_each_sm(const Property& map);

}  // namespace memtopo
