#pragma once
// The first screen of the HTML report (issue 36 item 2): the memory map, the compact tables
// (summary_tables.hpp) with their notes, and a table of contents with an anchor per plot.
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "report/report_figures.hpp"
#include "report/text_table.hpp"

namespace memtopo {

// The table as HTML inside a horizontally scrolling box; a cell marked low ("~ [n]") gets
// class "low", an inconclusive or bounded one ("? [n]", "≥ x") class "inconclusive", and each
// "[n]" links to note n (ids prefixed by `id`).
std::string html_table(const TextTable& table, const std::string& id);

// The memory map (figure id "map") and the compact tables (id "tables"), ids prefixed by `id`.
std::string render_html_overview(const Topology& topology, const std::string& id);

// The table of contents (nav id "contents"): the summary, every figure by its anchor, the
// findings, the console report and the warnings.
std::string render_html_contents(const Topology& topology, const std::vector<Figure>& figures,
                                 const std::string& id);

}  // namespace memtopo
