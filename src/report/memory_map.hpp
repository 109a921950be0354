#pragma once
// The memory map: the measured hierarchy drawn as boxes, as hwloc's lstopo draws a CPU (issue 36
// item 1). A layout model computed from the Topology (memory_map_layout.cpp) or from a
// multi-device run (memory_map_multi.cpp), and one SVG writer of it (memory_map_svg.cpp); both
// pure functions, so that the picture of a run is reproducible and testable against golden files.
#include <string>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

struct MultiDeviceReport;

// One line of text in a box: "240 KiB, line 128 B", "542 / 730 cy", "≥ 62 KiB", "64 KiB (api)".
struct MapText {
  std::string text;
  bool low = false;     // a value of confidence below kLowConfidence: "~", drawn lighter
  bool unsure = false;  // inconclusive ("?") or only a bound (≥ / ≤)
};

enum class MapBoxKind {
  frame,      // a container: the GPU, the SM, the L2's partitions
  cache,      // an SM-local cache or scratchpad
  device,     // a device-wide cache (L2)
  memory,     // DRAM, constant memory, the host
  tlb,        // a TLB level
  partition,  // one L2 partition and the SMs near it
  gpu,        // one GPU of a multi-device run
};

struct MapBox {
  std::string id;  // element ids joined by '+' ("l1+tex+ro"), "sm", "gpu0", "l2-p0"
  MapBoxKind kind = MapBoxKind::cache;
  std::string title;
  std::vector<MapText> lines;
  bool low = false;  // a shown value of low confidence: dashed outline
  double x = 0, y = 0, width = 0, height = 0;
};

// A connection between two boxes: the path loads take, or a link between GPUs (p2p figures).
struct MapLink {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  double bend = 0;  // 0: straight; else the height of an arc above the line (GPU rows)
  std::vector<MapText> label;
};

struct MemoryMap {
  std::string title;
  double width = 0, height = 0;
  std::vector<MapBox> boxes;  // frames before the boxes they hold
  std::vector<MapLink> links;
  bool legend = true;
};

// The map of one device; an empty map (no boxes) when the topology has no memory elements.
MemoryMap memory_map(const Topology& topology);
// The GPUs of a multi-device run and their links with the p2p figures (from report.p2p).
MemoryMap memory_map(const MultiDeviceReport& report);

// The map as a self-contained <svg> (no XML declaration: it also goes inline into HTML), scaled
// to the width of its container; "" for a map without boxes.
std::string render_memory_map_svg(const MemoryMap& map);

// The map of a topology as SVG: what --svg FILE writes.
inline std::string memory_map_svg(const Topology& topology) {
  return render_memory_map_svg(memory_map(topology));
}

}  // namespace memtopo
