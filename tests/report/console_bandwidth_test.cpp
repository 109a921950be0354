// The console's bandwidth section on a hand-built topology: one row per level in hierarchy
// order, rates with their relative spread, B/clk/SM, % of the API peak, the weakest confidence,
// the read's launch, and notes for inconclusive figures.
#include "report/console_bandwidth.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/text_table.hpp"

namespace memtopo {
namespace {

Property rate(const std::string& name, double value, double stdev, double confidence) {
  Property p;
  p.name = name;
  p.value = value;
  p.unit = "bytes/second";
  p.confidence = confidence;
  p.spread = Spread{value, value, stdev, value, value, value, value, 9};
  p.evidence = {
      {"launch",
       {{"blocks_per_sm", 4}, {"threads_per_block", 256}, {"vector_bytes", 16}, {"unroll", 4}}}};
  return p;
}

Topology bandwidth_topology() {
  Topology topology;
  Element& dram = topology.element("dram", "memory", "device");
  dram.set(rate("bandwidth", 4.6e12, 4.6e9, 0.99));
  dram.set(rate("write_bandwidth", 4.2e12, 0, 0.8));
  Property copy;
  copy.name = "copy_bandwidth";
  copy.unit = "bytes/second";
  copy.value = nullptr;
  copy.inconclusive = true;
  copy.note = "no launch configuration could run";
  dram.set(copy);
  Property fraction;
  fraction.name = "peak_fraction";
  fraction.value = 0.958;
  fraction.source = Source::derived;
  dram.set(fraction);
  Property peak;
  peak.name = "peak_bandwidth";
  peak.value = 4.8e12;
  peak.unit = "bytes/second";
  peak.source = Source::api;
  peak.method = "memory clock x bus width x 2";
  dram.set(peak);
  Element& l1 = topology.element("l1", "cache", "sm");
  l1.set(rate("bandwidth", 31e12, 31e9, 1.0));
  Property per_clock;
  per_clock.name = "bandwidth_per_sm_clock";
  per_clock.value = 121.34;
  per_clock.unit = "bytes/cycle";
  l1.set(per_clock);
  return topology;
}

// The cells of a table row: the text between runs of two or more blanks.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos) {
    const std::size_t end = line.find("  ", at);
    out.push_back(line.substr(at, end == std::string::npos ? end : end - at));
    at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return out;
}

std::string row(const std::string& section, const std::string& id) {
  const std::size_t at = section.find("\n  " + id + " ");
  if (at == std::string::npos) return "";
  return section.substr(at + 1, section.find('\n', at + 1) - at - 1);
}

// The section with its notes under it, as the console prints them.
std::string render(const Topology& topology) {
  Footnotes notes;
  const std::string section = render_bandwidth_section(topology, notes, 120);
  return section + notes.render(120);
}

TEST(ConsoleBandwidth, OneRowPerLevelFromTheSmOutwards) {
  const std::string section = render(bandwidth_topology());
  EXPECT_LT(section.find("\n  l1 "), section.find("\n  dram "));
  EXPECT_EQ(cells(row(section, "l1")),
            (std::vector<std::string>{"l1", "31 TB/s ±0.1 %", "-", "-", "121.3", "-", "1",
                                      "4x256, 16 B x4"}));
  const std::string dram = row(section, "dram");
  EXPECT_NE(dram.find("4.6 TB/s ±0.1 %"), std::string::npos) << dram;
  EXPECT_NE(dram.find("4.2 TB/s"), std::string::npos) << dram;
  EXPECT_NE(dram.find("95.8 %"), std::string::npos) << dram;
  EXPECT_NE(dram.find("0.8"), std::string::npos) << dram;  // the weakest of its confidences
  EXPECT_EQ(dram.find("~"), std::string::npos) << dram;
  EXPECT_NE(section.find("dram peak: 4.8 TB/s (api, memory clock x bus width x 2)"),
            std::string::npos);
  EXPECT_NE(section.find("dram.copy_bandwidth: no launch configuration could run"),
            std::string::npos);
}

// The triads on a line under the table where a level has them (DRAM since they are measured):
// the table keeps its columns and its 120-column width, older results print as they did.
TEST(ConsoleBandwidth, TriadsAreALineUnderTheTableWhereMeasured) {
  EXPECT_EQ(render(bandwidth_topology()).find("triads"), std::string::npos);
  Topology topology = bandwidth_topology();
  Element& dram = topology.element("dram", "memory", "device");
  dram.set(rate("triad_bandwidth", 4.4e12, 4.4e9, 0.7));
  dram.set(rate("triad3_bandwidth", 4.5e12, 4.5e9, 0.9));
  const std::string section = render(topology);
  const std::vector<std::string> header = cells(row(section, "Level"));
  ASSERT_GE(header.size(), 5u) << section;
  EXPECT_EQ(header[3], "Copy");
  EXPECT_EQ(header[4], "B/clk/SM");
  const std::vector<std::string> dram_row = cells(row(section, "dram"));
  ASSERT_GE(dram_row.size(), 7u) << section;
  EXPECT_EQ(dram_row[6], "0.7");  // the 2:1 triad is now the weakest of the level's rates
  EXPECT_NE(section.find("dram triads (reads : writes): 2:1 4.4 TB/s ±0.1 % (a = b + s x c"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("3:1 4.5 TB/s"), std::string::npos) << section;  // wrapped after it
  EXPECT_NE(section.find("(a = b x d + c, all four arrays"), std::string::npos) << section;
  std::istringstream lines(section);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), 120u) << line;
  EXPECT_TRUE(is_bandwidth_property("triad_bandwidth"));
  EXPECT_TRUE(is_bandwidth_property("triad3_bandwidth"));
}

TEST(ConsoleBandwidth, ALowConfidenceIsMarked) {
  Topology topology = bandwidth_topology();
  topology.element("dram", "memory", "device").find("write_bandwidth")->confidence = 0.3;
  const std::string section = render(topology);
  EXPECT_NE(row(section, "dram").find("0.3 ~ [2]"), std::string::npos) << section;
  EXPECT_NE(section.find("[2] dram.write_bandwidth: low confidence 0.3"), std::string::npos)
      << section;
}

TEST(ConsoleBandwidth, NothingWithoutBandwidthsAndItsPropertiesAreItsOwn) {
  EXPECT_EQ(render(Topology{}), "");
  for (const char* name : {"bandwidth", "write_bandwidth", "copy_bandwidth",
                           "bandwidth_per_sm_clock", "peak_bandwidth", "peak_fraction"}) {
    EXPECT_TRUE(is_bandwidth_property(name)) << name;
  }
  EXPECT_FALSE(is_bandwidth_property("size"));
}

}  // namespace
}  // namespace memtopo
