// l2/'s probes: the L2's staircase row (l2.size), its partitions, the near partition of each SM
// (which replaces what it confirms of l2.partitions), its segments.
#include "probes/core/registry.hpp"
#include "probes/core/staircase_probe.hpp"
#include "probes/l2/l2_partition_map_probe.hpp"
#include "probes/l2/l2_partitions_probe.hpp"
#include "probes/l2/l2_segments_probe.hpp"

namespace memtopo {

void register_l2_probes(ProbeList& probes) {
  probes.push_back(staircase_probe("l2.size"));
  probes.push_back(std::make_unique<L2PartitionProbe>());
  probes.push_back(std::make_unique<L2PartitionMapProbe>());
  probes.push_back(std::make_unique<L2SegmentsProbe>());
}

}  // namespace memtopo
