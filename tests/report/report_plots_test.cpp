#include <gtest/gtest.h>

#include <algorithm>

#include "report/report_plots.hpp"
#include "report_fixture.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

const Plot* find_plot(const std::vector<Plot>& plots, const std::string& id) {
  auto it = std::find_if(plots.begin(), plots.end(), [&](const Plot& p) { return p.id == id; });
  return it == plots.end() ? nullptr : &*it;
}

TEST(ReportPlots, StaircaseHasItsCurveLevelsAndAMarkerPerChangePoint) {
  const auto plots = report_plots(testing::make_report_topology());
  const Plot* plot = find_plot(plots, "staircase-l2-size");
  ASSERT_NE(plot, nullptr);
  EXPECT_EQ(plot->x.scale, AxisScale::log2);
  ASSERT_EQ(plot->series.size(), 2u);
  EXPECT_EQ(plot->series[0].points.size(), 8u);
  EXPECT_EQ(plot->series[1].points.size(), 3u) << "one point per level";
  EXPECT_DOUBLE_EQ(*plot->series[1].points[1].low, 296);
  EXPECT_DOUBLE_EQ(*plot->series[1].points[1].high, 306);
  ASSERT_EQ(plot->markers.size(), 3u) << "two change points and the size found";
  EXPECT_FALSE(plot->markers[0].weak);
  EXPECT_TRUE(plot->markers[1].weak) << "confidence 0.35 is below the threshold";
  EXPECT_NE(plot->markers[0].tip.find("KS D 0.82"), std::string::npos) << plot->markers[0].tip;
  EXPECT_DOUBLE_EQ(plot->markers[2].x, 4194304);
}

TEST(ReportPlots, EveryChartOfTheFixtureIsThere) {
  const auto plots = report_plots(testing::make_report_topology());
  for (const char* id :
       {"staircase-l2-size", "search-l1-size", "latency", "l1-carveout", "l2-segments", "bandwidth",
        "shared-banks", "latency-distributions", "sweep-dram-bandwidth"}) {
    EXPECT_NE(find_plot(plots, id), nullptr) << id;
  }
}

TEST(ReportPlots, LowConfidenceCarveoutRowsAreWeak) {
  const auto plots = report_plots(testing::make_sample_topology());
  const Plot* plot = find_plot(plots, "l1-carveout");
  ASSERT_NE(plot, nullptr);
  ASSERT_EQ(plot->series.at(0).points.size(), 3u);
  EXPECT_FALSE(plot->series[0].points[0].weak);
  EXPECT_FALSE(plot->series[0].points[1].weak) << "0.5 is not below the threshold";
  EXPECT_TRUE(plot->series[0].points[2].weak);
}

TEST(ReportPlots, SearchSplitsFittingFootprintsFromTheRest) {
  const auto plots = report_plots(testing::make_report_topology());
  const Plot* plot = find_plot(plots, "search-l1-size");
  ASSERT_NE(plot, nullptr);
  EXPECT_EQ(plot->series.at(0).points.size(), 4u);
  EXPECT_EQ(plot->series.at(1).points.size(), 2u);
  EXPECT_DOUBLE_EQ(plot->series[1].points[0].y, 0.25) << "33 * 16 slow of 33 * 32 * 2 loads";
}

TEST(ReportPlots, DistributionsAreRelativeToEachLevelsPeak) {
  const auto plots = report_plots(testing::make_report_topology());
  const Plot* plot = find_plot(plots, "latency-distributions");
  ASSERT_NE(plot, nullptr);
  ASSERT_EQ(plot->series.size(), 2u) << "l1 and l2, in row order";
  EXPECT_EQ(plot->series[0].name, "l1.latency");
  // An outline: 0 at the first edge, one point per bin at its lower edge, 0 at the last edge.
  ASSERT_EQ(plot->series[0].points.size(), 7u);
  EXPECT_DOUBLE_EQ(plot->series[0].points[0].y, 0);
  EXPECT_DOUBLE_EQ(plot->series[0].points[3].x, 33);
  EXPECT_DOUBLE_EQ(plot->series[0].points[3].y, 1.0) << "the L1's peak bin";
  EXPECT_DOUBLE_EQ(plot->series[0].points[1].y, 10.0 / 800);
  EXPECT_DOUBLE_EQ(plot->series[0].points[6].x, 36);
  // The L2's peak (400 loads in a 10-cycle bin) reads 1 as the L1's does, however wide its bins:
  // a narrow level no longer flattens a wide one.
  EXPECT_DOUBLE_EQ(plot->series[1].points[2].y, 1.0);
  EXPECT_DOUBLE_EQ(plot->series[1].points[3].y, 0.75);
}

TEST(ReportPlots, SweepHasItsPointsAndKnees) {
  const auto plots = report_plots(testing::make_report_topology());
  const Plot* plot = find_plot(plots, "sweep-dram-bandwidth");
  ASSERT_NE(plot, nullptr);
  EXPECT_EQ(plot->series.at(0).points.size(), 4u);
  ASSERT_EQ(plot->markers.size(), 1u);
  EXPECT_DOUBLE_EQ(plot->markers[0].x, 8388608);
}

TEST(ReportPlots, StaircaseShowsTheApiSizeAndTheSectionSearch) {
  Topology t = testing::make_report_topology();
  Property* size = t.element("l2", "cache", "device").find("size");
  size->evidence["api_l2_bytes"] = 62914560;
  size->evidence["threshold_cycles"] = 373;
  size->evidence["verdicts"] = {{{"footprint_bytes", 24800384}, {"fits", true}, {"miss_fraction", 0.001}},
                                {{"footprint_bytes", 25005312}, {"fits", false}, {"miss_fraction", 0.03}}};
  const auto plots = report_plots(t);
  const Plot* plot = find_plot(plots, "staircase-l2-size");
  ASSERT_NE(plot, nullptr);
  EXPECT_TRUE(std::any_of(plot->markers.begin(), plot->markers.end(),
                          [](const PlotMarker& m) { return m.label == "API 60 MiB"; }));
  const auto series = [&](const std::string& name) {
    return std::find_if(plot->series.begin(), plot->series.end(),
                        [&](const PlotSeries& s) { return s.name == name; });
  };
  ASSERT_NE(series("section search: fits"), plot->series.end());
  ASSERT_NE(series("section search: misses"), plot->series.end());
  EXPECT_DOUBLE_EQ(series("section search: misses")->points.at(0).x, 25005312);
  EXPECT_DOUBLE_EQ(series("section search: misses")->points.at(0).y, 373);
}

TEST(ReportPlots, LowConfidenceSweepIsMarked) {
  Topology t = testing::make_report_topology();
  t.element("dram", "memory", "device").find("bandwidth")->confidence = 0.11;
  const auto plots = report_plots(t);
  const Plot* plot = find_plot(plots, "sweep-dram-bandwidth");
  ASSERT_NE(plot, nullptr);
  EXPECT_NE(plot->title.find("~ confidence 0.11"), std::string::npos) << plot->title;
  EXPECT_TRUE(plot->series.at(0).points.at(0).weak);
}

TEST(ReportPlots, MalformedEvidenceIsLeftOutNotACrash) {
  Topology t = testing::make_sample_topology();
  Property size;
  size.name = "size";
  size.value = 1;
  size.evidence["staircase"] = {{"footprints", "many"}, {"series", {{"geometric", 3}}}};
  size.evidence["footprints_tried"] = {1, "x", {{"footprint_bytes", "big"}}};
  t.element("l2", "cache", "device").set(size);
  Property segments;
  segments.name = "segments";
  segments.evidence["pairs"] = {{{"sm_a", "zero"}}};
  t.element("l2", "cache", "device").set(segments);
  t.element("l1", "cache", "sm").find("latency")->evidence["histogram"] = {{"counts", "x"}};
  t.element("dram", "memory", "device").find("bandwidth")->evidence["sweep"] = {
      {"points", {1, {2}, {"a", 3}}}};
  const auto plots = report_plots(t);
  EXPECT_EQ(find_plot(plots, "staircase-l2-size"), nullptr);
  EXPECT_EQ(find_plot(plots, "search-l2-size"), nullptr);
  EXPECT_EQ(find_plot(plots, "l2-segments"), nullptr);
  EXPECT_EQ(find_plot(plots, "latency-distributions"), nullptr);
  EXPECT_EQ(find_plot(plots, "sweep-dram-bandwidth"), nullptr);
}

TEST(ReportPlots, SegmentsPlotReadsThePairsThatCheckedThePartitionMap) {
  Topology t = testing::make_report_topology();
  Property* segments = t.element("l2", "cache", "device").find("segments");
  ASSERT_NE(segments, nullptr);
  ASSERT_TRUE(segments->evidence.contains("pairs"));
  segments->evidence["map_check"] = {{"pairs", segments->evidence["pairs"]}};
  segments->evidence.erase("pairs");
  const auto plots = report_plots(t);
  EXPECT_NE(find_plot(plots, "l2-segments"), nullptr) << "the plot of docs/report.md is back";
}

}  // namespace
}  // namespace memtopo
