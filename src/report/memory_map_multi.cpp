// The memory map of a multi-device run: one box per GPU (its size facts and headline levels), the
// host's pinned memory below them, and a link per pair with what the p2p family measured (the
// link, a dependent load's latency, SM reads and copy-engine reads); GPU pairs as arcs above
// the row, the lower position acting.
#include <algorithm>
#include <string>

#include "model/units.hpp"
#include "report/memory_map.hpp"
#include "report/memory_map_geometry.hpp"
#include "report/memory_map_text.hpp"
#include "report/multi_device_report.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kLabelLines = 3;
constexpr double kLabelHeight = kMapLineHeight * kLabelLines + 8;
constexpr double kArcStep = kLabelHeight + 6;  // each span of GPUs rises this much higher

void add_line(std::vector<MapText>& lines, std::optional<MapText> line) {
  if (line) lines.push_back(std::move(*line));
}

std::optional<MapText> headline(const Topology& topology, const char* element,
                                const char* property, const std::string& prefix) {
  const Element* e = topology.find(element);
  return e ? map_text(*e, property, prefix) : std::nullopt;
}

MapBox gpu_box(const Topology& topology, std::size_t position) {
  const DeviceFacts& d = topology.device;
  MapBox box;
  box.kind = MapBoxKind::gpu;
  box.id = "gpu" + std::to_string(position);
  box.title = "GPU " + std::to_string(d.device_index) + ": " + d.name;
  box.lines.push_back({std::to_string(d.sm_count) + " SMs · memory " +
                       format_bytes(static_cast<double>(d.global_memory_bytes)) + " (api)"});
  add_line(box.lines, headline(topology, "l1", "latency", "L1 "));
  add_line(box.lines, headline(topology, "l2", "latency", "L2 "));
  add_line(box.lines, headline(topology, "dram", "latency", "DRAM "));
  add_line(box.lines, headline(topology, "dram", "bandwidth", "DRAM read "));
  box.low = std::any_of(box.lines.begin(), box.lines.end(), [](const MapText& l) { return l.low; });
  return box;
}

// A latency shows its time ("933 ns"): GPUs of other clocks compare in seconds.
std::optional<MapText> pair_text(const P2pPair& pair, const char* name, const std::string& prefix) {
  const Property* property = pair.find(name);
  if (!property) return std::nullopt;
  Property shown = *property;
  if (shown.seconds_value) {
    shown.value = *shown.seconds_value;
    shown.unit = "seconds";
  }
  return map_text(shown, prefix);
}

std::vector<MapText> pair_label(const P2pPair& pair) {
  std::vector<MapText> label;
  add_line(label, pair_text(pair, p2p_property::kLink, ""));
  add_line(label, pair_text(pair, p2p_property::kLatency, "load "));
  std::vector<MapText> rates;
  add_line(rates, pair_text(pair, p2p_property::kSmRead, "SM "));
  add_line(rates, pair_text(pair, p2p_property::kCopyRead, "copy "));
  if (!rates.empty()) {
    MapText line{rates.front().text, rates.front().low, rates.front().unsure};
    for (std::size_t i = 1; i < rates.size(); ++i) {
      line.text += " · " + rates[i].text;
      line.low = line.low || rates[i].low;
      line.unsure = line.unsure || rates[i].unsure;
    }
    label.push_back(line);
  }
  if (label.empty()) label.push_back({"not measured", false, true});
  return label;
}

}  // namespace

MemoryMap memory_map(const MultiDeviceReport& report) {
  MemoryMap map;
  if (report.devices.empty()) return map;
  map.title = "Memory map: " + std::to_string(report.devices.size()) + " GPUs and their links";
  map.width = kMapWidth;
  const std::size_t count = report.devices.size();
  const bool pairs = report.p2p && count > 1;
  const double top = kMapMargin + (pairs ? kArcStep * static_cast<double>(count - 1) : 0);
  std::vector<MapBox> gpus;
  for (std::size_t i = 0; i < count; ++i) gpus.push_back(gpu_box(report.devices[i], i));
  const double row = place_rows(gpus, kMapMargin, top, kMapWidth - 2 * kMapMargin, count);
  double y = top + row;
  const auto center = [&](std::size_t i) { return gpus[i].x + gpus[i].width / 2; };

  if (pairs) {
    for (std::size_t a = 0; a < count; ++a) {
      for (std::size_t b = a + 1; b < count; ++b) {
        const P2pPair* pair = report.p2p->find(static_cast<int>(a), static_cast<int>(b));
        if (!pair) continue;
        MapLink link{center(a), top, center(b), top, kArcStep * static_cast<double>(b - a),
                     pair_label(*pair)};
        link.bend -= kLabelHeight / 2;  // the label sits on the arc's top, below the GPU above
        map.links.push_back(link);
      }
    }
  }
  const bool host = report.p2p && std::any_of(report.p2p->pairs.begin(), report.p2p->pairs.end(),
                                              [](const P2pPair& p) { return p.memory == kHostColumn; });
  map.boxes = gpus;
  if (host) {
    const double host_top = y + kLabelHeight + 2 * kMapGap;
    for (std::size_t i = 0; i < count; ++i) {
      const P2pPair* pair = report.p2p->find(static_cast<int>(i), kHostColumn);
      if (!pair) continue;
      map.links.push_back({center(i), y, center(i), host_top, 0, pair_label(*pair)});
    }
    MapBox memory;
    memory.kind = MapBoxKind::memory;
    memory.id = "host";
    memory.title = "host: pinned memory";
    fit_box(memory, kMapWidth - 2 * kMapMargin);
    memory.x = kMapMargin;
    memory.y = host_top;
    map.boxes.push_back(memory);
    y = host_top + memory.height;
  }
  map.height = y + kMapGap + kMapLegendHeight + kMapMargin;
  return map;
}

}  // namespace memtopo
