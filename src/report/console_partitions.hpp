#pragma once
// The console's L2 partition map section (l2.partition_map): which partition is near each SM.
#include <cstddef>
#include <ostream>
#include <vector>

#include "model/partition_rows.hpp"
#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// When l2.partition_map exists: a title (its confidence or why it is inconclusive marked), the
// near and far first-touch latency, each partition's SMs as ranges, and a grid of SMs, 16 to a
// line, each shown by its partition's number ("?" unclear). Nothing otherwise.
void render_partition_map(std::ostream& out, const Topology& topology, Footnotes& notes,
                          std::size_t max_width);

}  // namespace memtopo
