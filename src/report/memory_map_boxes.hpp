#pragma once
// What the memory map's boxes say (internal to the memory map): one box per memory element, or
// per group of elements that share storage (l1.shared_with: "L1 / tex / ro"), each with the
// lines the map shows (size, line, latency, bandwidth ...), sorted into the tiers the layout
// stacks: per-SM boxes, the L2 with its partitions and the device's TLBs, and memory.
#include <optional>
#include <vector>

#include "model/topology.hpp"
#include "report/memory_map.hpp"

namespace memtopo {

struct DeviceBoxes {
  std::vector<MapBox> per_sm;         // caches, scratchpad and TLBs of each SM
  std::optional<MapBox> l2;           // the device-wide cache
  std::vector<MapBox> l2_partitions;  // drawn inside the L2 when its partition map is known
  std::vector<MapBox> beside_l2;      // device-wide TLBs and other device caches
  std::vector<MapBox> memory;         // DRAM, constant memory
};

DeviceBoxes device_boxes(const Topology& topology);

// The name a box gives an element: "L1", "constant L1.5", "L2 TLB"; the id for unknown ones.
std::string element_title(const std::string& element_id);

}  // namespace memtopo
