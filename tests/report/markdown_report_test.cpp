// The markdown report against golden files (regenerate: MEMTOPO_UPDATE_GOLDEN=1 ctest
// --test-dir build -R MarkdownReport, then review git diff tests/report/golden).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "golden_file.hpp"
#include "report/markdown_report.hpp"
#include "report/output_error.hpp"
#include "report_fixture.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

TEST(MarkdownReport, MatchesGolden) {
  const MarkdownReport report = render_markdown(testing::make_report_topology(), "report-plots");
  testing::expect_matches_golden(report.text, "report.md");
}

TEST(MarkdownReport, StaircasePlotMatchesGolden) {
  const MarkdownReport report = render_markdown(testing::make_report_topology(), "report-plots");
  const auto it = std::find_if(report.plots.begin(), report.plots.end(), [](const auto& plot) {
    return plot.first == "staircase-l2-size.svg";
  });
  ASSERT_NE(it, report.plots.end());
  testing::expect_matches_golden(it->second, "staircase-l2-size.svg");
}

TEST(MarkdownReport, LinksEveryPlotItWrites) {
  const MarkdownReport report =
      render_markdown(testing::make_report_topology(), "my run (1)-plots");
  ASSERT_FALSE(report.plots.empty());
  for (const auto& [file, svg] : report.plots) {
    EXPECT_NE(report.text.find("](my%20run%20%281%29-plots/" + file + ")"), std::string::npos)
        << file;
  }
}

TEST(MarkdownReport, EscapesTableCellsAndCannotCloseItsFence) {
  Topology t = testing::make_sample_topology();
  t.elements.front().properties.front().method = "a | b <b>x</b> *y*";
  t.warnings.push_back("```\n# not a heading");
  const std::string text = render_markdown(t, "p").text;
  EXPECT_NE(text.find("a \\| b &lt;b&gt;x&lt;/b&gt; \\*y\\*"), std::string::npos);
  EXPECT_EQ(text.find("<b>"), std::string::npos);
  EXPECT_NE(text.find("````text\n"), std::string::npos) << "the console fence outlasts ```";
}

TEST(MarkdownReport, WritesPlotsBesideTheFileFirst) {
  const fs::path dir = fs::temp_directory_path() / "memtopo_markdown_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const OutputTarget target = prepare_markdown_output((dir / "run.md").string());
  write_markdown_report(testing::make_report_topology(), target);
  EXPECT_TRUE(fs::is_regular_file(dir / "run.md"));
  EXPECT_TRUE(fs::is_regular_file(dir / "run-plots" / "staircase-l2-size.svg"));
  std::ifstream file(dir / "run.md");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("](run-plots/staircase-l2-size.svg)"), std::string::npos);
  std::ofstream(dir / "blocked-plots") << "a file where the folder would go";
  EXPECT_THROW(prepare_markdown_output((dir / "blocked.md").string()), OutputError);
  fs::remove_all(dir);
}

TEST(MarkdownReport, OpensWithTheMapAndTheCompactTables) {
  const MarkdownReport report = render_markdown(testing::make_report_topology(), "report-plots");
  const auto file = std::find_if(report.plots.begin(), report.plots.end(),
                                 [](const auto& plot) { return plot.first == "memory-map.svg"; });
  ASSERT_NE(file, report.plots.end());
  EXPECT_EQ(file, report.plots.begin()) << "written first, like every file it links";
  const std::size_t map = report.text.find("![Memory map](report-plots/memory-map.svg)");
  const std::size_t elements = report.text.find("## Memory elements");
  const std::size_t contents = report.text.find("## Contents");
  const std::size_t findings = report.text.find("## Findings");
  ASSERT_NE(map, std::string::npos);
  EXPECT_LT(map, elements);
  EXPECT_LT(elements, contents);
  EXPECT_LT(contents, findings);
  EXPECT_NE(report.text.find("- [l2.size: latency against footprint](#plot-staircase-l2-size)"),
            std::string::npos);
  EXPECT_NE(report.text.find("<a id=\"plot-staircase-l2-size\"></a>"), std::string::npos);
}

TEST(MarkdownReport, HasThePartitionMap) {
  Topology topology = testing::make_report_topology();
  topology.element("l2", "cache", "device")
      .set(testing::measured_property(
          "partition_map",
          nlohmann::json::array({{{"partition", 0}, {"sms", {0, 1}}},
                                 {{"partition", 1}, {"sms", {2, 3}}}}),
          "", 0.97));
  const MarkdownReport report = render_markdown(topology, "p");
  EXPECT_NE(report.text.find("](p/l2-partition-map.svg)"), std::string::npos);
}

}  // namespace
}  // namespace memtopo
