#include "report/console_patterns.hpp"

#include <sstream>
#include <vector>

#include "model/units.hpp"
#include "report/modes_text.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using Align = TextTable::Align;

std::string data_cell(const std::string& data) {
  if (data == "l1") return "L1 hit (ca)";
  if (data == "l2") return "L1 miss, L2 hit (cg)";
  return "L2 miss: DRAM (cg, cold)";
}

std::string number_cell(const nlohmann::json& row, const char* key) {
  return row.contains(key) && row[key].is_number() ? format_number(row[key].get<double>(), 1) : "-";
}

std::vector<std::string> pattern_row(const nlohmann::json& row, std::size_t tlb_levels) {
  std::vector<std::string> cells = {data_cell(row.value("data", std::string()))};
  const nlohmann::json tlb = row.value("tlb", nlohmann::json::array());
  for (std::size_t k = 0; k < tlb_levels; ++k) {
    cells.push_back(k < tlb.size() ? tlb[k].get<std::string>() : "-");
  }
  if (!row.value("reachable", false)) {
    cells.insert(cells.end(), {"-", "-", "not reached: " + row.value("why", std::string())});
    return cells;
  }
  // Two modes (near and far L2 partitions): both, with their shares; p5 - p95 the near mode's.
  const std::string modes = modes_text(row_modes(row), "cycles");
  const std::string cycles = number_cell(row, "cycles");
  cells.push_back(!modes.empty() ? modes : cycles == "-" ? cycles : cycles + " cy");
  cells.push_back(number_cell(row, "p5_cycles") + " - " + number_cell(row, "p95_cycles"));
  cells.push_back(std::to_string(row.value("pages", 0)) + " pages of " +
                  format_bytes(row.value("page_bytes", 0.0)) + ", " +
                  std::to_string(row.value("lines_per_page", 0)) + " line(s) each");
  return cells;
}

}  // namespace

std::string render_latency_patterns_section(const Topology& topology, Footnotes& notes,
                                            std::size_t max_width) {
  const Element* dram = topology.find("dram");
  const Property* patterns = dram ? dram->find("latency_patterns") : nullptr;
  if (!patterns) return "";
  std::ostringstream out;
  out << "\nGlobal-memory latency by hit/miss pattern (dram.latency_patterns, p50 minus timing "
         "overhead; two modes: near / far)\n";
  if (!patterns->value.is_array() || patterns->value.empty()) {
    out << "  ? " << notes.add("dram.latency_patterns", patterns->note) << "\n";
    return out.str();
  }
  const std::size_t tlb_levels = patterns->evidence.value("tlb_levels", std::size_t{0});
  std::vector<TextTable::Column> columns = {{"Data"}};
  for (std::size_t k = 0; k < tlb_levels; ++k)
    columns.push_back({"L" + std::to_string(k + 1) + " TLB"});
  columns.push_back({"Latency", Align::right});
  columns.push_back({"p5 - p95", Align::right});
  columns.push_back({"Chase", Align::left, TextTable::Overflow::wrap});
  TextTable table(std::move(columns));
  for (const nlohmann::json& row : patterns->value) table.add_row(pattern_row(row, tlb_levels));
  out << table.render(2, max_width);
  return out.str();
}

}  // namespace memtopo
