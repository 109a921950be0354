#pragma once
// The console's L2 partition map section (l2.partition_map): which partition is near each SM.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <vector>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// When l2.partition_map exists: a title (its confidence or why it is inconclusive marked), the
// near and far first-touch latency, each partition's SMs as ranges, and a grid of SMs, 16 to a
// line, each shown by its partition's number ("?" unclear). Nothing otherwise.
void render_partition_map(std::ostream& out, const Topology& topology, Footnotes& notes,
                          std::size_t max_width);

// One partition of the map: its number and SMs.
struct PartitionRow {
  std::uint32_t partition = 0;
  std::vector<std::uint32_t> sms;
};
// l2.partition_map's value as rows; rows of another shape (a hand-edited or corrupt JSON) are
// left out rather than trusted.
std::vector<PartitionRow> partition_rows(const Property& map);

// The partition of each SM the map lists (nullopt: unclear), from l2.partition_map's value and
// evidence; empty when it has none.
std::map<std::uint32_t, std::optional<std::uint32_t>> partition_of_each_sm(const Property& map);

}  // namespace memtopo
