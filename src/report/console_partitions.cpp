#include "report/console_partitions.hpp"

#include <string>
#include <vector>

#include "analysis/partition_map.hpp"
#include "model/partition_rows.hpp"
#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

constexpr std::uint32_t kSmsPerLine = 16;

std::string latency_text(const Element& l2, const char* name) {
  const Property* p = l2.find(name);
  if (!p || !p->value.is_number()) return "?";
  return format_number(p->value.get<double>(), 0) + " cy";
}

void render_grid(std::ostream& out,
                 const std::map<std::uint32_t, std::optional<std::uint32_t>>& sms) {
  if (sms.empty()) return;
  const std::uint32_t last = sms.rbegin()->first;
  for (std::uint32_t first = 0; first <= last; first += kSmsPerLine) {
    std::string line = "    SM " + std::to_string(first) + "-" +
                       std::to_string(std::min(first + kSmsPerLine - 1, last)) + ":";
    line.resize(std::max<std::size_t>(line.size(), 16), ' ');
    for (std::uint32_t sm = first; sm < first + kSmsPerLine && sm <= last; ++sm) {
      const auto found = sms.find(sm);
      line += ' ';
      if (found == sms.end()) {
        line += '.';
      } else {
        line += found->second ? std::to_string(*found->second) : "?";
      }
    }
    out << line << "\n";
  }
}

}  // namespace


void render_partition_map(std::ostream& out, const Topology& topology, Footnotes& notes,
                          std::size_t max_width) {
  const Element* l2 = topology.find("l2");
  const Property* map = l2 ? l2->find("partition_map") : nullptr;
  if (!map) return;
  std::string title = "L2 partitions by SM (l2.partition_map: cross-SM first touches)";
  if (map->inconclusive) {
    title += " ? " + notes.add("l2.partition_map", map->note.empty() ? "inconclusive" : map->note);
    out << "\n" << title << "\n";
    return;
  }
  if (const std::string low = low_confidence_mark("l2.partition_map", map->confidence,
                                                  map->evidence, notes);
      !low.empty()) {
    title += " " + low;
  }
  out << "\n" << title << "\n";
  const std::size_t count = partition_rows(*map).size();
  std::string summary = std::to_string(count) + " partition" + (count == 1 ? "" : "s") +
                        "; a line another SM wrote answers a first load near " +
                        latency_text(*l2, "near_latency");
  if (l2->find("far_latency")) summary += ", far " + latency_text(*l2, "far_latency");
  if (map->evidence.contains("second_touch_p50_cycles")) {
    summary += "; a second load " +
               format_number(map->evidence["second_touch_p50_cycles"].get<double>(), 0) +
               " cy (p50)";
  }
  out << wrap_paragraph(summary, "  ", max_width);
  const auto sms = partition_of_each_sm(*map);
  for (const PartitionRow& row : partition_rows(*map)) {
    out << wrap_paragraph("partition " + std::to_string(row.partition) + " (" +
                              std::to_string(row.sms.size()) + " SMs): " + sm_ranges(row.sms),
                          "  ", max_width);
  }
  if (!map->note.empty()) out << wrap_paragraph(map->note, "  ", max_width);
  out << "  by SM (partition number; ? unclear):\n";
  render_grid(out, sms);
}

}  // namespace memtopo
