#include "report/console_hopper.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using Align = TextTable::Align;

constexpr const char* kHopperElements[] = {"dsmem", "tma", "icache_l0", "icache_l1", "icache_l15"};

std::string number_of(const nlohmann::json& object, const char* key, int decimals) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return "?";
  return format_number(object[key].get<double>(), decimals);
}

// "31.2 cycles ±0.4", "> 512 KiB ? [3]", "0.97" with its marks: one scalar finding.
std::vector<std::string> finding_row(const std::string& element, const Property& p,
                                     Footnotes& notes) {
  const std::string subject = element + "." + p.name;
  std::string value = format_value(p.value, p.unit);
  if (p.spread && p.spread->samples > 1)
    value += " ±" + format_value(p.spread->stdev, p.unit == "cycles" ? "" : p.unit);
  if (p.bound == Bound::lower) value = "≥ " + value;
  if (p.inconclusive) value += " ? " + notes.add(subject, p.note.empty() ? "inconclusive" : p.note);
  std::string confidence = p.confidence ? format_confidence(*p.confidence) : "-";
  if (const std::string low = low_confidence_mark(subject, p.confidence, p.evidence, notes);
      !low.empty())
    confidence += " " + low;
  return {subject, value, confidence};
}

void render_scalars(std::ostream& out, const Topology& topology, Footnotes& notes,
                    std::size_t max_width) {
  TextTable table({{"Property"}, {"Value", Align::right}, {"Confidence", Align::right}});
  bool any = false;
  for (const char* id : kHopperElements) {
    const Element* e = topology.find(id);
    if (!e) continue;
    for (const Property& p : e->properties) {
      if (p.value.is_array()) continue;  // tables below
      table.add_row(finding_row(id, p, notes));
      any = true;
    }
  }
  if (any) out << table.render(2, max_width);
}

// "size 2: rank 0 SM 4 (31 cyc), rank 1 SM 5 (201 cyc)" per cluster size.
// A cluster of 16 needs more than one line: the ranks wrap within `max_width`, indented under
// the first.
void render_placement(std::ostream& out, const Property& placement, std::size_t max_width) {
  out << "  Cluster placement (rank: SM, p50 cycles per load from rank 0):\n";
  for (const nlohmann::json& row : placement.value) {
    const std::string head = "    " + number_of(row, "cluster_size", 0) + " blocks:";
    std::string line = head;
    for (const nlohmann::json& rank : row.value("ranks", nlohmann::json::array())) {
      const std::string cell = " " + number_of(rank, "rank", 0) + ":SM" + number_of(rank, "sm", 0) +
                               " " + number_of(rank, "cycles_p50", 0);
      if (line.size() + cell.size() > max_width && line.size() > head.size()) {
        out << line << "\n";
        line = std::string(head.size(), ' ');
      }
      line += cell;
    }
    out << line << "\n";
  }
}

void render_tiles(std::ostream& out, const Element& tma, std::size_t max_width) {
  const Property* latency = tma.find("copy_latency");
  const Property* throughput = tma.find("copy_throughput");
  const Property* first = latency ? latency : throughput;
  if (!first || !first->value.is_array()) return;
  TextTable table({{"Method"},
                   {"Tile", Align::right},
                   {"Latency (cycles ± sd)", Align::right},
                   {"Throughput", Align::right},
                   {"B/clk/SM", Align::right}});
  for (std::size_t i = 0; i < first->value.size(); ++i) {
    const nlohmann::json& row = first->value[i];
    const auto from = [&](const Property* p) -> const nlohmann::json& {
      static const nlohmann::json none = nlohmann::json::object();
      return p && p->value.is_array() && i < p->value.size() ? p->value[i] : none;
    };
    const nlohmann::json& l = from(latency);
    const nlohmann::json& t = from(throughput);
    std::string shape =
        number_of(row, "rows", 0) == "1"
            ? format_bytes(row.value("tile_bytes", 0.0))
            : number_of(row, "rows", 0) + " x " + number_of(row, "row_bytes", 0) + " B";
    std::string cycles = l.contains("skipped") ? "skipped" : number_of(l, "p50", 0);
    if (l.contains("spread")) cycles += " ±" + number_of(l["spread"], "stdev", 0);
    const std::string rate = t.contains("p50") ? format_rate(t["p50"].get<double>())
                                               : (t.contains("skipped") ? "skipped" : "-");
    table.add_row(
        {row.value("method", "?"), shape, cycles, rate, number_of(t, "bytes_per_cycle_per_sm", 1)});
  }
  out << "  TMA tile copies global -> shared (tma.copy_latency, tma.copy_throughput)\n"
      << table.render(4, max_width);
  for (const Property* p : {latency, throughput}) {
    if (p && !p->note.empty()) out << "    note: " << p->note << "\n";
  }
}

}  // namespace

bool is_hopper_element(const std::string& element_id) {
  return std::find(std::begin(kHopperElements), std::end(kHopperElements), element_id) !=
         std::end(kHopperElements);
}

void render_hopper_section(std::ostream& out, const Topology& topology, Footnotes& notes,
                           std::size_t max_width) {
  const bool any = std::any_of(std::begin(kHopperElements), std::end(kHopperElements),
                               [&](const char* id) { return topology.find(id) != nullptr; });
  if (!any) return;
  out << "\nHopper: distributed shared memory, TMA, instruction caches (--only hopper)\n";
  render_scalars(out, topology, notes, max_width);
  if (const Element* dsmem = topology.find("dsmem")) {
    if (const Property* placement = dsmem->find("placement");
        placement && placement->value.is_array())
      render_placement(out, *placement, max_width);
  }
  if (const Element* tma = topology.find("tma")) render_tiles(out, *tma, max_width);
}

}  // namespace memtopo
