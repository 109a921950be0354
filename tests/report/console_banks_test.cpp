// The console's shared-memory banks section: the layout line, the table of degrees in column
// groups, and the marks of an inconclusive or low-confidence table.
#include <gtest/gtest.h>

#include "report/console.hpp"
#include "report/text_table.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

Property measured_banks_property(const std::string& name, nlohmann::json value,
                                 const std::string& unit) {
  return testing::measured_property(name, std::move(value), unit, 0.96);
}

// 32 banks of 4 B, and degrees 1..32 at 30 + 2 (d - 1) cycles.
Topology with_banks(double table_confidence) {
  Topology topology = testing::make_sample_topology();
  Element& shared = topology.element("shared", "scratchpad", "sm");
  shared.set(measured_banks_property("banks", 32, ""));
  shared.set(measured_banks_property("bank_width", 4, "bytes"));
  nlohmann::json rows = nlohmann::json::array();
  for (int degree = 1; degree <= 32; ++degree) {
    rows.push_back({{"degree", degree},
                    {"cycles", 30 + 2 * (degree - 1)},
                    {"spread", {{"stdev", 0.5}, {"samples", 512}}}});
  }
  Property conflicts = measured_banks_property("conflict_latency", rows, "cycles");
  conflicts.confidence = table_confidence;
  conflicts.evidence = {{"per_pass_cycles", 2.0},
                        {"confidence_factors",
                         {{{"rule", "agreement"}, {"value", table_confidence}, {"inputs", "x"}}}}};
  shared.set(std::move(conflicts));
  return topology;
}

std::string section(const std::string& report) {
  const std::size_t at = report.find("\nShared-memory bank conflicts");
  if (at == std::string::npos) return "";
  return report.substr(at + 1, report.find("\n\n", at + 1) - at - 1);
}

TEST(ConsoleBanks, LayoutAndEveryDegreeInColumnGroups) {
  const std::string report = render_console(with_banks(0.95));
  const std::string text = section(report);
  ASSERT_FALSE(text.empty()) << report;
  EXPECT_NE(text.find("32 banks of 4 B; one more pass costs 2 cycles"), std::string::npos) << text;
  // Eight lines of four groups: degree 1 beside 9, 17 and 25.
  EXPECT_NE(text.find("1  30 ±0.5       9  46 ±0.5      17  62 ±0.5      25  78 ±0.5"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("32  92 ±0.5"), std::string::npos) << text;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    EXPECT_LE(display_width(text.substr(start, end - start)), 120u);
    start = end + 1;
  }
  // The table has its own section, so the other findings do not repeat it; the layout stays.
  EXPECT_EQ(report.find("shared.conflict_latency  "), std::string::npos);
  EXPECT_NE(report.find("shared.banks "), std::string::npos);
}

TEST(ConsoleBanks, ALowConfidenceTableIsMarked) {
  const std::string text = section(render_console(with_banks(0.3)));
  EXPECT_NE(text.find("± stdev) ~ ["), std::string::npos) << text;
}

TEST(ConsoleBanks, AnInconclusiveTableSaysWhy) {
  Topology topology = testing::make_sample_topology();
  Property conflicts = measured_banks_property("conflict_latency", nullptr, "cycles");
  conflicts.confidence.reset();
  conflicts.inconclusive = true;
  conflicts.note = "planned from shared.banks and shared.bank_width, which are not conclusive";
  topology.element("shared", "scratchpad", "sm").set(std::move(conflicts));
  const std::string report = render_console(topology);
  const std::string text = section(report);
  EXPECT_NE(text.find("? ["), std::string::npos) << text;
  EXPECT_NE(text.find("? banks of ? B"), std::string::npos) << text;
  EXPECT_NE(report.find("shared.conflict_latency: planned from shared.banks"), std::string::npos);
}

TEST(ConsoleBanks, NoTableNoSection) {
  EXPECT_EQ(render_console(testing::make_sample_topology()).find("Shared-memory bank"),
            std::string::npos);
}

}  // namespace
}  // namespace memtopo
