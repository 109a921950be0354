#include "report/memory_map_boxes.hpp"

#include <algorithm>
#include <map>

#include "analysis/partition_map.hpp"
#include "model/partition_rows.hpp"
#include "model/units.hpp"
#include "report/console.hpp"
#include "report/console_hopper.hpp"
#include "report/memory_map_text.hpp"

namespace memtopo {
namespace {

const std::map<std::string, std::string>& known_titles() {
  static const std::map<std::string, std::string> titles = {
      {"l1", "L1"},        {"tex", "tex"},          {"ro", "ro"},
      {"constant_l1", "constant L1"},  {"constant_l15", "constant L1.5"},
      {"shared", "shared memory"},     {"l2", "L2"},  {"dram", "DRAM"},
      {"constant", "constant memory"}, {"tlb_l1", "L1 TLB"}, {"tlb_l2", "L2 TLB"},
      {"tlb_l3", "L3 TLB"}};
  return titles;
}

void add(std::vector<MapText>& lines, std::optional<MapText> line) {
  if (line) lines.push_back(std::move(*line));
}

// Several values on one line, "L1 23 cy · tex 89 cy": low or unsure when any of them is.
std::optional<MapText> joined(const std::vector<MapText>& parts) {
  if (parts.empty()) return std::nullopt;
  MapText line;
  for (const MapText& part : parts) {
    line.text += (line.text.empty() ? "" : " · ") + part.text;
    line.low = line.low || part.low;
    line.unsure = line.unsure || part.unsure;
  }
  return line;
}

// The last word of `text` ("cy" of "L1 23 cy").
std::string last_word(const std::string& text) {
  const std::size_t space = text.rfind(' ');
  return space == std::string::npos ? "" : text.substr(space + 1);
}

// "L1 23 · tex 89 · ro 23 cy": a unit every part ends with is said once, at the end.
void fold_common_unit(std::vector<MapText>& parts) {
  if (parts.size() < 2) return;
  const std::string unit = last_word(parts.front().text);
  const bool common = !unit.empty() && std::all_of(parts.begin(), parts.end(), [&](const MapText& p) {
    return last_word(p.text) == unit;
  });
  if (!common) return;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    parts[i].text.resize(parts[i].text.size() - unit.size() - 1);
  }
}

// One property of every member: "23 cy" for a box of one element, "L1 23 · tex 89 cy" for a
// group; members without it are left out.
std::optional<MapText> per_member(const std::vector<const Element*>& members,
                                  const std::string& name, const std::string& prefix = "") {
  std::vector<MapText> parts;
  for (const Element* member : members) {
    const std::string label = members.size() > 1 ? element_title(member->id) + " " : "";
    if (auto text = map_text(*member, name, label)) parts.push_back(*text);
  }
  fold_common_unit(parts);
  auto line = joined(parts);
  if (line) line->text = prefix + line->text;
  return line;
}

// The first member that has the property (the members of a group share their storage, so one
// size, line and geometry describe it).
std::optional<MapText> first_of(const std::vector<const Element*>& members,
                                const std::string& name, const std::string& prefix = "") {
  for (const Element* member : members) {
    if (auto text = map_text(*member, name, prefix)) return text;
  }
  return std::nullopt;
}

// "line 128 B · sector 32 B", "4 ways · 8 sets · lru": what the element has of these.
std::optional<MapText> row_of(const std::vector<const Element*>& members,
                              const std::vector<std::pair<std::string, std::string>>& names) {
  std::vector<MapText> parts;
  for (const auto& [name, prefix] : names) {
    if (auto text = first_of(members, name, prefix)) parts.push_back(*text);
  }
  return joined(parts);
}

std::string group_title(const std::vector<const Element*>& members) {
  std::string title;
  for (const Element* member : members) {
    title += (title.empty() ? "" : " / ") + element_title(member->id);
  }
  return title;
}

// "carveout 5 steps: L1 240 KiB → 21.25 KiB": l1.carveout's first and last rows.
std::optional<MapText> carveout_line(const Topology& topology) {
  const Element* l1 = topology.find("l1");
  const Property* carveout = l1 ? l1->find("carveout") : nullptr;
  if (!carveout || !carveout->value.is_array() || carveout->value.empty()) return std::nullopt;
  const auto l1_bytes = [](const nlohmann::json& row) {
    return row.is_object() && row.contains("l1_bytes") && row["l1_bytes"].is_number()
               ? format_bytes(row["l1_bytes"].get<double>())
               : std::string("?");
  };
  Property shown = *carveout;
  shown.value = std::to_string(carveout->value.size()) + " steps: L1 " +
                l1_bytes(carveout->value.front()) + " → " + l1_bytes(carveout->value.back());
  shown.unit = "";
  return map_text(shown, "carveout ");
}

MapBox box_of(const std::vector<const Element*>& members, MapBoxKind kind) {
  MapBox box;
  box.kind = kind;
  box.title = group_title(members);
  for (const Element* member : members) box.id += (box.id.empty() ? "" : "+") + member->id;
  return box;
}

void finish(MapBox& box) {
  box.low = std::any_of(box.lines.begin(), box.lines.end(), [](const MapText& line) {
    return line.low;
  });
}

MapBox cache_box(const std::vector<const Element*>& members, MapBoxKind kind) {
  MapBox box = box_of(members, kind);
  add(box.lines, first_of(members, "size"));
  add(box.lines, row_of(members, {{"line", "line "}, {"sector", "sector "}}));
  add(box.lines, row_of(members, {{"ways", "ways "}, {"sets", "sets "}, {"policy", ""}}));
  add(box.lines, per_member(members, "latency", "latency "));
  add(box.lines, per_member(members, "bandwidth", "read "));
  return box;
}

MapBox shared_box(const Element& shared, const Topology& topology) {
  MapBox box = box_of({&shared}, MapBoxKind::cache);
  add(box.lines, map_text(shared, "size"));
  add(box.lines, row_of({&shared}, {{"banks", "banks "}, {"bank_width", "width "}}));
  add(box.lines, map_text(shared, "latency", "latency "));
  add(box.lines, map_text(shared, "bandwidth", "read "));
  add(box.lines, carveout_line(topology));
  return box;
}

MapBox tlb_box(const Element& tlb) {
  MapBox box = box_of({&tlb}, MapBoxKind::tlb);
  add(box.lines, map_text(tlb, "reach", "reach "));
  add(box.lines, row_of({&tlb}, {{"entries", "entries "}, {"page", "page "}}));
  add(box.lines, row_of({&tlb}, {{"ways", "ways "}, {"sets", "sets "}}));
  add(box.lines, map_text(tlb, "miss_penalty", "miss penalty "));
  return box;
}

MapBox l2_box(const Element& l2, const Topology& topology) {
  MapBox box = cache_box({&l2}, MapBoxKind::device);
  if (topology.device.l2_bytes) {
    box.lines.insert(box.lines.begin() + (box.lines.empty() ? 0 : 1),
                     MapText{"API " + format_bytes(static_cast<double>(topology.device.l2_bytes)) +
                             " (api)"});
  }
  add(box.lines, row_of({&l2}, {{"near_latency", "near SMs "}, {"far_latency", "far SMs "}}));
  add(box.lines, row_of({&l2}, {{"segments", "segments "}, {"segment_size", "of "}}));
  return box;
}

std::vector<MapBox> partition_boxes(const Element& l2) {
  const Property* map = l2.find("partition_map");
  if (!map || map->inconclusive) return {};
  const MapText mark = map_text(*map);
  std::vector<MapBox> boxes;
  for (const PartitionRow& row : partition_rows(*map)) {
    MapBox box;
    box.kind = MapBoxKind::partition;
    box.id = "l2-p" + std::to_string(row.partition);
    box.title = "partition " + std::to_string(row.partition);
    box.lines.push_back({std::string(mark.low ? "~ " : "") + std::to_string(row.sms.size()) +
                             " SMs near: " + sm_ranges(row.sms),
                         mark.low, false});
    finish(box);
    boxes.push_back(std::move(box));
  }
  return boxes;
}

MapBox memory_box(const Element& memory) {
  MapBox box = box_of({&memory}, MapBoxKind::memory);
  add(box.lines, map_text(memory, "size"));
  add(box.lines, map_text(memory, "latency", "latency "));
  add(box.lines, map_text(memory, "latency_tlb_miss", "TLB miss "));
  add(box.lines, row_of({&memory}, {{"bandwidth", "read "},
                                    {"write_bandwidth", "write "},
                                    {"copy_bandwidth", "copy "}}));
  add(box.lines, map_text(memory, "triad_bandwidth", "triad "));  // a line of its own: width
  add(box.lines, map_text(memory, "peak_bandwidth", "peak "));
  return box;
}

// The SM-local caches that share storage with each other, as groups in row order: an element
// joins the group of any element its conclusive shared_with lists.
std::vector<std::vector<const Element*>> sharing_groups(const std::vector<const Element*>& caches) {
  std::vector<std::vector<const Element*>> groups;
  for (const Element* cache : caches) {
    auto shares = [&](const std::vector<const Element*>& group) {
      return std::any_of(group.begin(), group.end(), [&](const Element* member) {
        const Property* with = member->find("shared_with");
        if (!with || with->inconclusive || !with->value.is_array()) return false;
        return std::find(with->value.begin(), with->value.end(), cache->id) != with->value.end();
      });
    };
    auto it = std::find_if(groups.begin(), groups.end(), shares);
    if (it == groups.end()) groups.push_back({cache}); else it->push_back(cache);
  }
  return groups;
}

}  // namespace

std::string element_title(const std::string& element_id) {
  const auto it = known_titles().find(element_id);
  return it == known_titles().end() ? element_id : it->second;
}

DeviceBoxes device_boxes(const Topology& topology) {
  DeviceBoxes boxes;
  std::vector<const Element*> sm_caches;
  for (const Element* element : in_row_order(topology.elements)) {
    const Element& e = *element;
    if (is_hopper_element(e.id)) continue;  // clusters, TMA, instruction caches: not the hierarchy
    if (e.kind == "tlb") {
      (e.scope == "device" ? boxes.beside_l2 : boxes.per_sm).push_back(tlb_box(e));
    } else if (e.id == "shared") {
      boxes.per_sm.push_back(shared_box(e, topology));
    } else if (e.scope == "sm") {
      sm_caches.push_back(&e);
    } else if (e.id == "l2") {
      boxes.l2 = l2_box(e, topology);
      boxes.l2_partitions = partition_boxes(e);
    } else if (e.kind == "memory") {
      boxes.memory.push_back(memory_box(e));
    } else {
      boxes.beside_l2.push_back(cache_box({&e}, MapBoxKind::device));
    }
  }
  std::vector<MapBox> caches;
  for (const auto& group : sharing_groups(sm_caches)) {
    caches.push_back(cache_box(group, MapBoxKind::cache));
  }
  boxes.per_sm.insert(boxes.per_sm.begin(), caches.begin(), caches.end());
  for (auto* tier : {&boxes.per_sm, &boxes.beside_l2, &boxes.memory}) {
    for (MapBox& box : *tier) finish(box);
  }
  if (boxes.l2) finish(*boxes.l2);
  return boxes;
}

}  // namespace memtopo
