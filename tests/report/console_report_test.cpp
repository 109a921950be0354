#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "golden_file.hpp"
#include "model/json.hpp"
#include "report/console.hpp"
#include "report/text_table.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

using testing::make_hardware_topology;
using testing::make_sample_topology;

constexpr std::size_t kConsoleWidth = 120;

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The line of the elements table that starts with this element id.
std::string table_row(const std::string& report, const std::string& id) {
  std::size_t at = report.find("\n  " + id + " ");
  return at == std::string::npos ? "" : first_line(report.substr(at + 1));
}

TEST(ConsoleReport, MatchesGoldenForSimulatedRun) {
  testing::expect_matches_golden(render_console(make_sample_topology()), "console_simulated.txt");
}

TEST(ConsoleReport, MatchesGoldenForInterruptedHardwareRun) {
  testing::expect_matches_golden(render_console(make_hardware_topology()), "console_hardware.txt");
}

TEST(ConsoleReport, SimulatedRunOpensWithTheBanner) {
  EXPECT_EQ(first_line(render_console(make_sample_topology())),
            "SIMULATED DEVICE (tests/sims/tiny.json): not a measurement of real hardware");
}

TEST(ConsoleReport, HardwareRunHasNoBanner) {
  std::string report = render_console(make_hardware_topology());
  EXPECT_EQ(report.find("SIMULATED"), std::string::npos);
  EXPECT_EQ(first_line(report).rfind("INTERRUPTED", 0), 0u);
}

TEST(ConsoleReport, MarksUnknownApiAndInconclusiveCells) {
  std::string report = render_console(make_sample_topology());
  std::string l2 = table_row(report, "l2");
  EXPECT_NE(l2.find("4 MiB (api)"), std::string::npos) << l2;
  EXPECT_NE(l2.find(" - "), std::string::npos) << "unknown line size shows '-': " << l2;
  std::string tex = table_row(report, "tex");
  EXPECT_NE(tex.find("≥ 16 KiB [2]"), std::string::npos) << "a lower bound reads as one: " << tex;
  EXPECT_NE(tex.find("? [3]"), std::string::npos) << "no value: '?': " << tex;
  EXPECT_NE(report.find("[2] tex.size: no significant change point"), std::string::npos);
}

TEST(ConsoleReport, LatencyShowsCyclesSpreadAndTime) {
  std::string l1 = table_row(render_console(make_sample_topology()), "l1");
  EXPECT_NE(l1.find("33 cy ±1.2 (22 ns)"), std::string::npos) << l1;
}

TEST(ConsoleReport, ListsProbesThatDidNotComplete) {
  std::string report = render_console(make_sample_topology());
  EXPECT_NE(report.find("Probes: 4 of 6 completed"), std::string::npos);
  EXPECT_NE(report.find("constant_l1.size  skipped  the simulated device has no constant cache"),
            std::string::npos);
}

TEST(ConsoleReport, RowsFollowTheHierarchyNotTheOrderOfDiscovery) {
  Topology topology;
  for (const char* id : {"dram", "mystery", "l2", "shared", "l1"}) {
    topology.element(id, "cache", "sm");
  }
  std::string report = render_console(topology);
  std::vector<std::size_t> positions;
  for (const char* id : {"l1", "shared", "l2", "dram", "mystery"}) {
    positions.push_back(report.find("\n  " + std::string(id) + " "));
    ASSERT_NE(positions.back(), std::string::npos) << id;
  }
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end())) << report;
}

TEST(ConsoleReport, SectionsWithASourceColumnDoNotRepeatApi) {
  Topology topology;
  Property per_block;
  per_block.name = "size_per_block";
  per_block.value = 49152;
  per_block.unit = "bytes";
  per_block.source = Source::api;
  topology.element("shared", "scratchpad", "sm").set(per_block);
  std::string report = render_console(topology);
  EXPECT_NE(report.find("shared.size_per_block  48 KiB  api"), std::string::npos) << report;
}

// The lines of `report` wider than the console's 120 columns, with their widths.
std::string lines_too_wide(const std::string& report) {
  std::istringstream lines(report);
  std::string line, wide;
  while (std::getline(lines, line)) {
    if (display_width(line) > kConsoleWidth) {
      wide += std::to_string(display_width(line)) + ": " + line + "\n";
    }
  }
  return wide;
}

// The section that starts with the line `title` (up to the next blank line).
std::string section(const std::string& report, const std::string& title) {
  const std::size_t at = report.find("\n" + title);
  if (at == std::string::npos) return "";
  return report.substr(at + 1, report.find("\n\n", at + 1) - at);
}

TEST(ConsoleReport, OtherFindingsFitIn120ColumnsWithMethodsShortened) {
  const std::string report = render_console(make_sample_topology());
  const std::string findings = section(report, "Other findings");
  ASSERT_NE(findings.find("l1.ways"), std::string::npos) << report;
  EXPECT_EQ(lines_too_wide(findings), "");
  const std::string ways = first_line(findings.substr(findings.find("  l1.ways")));
  EXPECT_NE(ways.find("one sequential chase over C + k lines"), std::string::npos) << ways;
  EXPECT_EQ(ways.substr(ways.size() - std::string("…").size()), "…") << ways;
}

TEST(ConsoleReport, EveryLineFitsIn120Columns) {
  EXPECT_EQ(lines_too_wide(render_console(make_sample_topology())), "");
  EXPECT_EQ(lines_too_wide(render_console(make_hardware_topology())), "");
}

// The discoveries kept in docs/results, real runs with real method texts and notes, render
// within 120 columns too.
TEST(ConsoleReport, RecordedRunsFitIn120Columns) {
  namespace fs = std::filesystem;
  const fs::path results = fs::path(MEMTOPO_SOURCE_DIR) / "docs" / "results";
  std::size_t rendered = 0;
  std::vector<std::string> unread;
  if (fs::is_directory(results)) {
    for (const auto& entry : fs::recursive_directory_iterator(results)) {
      const std::string name = entry.path().filename().string();
      if (name != "discovery.json" && name != "discovery.json.gz") continue;
      const std::string text = testing::recorded_text(entry.path());
      if (text.empty()) {
        unread.push_back(entry.path().string());
        continue;
      }
      const Topology topology = topology_from_json_text(text, entry.path().string());
      EXPECT_EQ(lines_too_wide(render_console(topology)), "") << entry.path();
      ++rendered;
    }
  }
  if (rendered == 0) {
    GTEST_SKIP() << "no discovery.json(.gz) read under " << results << " (" << unread.size()
                 << " could not be decompressed: is gzip installed?)";
  }
  if (!unread.empty()) ADD_FAILURE() << unread.size() << " unread, the first " << unread.front();
}

// A deprecated name (l2.sector, kept for scripts with evidence.deprecated) shows '-' in its
// column; its replacement (l2.fetch_granularity) has no column and is listed in Other findings.
TEST(ConsoleReport, ADeprecatedNameGivesItsColumnToNothingAndItsReplacementIsListed) {
  Topology topology;
  Element& l2 = topology.element("l2", "cache", "device");
  Property fetch = testing::measured_property("fetch_granularity", 64, "bytes", 1.0);
  Property sector = fetch;
  sector.name = "sector";
  sector.evidence["deprecated"] = {{"replaced_by", "l2.fetch_granularity"}};
  l2.set(fetch);
  l2.set(sector);
  l2.set(testing::measured_property("line", 128, "bytes", 1.0));
  const std::string report = render_console(topology);
  const std::string row = table_row(report, "l2");
  EXPECT_NE(row.find("128 B"), std::string::npos) << row;
  EXPECT_EQ(row.find("64 B"), std::string::npos) << "the sector is not measured: " << row;
  const std::size_t other = report.find("Other findings");
  ASSERT_NE(other, std::string::npos) << report;
  EXPECT_NE(report.find("fetch_granularity", other), std::string::npos) << report;
}

TEST(ConsoleReport, EmptyTopologyStillRenders) {
  Topology empty;
  std::string report = render_console(empty);
  EXPECT_NE(report.find("nothing measured"), std::string::npos);
}

}  // namespace
}  // namespace memtopo
