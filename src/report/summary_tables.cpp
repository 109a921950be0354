#include "report/summary_tables.hpp"

namespace memtopo {

Summary summary_tables(const Topology& topology) {
  Summary summary;
  for (auto table : {elements_summary(topology, summary.notes),
                     bandwidth_summary(topology, summary.notes), l2_capacity_summary(topology),
                     tlb_summary(topology, summary.notes)}) {
    if (table) summary.tables.push_back(std::move(*table));
  }
  return summary;
}

std::string render_summary_text(const SummaryTable& summary, std::size_t max_width) {
  std::string text = "\n" + summary.title + "\n";
  for (const std::string& line : summary.before) text += wrap_paragraph(line, "  ", max_width);
  text += summary.table.render(2, max_width);
  for (const std::string& line : summary.after) text += wrap_paragraph(line, "  ", max_width);
  return text;
}

}  // namespace memtopo
