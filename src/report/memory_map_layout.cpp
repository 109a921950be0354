// The memory map of one device: the GPU as a frame holding, top to bottom, the SM with its own
// caches, the L2 (its partitions inside it) beside the device's TLBs, and memory, with the path
// of a load drawn between the tiers.
#include <algorithm>
#include <optional>
#include <string>

#include "model/units.hpp"
#include "report/memory_map.hpp"
#include "report/memory_map_boxes.hpp"
#include "report/memory_map_geometry.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kSmColumns = 5;
constexpr std::size_t kPartitionColumns = 4;
constexpr std::size_t kMemoryColumns = 3;
constexpr double kL2Share = 0.64;  // of the tier's width, when TLBs stand beside it

std::string gpu_title(const Topology& topology) {
  const DeviceFacts& d = topology.device;
  std::string title = (topology.run.simulated ? "SIMULATED " : "") + d.name;
  if (d.sm_count) title += " · " + std::to_string(d.sm_count) + " SMs";
  if (d.cc_major) {
    title += " · compute capability " + std::to_string(d.cc_major) + "." +
             std::to_string(d.cc_minor);
  }
  if (d.sm_clock_khz) title += " · SM clock " + format_clock_khz(static_cast<double>(d.sm_clock_khz));
  return title;
}

MapBox frame(std::string id, std::string title, double x, double y, double width) {
  MapBox box;
  box.id = std::move(id);
  box.kind = MapBoxKind::frame;
  box.title = fitted_title(title, width);
  box.x = x;
  box.y = y;
  box.width = width;
  return box;
}

// A straight link without a label.
MapLink link(double x1, double y1, double x2, double y2) { return {x1, y1, x2, y2, 0, {}}; }

double center(const MapBox& box) { return box.x + box.width / 2; }
double bottom(const MapBox& box) { return box.y + box.height; }

// The L2 at (x, y) across `width`, its partitions placed inside it below its text.
void place_l2(MapBox& l2, std::vector<MapBox>& partitions, double x, double y, double width) {
  fit_box(l2, width);
  l2.x = x;
  l2.y = y;
  if (partitions.empty()) return;
  const double height = place_rows(partitions, x + kMapPad, bottom(l2), width - 2 * kMapPad,
                                   kPartitionColumns);
  l2.height += height + kMapPad;
}

// Places the tier of the L2 and what stands beside it from `y`; returns its height.
double place_device_tier(DeviceBoxes& boxes, double x, double y, double width) {
  if (!boxes.l2) return place_rows(boxes.beside_l2, x, y, width, kMemoryColumns);
  const double l2_width = boxes.beside_l2.empty() ? width : width * kL2Share;
  place_l2(*boxes.l2, boxes.l2_partitions, x, y, l2_width);
  const double beside =
      place_rows(boxes.beside_l2, x + l2_width + kMapGap, y, width - l2_width - kMapGap, 1);
  return std::max(boxes.l2->height, beside);
}

}  // namespace

MemoryMap memory_map(const Topology& topology) {
  MemoryMap map;
  DeviceBoxes boxes = device_boxes(topology);
  if (boxes.per_sm.empty() && !boxes.l2 && boxes.beside_l2.empty() && boxes.memory.empty()) {
    return map;
  }
  map.title = "Memory map: " + topology.device.name;
  map.width = kMapWidth;
  const double outer = kMapWidth - 2 * kMapMargin;
  MapBox gpu = frame("gpu", gpu_title(topology), kMapMargin, kMapMargin, outer);
  const double x = kMapMargin + kMapPad, width = outer - 2 * kMapPad;
  double y = kMapMargin + kMapTitleHeight + kMapPad / 2;

  std::vector<MapBox> placed;
  std::optional<MapBox> sm_frame;
  if (!boxes.per_sm.empty()) {
    const std::uint32_t sms = topology.device.sm_count;
    sm_frame = frame("sm", sms ? "each of the " + std::to_string(sms) + " SMs" : "each SM", x, y,
                     width);
    const double height = place_rows(boxes.per_sm, x + kMapPad, y + kMapTitleHeight,
                                     width - 2 * kMapPad, kSmColumns);
    sm_frame->height = kMapTitleHeight + height + kMapPad;
    y += sm_frame->height + kMapLinkHeight;
  }
  const double device_top = y;
  if (boxes.l2 || !boxes.beside_l2.empty()) {
    y += place_device_tier(boxes, x, y, width) + kMapLinkHeight;
  }
  const double memory_top = y;
  y += place_rows(boxes.memory, x, y, width, kMemoryColumns) + kMapPad;
  gpu.height = y - gpu.y;

  map.boxes.push_back(gpu);
  if (sm_frame) map.boxes.push_back(*sm_frame);
  for (auto* tier : {&boxes.per_sm, &boxes.beside_l2}) {
    map.boxes.insert(map.boxes.end(), tier->begin(), tier->end());
  }
  if (boxes.l2) {
    map.boxes.push_back(*boxes.l2);
    map.boxes.insert(map.boxes.end(), boxes.l2_partitions.begin(), boxes.l2_partitions.end());
  }
  map.boxes.insert(map.boxes.end(), boxes.memory.begin(), boxes.memory.end());

  // The path of a load that misses: SM -> L2 -> memory.
  const double l2_x = boxes.l2 ? center(*boxes.l2) : x + width / 2;
  if (sm_frame && boxes.l2) map.links.push_back(link(l2_x, bottom(*sm_frame), l2_x, device_top));
  if (!boxes.memory.empty()) {
    const MapBox& memory = boxes.memory.front();
    const double from = boxes.l2 ? bottom(*boxes.l2) : (sm_frame ? bottom(*sm_frame) : memory.y);
    // Straight down where the memory box lies under the L2's middle, else from above its own.
    const double x_memory = memory.x <= l2_x && l2_x <= memory.x + memory.width ? l2_x : center(memory);
    if (boxes.l2 || sm_frame) map.links.push_back(link(x_memory, from, x_memory, memory_top));
  }
  map.height = y + kMapGap + kMapLegendHeight + kMapMargin;
  return map;
}

}  // namespace memtopo
