#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Plot staircase() {
  Plot plot;
  plot.id = "stairs";
  plot.title = "latency against footprint";
  plot.x = {"footprint", AxisScale::log2, AxisUnit::bytes, {}, false};
  plot.y = {"cycles", AxisScale::linear, AxisUnit::cycles, {}, false};
  PlotSeries curve{"p50", SeriesStyle::step, {}};
  for (int i = 0; i < 6; ++i) {
    curve.points.push_back({1024.0 * (1 << i), i < 3 ? 30.0 : 260.0, {}, {}, false, ""});
  }
  plot.series.push_back(curve);
  plot.markers = {{6144, "D 0.91", false, "strong step"}, {30000, "D 0.2", true, "weak step"}};
  return plot;
}

TEST(SvgPlot, EscapesMarkupAndControlCharacters) {
  EXPECT_EQ(escape_markup("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_markup("bell\x07"), "bell\\x07");
}

TEST(SvgPlot, IsOneStandaloneSvgWithoutScript) {
  const std::string svg = render_svg(staircase());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg.substr(0, 80);
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos) << "no external resource";
}

TEST(SvgPlot, Log2AxisHasPowerOfTwoTicksInBytes) {
  const std::string svg = render_svg(staircase());
  for (const char* tick : {">1 KiB<", ">4 KiB<", ">16 KiB<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
}

TEST(SvgPlot, LinearAxisOfBytesHasBinaryRoundTicks) {
  // An L1 carveout's sizes (240 KiB down to 21 KiB): ticks 0, 64, 128, 192 KiB, not the
  // decimal 48.83 KiB steps of 50,000 bytes.
  Plot plot;
  plot.id = "carveout";
  plot.x = {"reserved", AxisScale::categories, AxisUnit::bytes, {"0 B", "55.75 KiB"}, false};
  plot.y = {"L1 size", AxisScale::linear, AxisUnit::bytes, {}, true};
  PlotPoint full;
  full.y = 245760;
  PlotPoint reserved;
  reserved.x = 1;
  reserved.y = 21760;
  plot.series.push_back({"L1", SeriesStyle::bars, {full, reserved}});
  const std::string svg = render_svg(plot);
  for (const char* tick : {">64 KiB<", ">128 KiB<", ">192 KiB<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find("48.83"), std::string::npos);
}

TEST(SvgPlot, MarkersShowLabelsAndWeakOnesAreMarked) {
  const std::string svg = render_svg(staircase());
  EXPECT_EQ(count(svg, "class=\"marker\""), 1u);
  EXPECT_EQ(count(svg, "class=\"marker weak\""), 1u);
  EXPECT_NE(svg.find(">D 0.91<"), std::string::npos);
  EXPECT_NE(svg.find(">~ D 0.2<"), std::string::npos) << "a low-confidence step says so";
  EXPECT_NE(svg.find("<title>weak step</title>"), std::string::npos) << "hover text";
}

TEST(SvgPlot, StepSeriesDrawsHorizontalThenVerticalSegments) {
  const std::string svg = render_svg(staircase());
  EXPECT_TRUE(std::regex_search(svg, std::regex("<path d=\"M[0-9.]+ [0-9.]+H[0-9.]+V")));
  EXPECT_EQ(count(svg, "<circle"), 6u);
}

TEST(SvgPlot, BarsStartAtZeroAndWeakBarsAreMarked) {
  Plot plot;
  plot.id = "bars";
  plot.title = "bars";
  plot.x = {"", AxisScale::categories, AxisUnit::number, {"a", "b<c"}, false};
  plot.y = {"rate", AxisScale::linear, AxisUnit::rate, {}, false};
  plot.series.push_back({"p50",
                         SeriesStyle::bars,
                         {{0, 2e12, 1.9e12, 2.1e12, false, "a"}, {1, 1e12, {}, {}, true, "b"}}});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(count(svg, "<rect x="), 2u + 1u) << "two bars and one legend swatch";
  EXPECT_EQ(count(svg, "class=\"bar weak\""), 1u);
  EXPECT_NE(svg.find(">0 MB/s<"), std::string::npos) << "the axis starts at zero";
  EXPECT_NE(svg.find(">b&lt;c<"), std::string::npos) << "category labels are escaped";
}

TEST(SvgPlot, EmptyAndDegenerateDataStillRender) {
  Plot plot;
  plot.id = "empty";
  plot.title = "nothing";
  EXPECT_NE(render_svg(plot).find("</svg>"), std::string::npos);
  plot.series.push_back({"one", SeriesStyle::line, {{5, 5, {}, {}, false, ""}}});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
}

TEST(SvgPlot, CellsAreOneSquareEach) {
  Plot plot;
  plot.id = "grid";
  plot.title = "pairs";
  plot.x = {"", AxisScale::categories, AxisUnit::number, {"SM 1", "SM 2"}, false};
  plot.y = {"", AxisScale::categories, AxisUnit::number, {"with SM 0"}, false};
  plot.series.push_back({"one", SeriesStyle::cells, {{0, 0, {}, {}, false, "x"}}});
  plot.series.push_back({"unclear", SeriesStyle::cells, {{1, 0, {}, {}, true, "y"}}});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(count(svg, "class=\"cell\""), 1u);
  EXPECT_EQ(count(svg, "class=\"cell weak\""), 1u);
}

}  // namespace
}  // namespace memtopo
