// The HTML report's structure: its sections, marks, escaping, and that it needs nothing from
// outside the file. (tests/report/render_test.sh renders it with a headless browser.)
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "report/html_report.hpp"
#include "report_fixture.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

// The table row of one finding, from its opening tag to its end.
std::string finding_row(const std::string& html, const std::string& subject) {
  const std::size_t at = html.find("id=\"finding-" + subject + "\"");
  if (at == std::string::npos) return "";
  const std::size_t start = html.rfind("<tr", at);
  return html.substr(start, html.find("</tr>", at) - start);
}

TEST(HtmlReport, HasEverySectionAndPlot) {
  const std::string html = render_html(testing::make_report_topology());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id :
       {"summary", "findings", "plots", "console", "warnings", "plot-staircase-l2-size",
        "plot-search-l1-size", "plot-latency", "plot-l1-carveout", "plot-l2-segments",
        "plot-bandwidth", "plot-shared-banks", "plot-latency-distributions",
        "plot-sweep-dram-bandwidth"}) {
    EXPECT_NE(html.find("id=\"" + std::string(id) + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

// l2.partition_map, when conclusive, is drawn as one cell per SM coloured by its partition.
TEST(HtmlReport, PartitionMapIsAGridOfSmCells) {
  Topology topology = testing::make_report_topology();
  Property map = testing::measured_property(
      "partition_map",
      nlohmann::json::array({{{"partition", 0}, {"sms", {0, 1, 4, 5}}},
                             {{"partition", 1}, {"sms", {2, 3, 6}}}}),
      "", 0.97);
  map.evidence["unclear"] = {7};
  topology.element("l2", "cache", "device").set(map);
  const std::string html = render_html(topology);
  EXPECT_NE(html.find("id=\"plot-l2-partition-map\""), std::string::npos);
  std::size_t cells = 0;
  for (std::size_t at = html.find("class=\"sm-cell\""); at != std::string::npos;
       at = html.find("class=\"sm-cell\"", at + 1)) {
    ++cells;
  }
  EXPECT_EQ(cells, 8u);
  EXPECT_NE(html.find("<title>SM 7: unclear</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>SM 6: partition 1</title>"), std::string::npos);
  EXPECT_NE(html.find("partition 0 (4 SMs)"), std::string::npos);
  // Rows of another shape (a corrupt or hand-edited file) are left out, not trusted.
  map.value.push_back({{"partition", 2}});
  map.value.push_back({{"partition", "x"}, {"sms", {8}}});
  map.value.push_back({{"partition", 3}, {"sms", {"9", -1, 4000000000u}}});
  topology.element("l2", "cache", "device").set(map);
  const std::string tolerant = render_html(topology);
  EXPECT_NE(tolerant.find("<title>SM 6: partition 1</title>"), std::string::npos);
  EXPECT_EQ(tolerant.find("<title>SM 8:"), std::string::npos);
  // Inconclusive: no picture.
  map.inconclusive = true;
  map.value = nullptr;
  topology.element("l2", "cache", "device").set(map);
  EXPECT_EQ(render_html(topology).find("plot-l2-partition-map"), std::string::npos);
}

TEST(HtmlReport, ConsoleReportKeepsItsLines) {
  const std::string html = render_html(testing::make_sample_topology());
  EXPECT_NE(html.find("<pre class=\"console\">SIMULATED DEVICE (tests/sims/tiny.json): not a "
                      "measurement of real hardware\n\nmemtopo 0.1.0"),
            std::string::npos);
}

TEST(HtmlReport, NeedsNoScriptNetworkOrFont) {
  const std::string html = render_html(testing::make_report_topology());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  // The only URL is the SVG namespace, which is a name, not a download.
  const std::regex url("https?://[^\"]*");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  }
}

TEST(HtmlReport, LowConfidenceAndInconclusiveValuesAreMarked) {
  const std::string html = render_html(testing::make_sample_topology());
  const std::string line = finding_row(html, "l1.line");
  EXPECT_NE(line.find("class=\"low\""), std::string::npos) << line;
  EXPECT_NE(line.find("<span class=\"mark\">~</span>"), std::string::npos) << line;
  EXPECT_NE(line.find("low confidence"), std::string::npos) << "the factors say why: " << line;
  const std::string size = finding_row(html, "l1.size");
  EXPECT_EQ(size.find("class=\"low\""), std::string::npos) << size;
  const std::string tex = finding_row(html, "tex.size");
  EXPECT_NE(tex.find("class=\"bound\""), std::string::npos) << tex;
  EXPECT_NE(tex.find("≥ 16 KiB"), std::string::npos) << tex;
}

TEST(HtmlReport, MethodAndEvidenceAreOnHoverAndInDetails) {
  const std::string html = render_html(testing::make_sample_topology());
  const std::string size = finding_row(html, "l1.size");
  EXPECT_NE(size.find("title=\"doubling, bisection, change point (KS)\""), std::string::npos)
      << size;
  EXPECT_NE(size.find("<details>"), std::string::npos);
  EXPECT_NE(size.find("change_point_bytes"), std::string::npos) << "evidence: " << size;
}

TEST(HtmlReport, SimulatedRunSaysSoAtTheTop) {
  const std::string html = render_html(testing::make_sample_topology());
  const std::size_t banner = html.find("class=\"banner\">SIMULATED DEVICE");
  EXPECT_NE(banner, std::string::npos);
  EXPECT_LT(banner, html.find("<h1>"));
  EXPECT_EQ(render_html(testing::make_hardware_topology()).find("SIMULATED"), std::string::npos);
}

TEST(HtmlReport, TextFromInputIsEscapedEverywhere) {
  Topology t = testing::make_report_topology();
  t.device.name = "<script>alert(1)</script>";
  t.elements.front().properties.front().method = "\"><img src=x onerror=alert(1)>";
  t.warnings.push_back("</pre><b>bold</b>");
  const std::string html = render_html(t);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// Issue 36 item 2: the map and the compact tables first, then the contents, the plots, and the
// findings with their evidence after.
TEST(HtmlReport, OpensWithTheMapAndTheCompactTables) {
  const std::string html = render_html(testing::make_report_topology());
  const std::size_t map = html.find("id=\"map\"");
  const std::size_t elements = html.find("id=\"table-elements\"");
  const std::size_t bandwidth = html.find("id=\"table-bandwidth\"");
  const std::size_t contents = html.find("id=\"contents\"");
  const std::size_t plots = html.find("id=\"plots\"");
  const std::size_t findings = html.find("id=\"findings\"");
  ASSERT_NE(map, std::string::npos);
  ASSERT_NE(elements, std::string::npos);
  ASSERT_NE(bandwidth, std::string::npos);
  EXPECT_LT(map, elements);
  EXPECT_LT(elements, bandwidth);
  EXPECT_LT(bandwidth, contents);
  EXPECT_LT(contents, plots);
  EXPECT_LT(plots, findings);
  EXPECT_NE(html.find("class=\"memory-map\""), std::string::npos);
}

TEST(HtmlReport, ContentsLinkEveryPlotInReadingOrder) {
  const std::string html = render_html(testing::make_report_topology());
  const std::regex figure_id("<figure id=\"(plot-[a-z0-9-]+)\"");
  std::vector<std::string> ids;
  for (std::sregex_iterator it(html.begin(), html.end(), figure_id), end; it != end; ++it) {
    ids.push_back((*it)[1].str());
    EXPECT_NE(html.find("href=\"#" + ids.back() + "\""), std::string::npos) << ids.back();
  }
  ASSERT_GE(ids.size(), 5u);
  const auto at = [&](const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) - ids.begin();
  };
  // Charts across levels, then L1 -> L2 -> DRAM.
  EXPECT_LT(at("plot-latency"), at("plot-search-l1-size"));
  EXPECT_LT(at("plot-search-l1-size"), at("plot-staircase-l2-size"));
  EXPECT_LT(at("plot-staircase-l2-size"), at("plot-sweep-dram-bandwidth"));
}

TEST(HtmlReport, CompactTablesMarkTheirCellsAndLinkTheirNotes) {
  const std::string html = render_html(testing::make_report_topology());
  const std::size_t table = html.find("<table class=\"compact\">");
  ASSERT_NE(table, std::string::npos);
  const std::string tables = html.substr(table, html.find("id=\"contents\"") - table);
  EXPECT_NE(tables.find("<td class=\"num low\">128 B ~ <a href=\"#note-1\">[1]</a></td>"),
            std::string::npos)
      << tables.substr(0, 1200);
  EXPECT_NE(tables.find("class=\"num inconclusive\""), std::string::npos);
  EXPECT_NE(tables.find("<li id=\"note-1\">l1.line: low confidence"), std::string::npos);
}

TEST(HtmlReport, WidthFollowsTheWindow) {
  const std::string html = render_html(testing::make_report_topology());
  EXPECT_EQ(html.find("720px"), std::string::npos) << "no fixed width";
  EXPECT_NE(html.find("svg { max-width: 100%; height: auto; }"), std::string::npos);
  EXPECT_NE(html.find(".scroll { overflow-x: auto"), std::string::npos) << "wide tables scroll";
  EXPECT_NE(html.find("<div class=\"scroll\"><table>"), std::string::npos) << "the findings too";
}

}  // namespace
}  // namespace memtopo
