#include "report/console_banks.hpp"

#include <string>
#include <vector>

#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using Align = TextTable::Align;

// Degrees per column group: 32 degrees in four groups side by side, eight lines.
constexpr std::size_t kBankRowsPerColumn = 8;

std::string number_of(const nlohmann::json& object, const char* key, int decimals) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return "?";
  return format_number(object[key].get<double>(), decimals);
}

// "29.5 ±0.8" for a row of the table.
std::string cycles_cell(const nlohmann::json& row) {
  std::string text = number_of(row, "cycles", 1);
  if (row.contains("spread")) text += " ±" + number_of(row["spread"], "stdev", 1);
  return text;
}

// "32 banks of 4 B; one more pass costs 29 cycles", from what is known of each part.
std::string layout_line(const Element& shared, const Property& conflicts) {
  const Property* banks = shared.find("banks");
  const Property* width = shared.find("bank_width");
  const auto known = [](const Property* p) {
    return p && !p->inconclusive && p->value.is_number();
  };
  std::string text = (known(banks) ? format_number(banks->value.get<double>(), 0) : "?") +
                     " banks of " +
                     (known(width) ? format_value(width->value, width->unit) : "? B");
  const std::string per_pass = number_of(conflicts.evidence, "per_pass_cycles", 1);
  if (per_pass != "?") text += "; one more pass costs " + per_pass + " cycles";
  return text + " (shared.banks, shared.bank_width)";
}

}  // namespace

void render_shared_banks(std::ostream& out, const Topology& topology, Footnotes& notes,
                         std::size_t max_width) {
  const Element* shared = topology.find("shared");
  const Property* conflicts = shared ? shared->find("conflict_latency") : nullptr;
  if (!conflicts) return;
  std::string title =
      "Shared-memory bank conflicts (shared.conflict_latency: cycles per access, p50 minus "
      "timing overhead ± stdev)";
  if (conflicts->inconclusive) {
    title += " ? " + notes.add("shared.conflict_latency",
                               conflicts->note.empty() ? "inconclusive" : conflicts->note);
  } else if (const std::string low = low_confidence_mark(
                 "shared.conflict_latency", conflicts->confidence, conflicts->evidence, notes);
             !low.empty()) {
    title += " " + low;
  }
  out << "\n" << title << "\n  " << layout_line(*shared, *conflicts) << "\n";
  if (!conflicts->value.is_array() || conflicts->value.empty()) return;

  const nlohmann::json& rows = conflicts->value;
  const std::size_t groups = (rows.size() + kBankRowsPerColumn - 1) / kBankRowsPerColumn;
  std::vector<TextTable::Column> columns;
  for (std::size_t g = 0; g < groups; ++g) {
    columns.push_back({"Degree", Align::right});
    columns.push_back({"Cycles", Align::right});
  }
  TextTable table(columns);
  for (std::size_t line = 0; line < kBankRowsPerColumn && line < rows.size(); ++line) {
    std::vector<std::string> cells;
    for (std::size_t at = line; at < rows.size(); at += kBankRowsPerColumn) {
      cells.push_back(number_of(rows[at], "degree", 0));
      cells.push_back(cycles_cell(rows[at]));
    }
    table.add_row(cells);
  }
  out << table.render(2, max_width);
}

}  // namespace memtopo
