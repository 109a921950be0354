// `memtopo study` as a user calls it (the binary as a subprocess).
#include <gtest/gtest.h>

#include "../cli/cli_helpers.hpp"

namespace memtopo::testing {
namespace {

const std::string kHopperLike = source_file("sims/hopper-like.json");
const std::string kTiny = source_file("tests/sims/tiny.json");

TEST(StudyCli, ListNamesEveryStudy) {
  const ProcessResult r = memtopo({"study", "--list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("stride"), std::string::npos);
  EXPECT_NE(r.out.find("coalescing"), std::string::npos);
}

TEST(StudyCli, UnknownIdIsAUsageErrorListingTheIds) {
  const ProcessResult r = memtopo({"study", "strides", "--sim", kTiny});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown study 'strides'"), std::string::npos);
  EXPECT_NE(r.err.find("stride, coalescing"), std::string::npos);
  EXPECT_EQ(memtopo({"study"}).exit_code, 2);
  EXPECT_EQ(memtopo({"study", "stride", "--bogus"}).exit_code, 2);
  EXPECT_EQ(memtopo({"study", "stride", "--only", "l1"}).exit_code, 2);
}

TEST(StudyCli, HelpPrintsTheUsage) {
  const ProcessResult r = memtopo({"study", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("memtopo study <id>"), std::string::npos);
}

TEST(StudyCli, StrideWritesJsonTracesAndConsole) {
  const auto dir = fresh_directory("study_stride");
  const ProcessResult r =
      memtopo({"study", "stride", "--sim", kHopperLike, "--json", (dir / "s.json").string(),
               "--traces", (dir / "t").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SIMULATED DEVICE"), std::string::npos);
  EXPECT_NE(r.out.find("Findings"), std::string::npos);
  const auto json = nlohmann::json::parse(read(dir / "s.json"));
  EXPECT_EQ(json["schema_version"], "memtopo-study/1");
  EXPECT_EQ(json["study"]["id"], "stride");
  EXPECT_EQ(json["study"]["status"], "ok");
  EXPECT_TRUE(json["run"]["simulated"].get<bool>());
  EXPECT_FALSE(json["run"]["phases"].empty());
  EXPECT_TRUE(std::filesystem::exists(dir / "t" / "stride_samples.csv"));
}

// `memtopo report` renders a study's JSON: the same HTML page the study wrote itself; a study
// has no memory map (exit 2, saying so). Console and markdown: cli_report_kinds_test.cpp.
TEST(StudyCli, ReportRendersAStudyJsonAsItsHtml) {
  const auto dir = fresh_directory("study_report");
  const ProcessResult r =
      memtopo({"study", "coalescing", "--sim", kHopperLike, "--json", (dir / "c.json").string(),
               "--html", (dir / "c.html").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ProcessResult report = memtopo(
      {"report", (dir / "c.json").string(), "--html", (dir / "again.html").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(read(dir / "again.html"), read(dir / "c.html"));
  const ProcessResult svg =
      memtopo({"report", (dir / "c.json").string(), "--svg", (dir / "c.svg").string()});
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_NE(svg.err.find("is a study's result, which has no --svg"), std::string::npos) << svg.err;
}

// A study's experiments go through the run engine like a discovery's probes, so --traces holds
// each strided request run too, named after the study (issue 34: only its samples table was).
TEST(StudyCli, TracesHoldEveryStridedRequestRun) {
  const auto dir = fresh_directory("study_traces");
  const ProcessResult r = memtopo({"study", "coalescing", "--sim", kHopperLike, "--traces",
                                   (dir / "t").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "t")) {
    const std::string text = read(entry.path());
    if (text.rfind("# coalescing: strided requests space=ca", 0) == 0) {
      EXPECT_NE(text.find("\nquantity,sample,value\n"), std::string::npos) << entry.path();
      ++runs;
    }
  }
  EXPECT_GT(runs, 1u) << "no strided-request trace in " << dir / "t";
  EXPECT_TRUE(std::filesystem::exists(dir / "t" / "coalescing_samples.csv"));
}

TEST(StudyCli, HtmlHasTheFindingsAChartPerTableAndTheConsole) {
  const auto dir = fresh_directory("study_html");
  const ProcessResult r = memtopo({"study", "coalescing", "--sim", kHopperLike, "--html",
                                   (dir / "c.html").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read(dir / "c.html");
  for (const char* id : {"id=\"summary\"", "id=\"findings\"", "id=\"plots\"",
                         "id=\"console\"", "id=\"plot-coalescing-offset-throughput\"",
                         "id=\"plot-coalescing-misaligned-throughput\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("SIMULATED DEVICE"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(StudyCli, WritesMarkdownButExportAndSvgAreForADiscovery) {
  const auto dir = fresh_directory("study_outputs");
  const ProcessResult markdown = memtopo({"study", "stride", "--sim", kHopperLike, "--quiet",
                                          "--markdown", (dir / "s.md").string()});
  EXPECT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_NE(read(dir / "s.md").find("## Findings"), std::string::npos);
  const ProcessResult svg =
      memtopo({"study", "stride", "--sim", kHopperLike, "--svg", (dir / "s.svg").string()});
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_NE(svg.err.find("--svg is for a discovery"), std::string::npos) << svg.err;
  EXPECT_EQ(memtopo({"study", "stride", "--sim", kHopperLike, "--export", "accel-sim",
                     (dir / "x").string()})
                .exit_code,
            2);
  EXPECT_FALSE(std::filesystem::exists(dir / "s.svg"));
}

TEST(StudyCli, SkippedStudyExitsNineWithTheReason) {
  const ProcessResult r = memtopo({"study", "coalescing", "--sim", kTiny, "--json", "-"});
  EXPECT_EQ(r.exit_code, 10);  // exit_code::study_skipped
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["study"]["status"], "skipped");
  EXPECT_NE(json["study"]["reason"].get<std::string>().find("throughput"), std::string::npos);
}

TEST(StudyCli, BadInputsHaveTheirExitCodes) {
  const auto dir = fresh_directory("study_bad");
  write(dir / "not.json", "{\"hello\": 1}");
  EXPECT_EQ(memtopo({"study", "stride", "--sim", (dir / "missing.json").string()}).exit_code, 4);
  const ProcessResult r =
      memtopo({"study", "stride", "--sim", kTiny, "--topology", (dir / "not.json").string()});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("--topology"), std::string::npos);
}

}  // namespace
}  // namespace memtopo::testing
