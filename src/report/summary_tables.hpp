#pragma once
// The compact tables (issue 36 item 2): memory elements, bandwidth, L2 capacity and TLBs, as one
// model that the console prints as its sections and the HTML and markdown reports show first,
// under the memory map. Cells carry the console's marks ("~ [n]", "? [n]", "≥ x [n]", "(api)");
// the notes they number are the Summary's.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "report/footnotes.hpp"
#include "report/text_table.hpp"

namespace memtopo {

struct SummaryTable {
  std::string id;     // stable, for anchors: "elements", "bandwidth", "l2-capacity", "tlbs"
  std::string title;  // the console's section title
  TextTable table;
  std::vector<std::string> before;  // lines between the title and the table (the legend)
  std::vector<std::string> after;   // lines after it (what a column means, explanations)
};

// Each table, or nullopt when the topology has nothing for it. Defined beside the console
// section that prints it (console.cpp, console_bandwidth.cpp, console_l2_capacity.cpp,
// console_tlbs.cpp).
std::optional<SummaryTable> elements_summary(const Topology& topology, Footnotes& notes);
std::optional<SummaryTable> bandwidth_summary(const Topology& topology, Footnotes& notes);
std::optional<SummaryTable> l2_capacity_summary(const Topology& topology);
std::optional<SummaryTable> tlb_summary(const Topology& topology, Footnotes& notes);

// Every table the topology has, in that order, and the notes their cells number.
struct Summary {
  std::vector<SummaryTable> tables;
  Footnotes notes;
};
Summary summary_tables(const Topology& topology);

// A table as the console prints it: a blank line, the title, the `before` lines, the table and
// the `after` lines, each wrapped to `max_width` and indented by two.
std::string render_summary_text(const SummaryTable& summary, std::size_t max_width);

}  // namespace memtopo
