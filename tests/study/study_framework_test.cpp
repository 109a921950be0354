// The study framework: registry, run_study's statuses, the reports.
#include <gtest/gtest.h>

#include "../report/golden_file.hpp"
#include "backend/sim/sim_backend.hpp"
#include "study/report.hpp"
#include "study/study.hpp"
#include "run_study_on.hpp"

namespace memtopo::study {
namespace {

std::unique_ptr<Backend> small_sim() {
  return make_sim_backend_from_file(std::string(MEMTOPO_SOURCE_DIR) + "/tests/sims/tiny.json");
}

TEST(StudyRegistry, ListsStrideAndCoalescingWithUniqueIds) {
  ASSERT_NE(find_study("stride"), nullptr);
  ASSERT_NE(find_study("coalescing"), nullptr);
  EXPECT_EQ(find_study("no-such-study"), nullptr);
  for (const Study& study : all_studies()) {
    EXPECT_EQ(find_study(study.id), &study);
    EXPECT_FALSE(study.title.empty());
    EXPECT_FALSE(study.needs.empty());
  }
}

StudyResult run_fake(const std::function<void(StudyContext&, StudyResult&)>& body) {
  auto backend = small_sim();
  Study study{"fake", "a fake", "nothing", body};
  return run_study_on(*backend, study);
}

TEST(RunStudy, SkipKeepsTheReasonAndWhatWasMeasured) {
  StudyResult result = run_fake([](StudyContext&, StudyResult& r) {
    r.tables.push_back(Table{"t", "t", {}, {}, std::nullopt});
    throw Skipped("no model for this");
  });
  EXPECT_EQ(result.status, "skipped");
  EXPECT_EQ(result.reason, "no model for this");
  EXPECT_EQ(result.tables.size(), 1u);
  EXPECT_EQ(result.id, "fake");
}

TEST(RunStudy, FailureAndInterruptAreStatuses) {
  EXPECT_EQ(run_fake([](StudyContext&, StudyResult&) { throw std::runtime_error("x"); }).status,
            "failed");
  EXPECT_EQ(run_fake([](StudyContext&, StudyResult&) { throw Interrupted(); }).status,
            "interrupted");
  EXPECT_EQ(run_fake([](StudyContext&, StudyResult&) {}).status, "ok");
}

TEST(RunContextPhase, RecordsEveryPhaseEvenWhenItThrows) {
  auto backend = small_sim();
  Topology header;
  const RunContext context{.backend = *backend, .topology = header};
  context.phase("first", [] {});
  EXPECT_THROW(context.phase("second", [] { throw std::runtime_error("x"); }), std::runtime_error);
  ASSERT_EQ(header.run.phases.size(), 2u);
  EXPECT_EQ(header.run.phases[1].name, "second");
}

StudyReport fixed_report() {
  StudyReport report;
  report.header.run.tool_version = "0.0.0";
  report.header.run.git_describe = "test";
  report.header.run.duration_seconds = 1.5;
  report.header.device.name = "test device";
  report.header.device.backend = "sim";
  report.header.device.sm_count = 4;
  report.result.id = "fake";
  report.result.title = "a fake study";
  Table table{"t",
              "A table",
              {{"stride", "", ColumnRole::parameter, ""},
               {"throughput", "bytes/second", ColumnRole::measured, "how"},
               {"sectors", "", ColumnRole::predicted, "from the topology"}},
              {},
              std::nullopt};
  table.rows.push_back(
      {number_cell(1), measured_cell({1e12, 1.1e12, 0.9e12}), missing_cell("not measured")});
  report.result.tables.push_back(table);
  report.result.findings.push_back(
      Finding{"t", "it falls", "sectors", {{"stride", 8}}, "l1.sector = 32 B", 0.9});
  return report;
}

TEST(StudyReports, JsonHasTheSchemaTheRunAndCellsWithSpread) {
  const auto json = study_to_json(fixed_report());
  EXPECT_EQ(json["schema_version"], kStudySchemaVersion);
  EXPECT_TRUE(json.contains("run"));
  EXPECT_TRUE(json.contains("device"));
  const auto& row = json["study"]["tables"][0]["rows"][0];
  EXPECT_EQ(row["stride"], 1);
  EXPECT_DOUBLE_EQ(row["throughput"]["value"].get<double>(), 1e12);
  EXPECT_EQ(row["throughput"]["spread"]["samples"], 3);
  EXPECT_TRUE(row["throughput"].contains("confidence"));
  EXPECT_TRUE(row["sectors"]["value"].is_null());
  EXPECT_EQ(row["sectors"]["note"], "not measured");
  EXPECT_EQ(json["study"]["findings"][0]["tied_to"], "l1.sector = 32 B");
}

// `memtopo report` re-renders a study from its JSON: reading it back loses nothing the JSON has.
TEST(StudyReports, JsonReadsBackToTheSameReport) {
  StudyReport report = fixed_report();
  report.result.tables[0].plot = TablePlot{"stride", true, "", {"throughput"}};
  report.result.notes.push_back("a note");
  const auto json = study_to_json(report);
  ASSERT_TRUE(is_study_document(json));
  const StudyReport read = study_from_json(json, "test");
  EXPECT_EQ(study_to_json(read).dump(), json.dump());
  EXPECT_EQ(render_study_console(read), render_study_console(report));
  EXPECT_FALSE(is_study_document(nlohmann::ordered_json{{"schema_version", 1}}));
}

TEST(StudyReports, PlotsDrawATableByItsHintWithTheFindingsAsMarkers) {
  StudyReport report = fixed_report();
  Table& table = report.result.tables[0];
  table.rows.push_back(
      {number_cell(8), measured_cell({2e11, 2e11, 2e11}), missing_cell("not measured")});
  table.rows.push_back(
      {number_cell(0), measured_cell({3e12, 3e12, 3e12}), missing_cell("not measured")});
  table.plot = TablePlot{"stride", true, "", {"throughput", "missing_column"}};
  const std::vector<Plot> plots = study_plots(report.result);
  ASSERT_EQ(plots.size(), 1u);  // the unknown column is not drawn
  const Plot& plot = plots[0];
  EXPECT_EQ(plot.id, "t-throughput");
  ASSERT_EQ(plot.series.size(), 1u);
  EXPECT_EQ(plot.series[0].points.size(), 2u);  // stride 0 stays off the log axis
  EXPECT_NE(plot.caption.find("1 row(s) at stride 0"), std::string::npos);
  ASSERT_EQ(plot.markers.size(), 1u);
  EXPECT_DOUBLE_EQ(plot.markers[0].x, 8);
  EXPECT_FALSE(plot.markers[0].weak);
  ASSERT_TRUE(plot.series[0].points[0].low.has_value());

  report.result.findings[0].confidence = 0.2;
  const std::string html = render_study_html(report);
  EXPECT_NE(html.find("<tr class=\"low\">"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(render_study_console(report).find("(low confidence 0.2)"), std::string::npos);
}

// MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R StudyReports rewrites it.
TEST(StudyReports, ConsoleMatchesGolden) {
  testing::expect_matches_golden(render_study_console(fixed_report()), "study_console.txt");
}

// The markdown (memtopo report --markdown): the HTML page's sections, each chart an SVG file
// the text links. MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R StudyReports rewrites it.
TEST(StudyReports, MarkdownMatchesGoldenAndLinksEveryPlot) {
  const MarkdownReport markdown = render_study_markdown(fixed_report(), "study-plots");
  testing::expect_matches_golden(markdown.text, "study.md");
  ASSERT_EQ(markdown.plots.size(), study_plots(fixed_report().result).size());
  for (const auto& [file, svg] : markdown.plots) {
    EXPECT_NE(markdown.text.find("](study-plots/" + file + ")"), std::string::npos) << file;
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << file;
  }
}

}  // namespace
}  // namespace memtopo::study
