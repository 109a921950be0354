#include "report/console_tlbs.hpp"

#include <algorithm>
#include <iterator>

#include "report/console.hpp"
#include "report/summary_tables.hpp"

namespace memtopo {
namespace {

struct TlbColumn {
  const char* property;
  const char* title;
};
constexpr TlbColumn kColumns[] = {{"reach", "Reach"}, {"entries", "Entries"},
                                  {"sets", "Sets"},   {"ways", "Ways"},
                                  {"page", "Page"},   {"miss_penalty", "Miss penalty"}};

}  // namespace

bool in_tlb_table(const Element& element, const std::string& property) {
  return element.kind == "tlb" &&
         std::any_of(std::begin(kColumns), std::end(kColumns),
                     [&](const TlbColumn& column) { return property == column.property; });
}

std::optional<SummaryTable> tlb_summary(const Topology& topology, Footnotes& notes) {
  std::vector<TextTable::Column> columns{{"Level"}};
  for (const TlbColumn& column : kColumns) {
    columns.push_back({column.title, TextTable::Align::right});
  }
  TextTable table(std::move(columns));
  bool any = false;
  for (const Element* element : in_row_order(topology.elements)) {
    if (element->kind != "tlb") continue;
    any = true;
    std::vector<std::string> row{element->id};
    for (const TlbColumn& column : kColumns) {
      row.push_back(console_value_cell(*element, column.property, notes));
    }
    table.add_row(std::move(row));
  }
  if (!any) return std::nullopt;
  return SummaryTable{"tlbs",
                      "TLBs (reach = entries x page; miss penalty: cycles a miss adds)",
                      std::move(table),
                      {},
                      {}};
}

}  // namespace memtopo
