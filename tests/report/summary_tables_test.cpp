// The compact tables (report/summary_tables.hpp): one model that the console prints and the
// HTML and markdown reports show first.
#include <gtest/gtest.h>

#include "report/console.hpp"
#include "report/markdown_text.hpp"
#include "report/summary_tables.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

using testing::measured_property;

Topology with_tlbs() {
  Topology t = testing::make_sample_topology();
  Element& l1 = t.element("tlb_l1", "tlb", "sm");
  l1.set(measured_property("reach", 268435456, "bytes", 0.85));
  l1.set(measured_property("entries", 16, "", 0.87));
  l1.set(measured_property("page", 16777216, "bytes", 0.97));
  l1.set(measured_property("miss_penalty", 10.2, "cycles", 0.3));
  Element& l2 = t.element("tlb_l2", "tlb", "device");
  Property reach = measured_property("reach", 1.2e9, "bytes", std::nullopt);
  reach.inconclusive = true;
  reach.bound = Bound::lower;
  l2.set(reach);
  return t;
}

TEST(SummaryTables, EveryTableInOrder) {
  const Summary summary = summary_tables(with_tlbs());
  std::vector<std::string> ids;
  for (const SummaryTable& table : summary.tables) ids.push_back(table.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"elements", "bandwidth", "tlbs"}));
}

TEST(SummaryTables, TlbTableHasARowPerLevelWithItsMarks) {
  Footnotes notes;
  const auto table = tlb_summary(with_tlbs(), notes);
  ASSERT_TRUE(table);
  ASSERT_EQ(table->table.rows().size(), 2u);
  const auto& first = table->table.rows()[0];
  EXPECT_EQ(first[0], "tlb_l1");
  EXPECT_EQ(first[1], "256 MiB");
  EXPECT_EQ(first[6], "10.2 cy ~ [1]") << "a low confidence is marked as in every table";
  EXPECT_EQ(table->table.rows()[1][1], "≥ 1.12 GiB [2]");
  EXPECT_FALSE(tlb_summary(testing::make_sample_topology(), notes)) << "no TLB, no table";
}

TEST(SummaryTables, ConsolePrintsTheTlbTableAndDoesNotRepeatIt) {
  const std::string console = render_console(with_tlbs());
  EXPECT_NE(console.find("\nTLBs (reach = entries x page"), std::string::npos) << console;
  EXPECT_EQ(console.find("tlb_l1.entries"), std::string::npos) << "not again in other findings";
}

TEST(SummaryTables, MarkdownTableAlignsAndEscapes) {
  TextTable table({{"Level"}, {"Reach", TextTable::Align::right}});
  table.add_row({"tlb|l1", "≥ 1 GiB [2]"});
  EXPECT_EQ(markdown_table(table),
            "| Level | Reach |\n|---|---:|\n| tlb\\|l1 | ≥ 1 GiB \\[2\\] |\n");
}

}  // namespace
}  // namespace memtopo
