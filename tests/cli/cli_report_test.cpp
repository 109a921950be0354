// --html and --markdown on a discovery, and `memtopo report RUN.json` on a saved run: files
// written, exit codes for bad input and outputs that cannot be written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_helpers.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;

TEST(CliReport, DiscoveryWritesHtmlAndMarkdownWithItsPlots) {
  const fs::path dir = fresh_directory("report_discovery");
  ProcessResult r = memtopo(
      quick_run({"--html", (dir / "run.html").string(), "--markdown", (dir / "run.md").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read(dir / "run.html");
  EXPECT_NE(html.find("id=\"plot-search-l1-size\""), std::string::npos);
  EXPECT_NE(html.find("SIMULATED DEVICE"), std::string::npos);
  EXPECT_NE(read(dir / "run.md").find("](run-plots/search-l1-size.svg)"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(dir / "run-plots" / "search-l1-size.svg"));
  EXPECT_NE(r.out.find("Memory elements"), std::string::npos) << "the console report stays";
}

TEST(CliReport, EmptyValuesAreUsageErrors) {
  for (const std::string option : {"--html", "--markdown", "--svg"}) {
    SCOPED_TRACE(option);
    ProcessResult r = memtopo({option, "", "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
    ProcessResult report =
        memtopo({"report", source_file("tests/report/golden/report.json"), option, ""});
    EXPECT_EQ(report.exit_code, 2) << report.err;
  }
}

TEST(CliReport, AnUnwritableReportStopsTheRunBeforeItStarts) {
  const fs::path dir = fresh_directory("report_unwritable");
  ProcessResult r = memtopo(quick_run({"--html", dir.string()}));  // a directory
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing ran";
  std::ofstream(dir / "blocked-plots") << "a file where the plots folder would go";
  r = memtopo(quick_run({"--markdown", (dir / "blocked.md").string()}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("blocked-plots"), std::string::npos) << r.err;
}

TEST(CliReport, RendersASavedRun) {
  const fs::path dir = fresh_directory("report_saved");
  ASSERT_EQ(memtopo(quick_run({"--json", (dir / "run.json").string()})).exit_code, 0);
  ProcessResult r = memtopo({"report", (dir / "run.json").string(), "--html",
                             (dir / "a.html").string(), "--markdown", (dir / "a.md").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read(dir / "a.html").find("id=\"plot-search-l1-size\""), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(dir / "a-plots" / "search-l1-size.svg"));
}

TEST(CliReport, BadRunFilesAreBadInput) {
  const fs::path dir = fresh_directory("report_bad");
  write(dir / "garbage.json", "{ not json");
  write(dir / "other.json", "{\"name\": \"not memtopo\"}");
  for (const std::string file : {"missing.json", "garbage.json", "other.json"}) {
    SCOPED_TRACE(file);
    ProcessResult r =
        memtopo({"report", (dir / file).string(), "--html", (dir / "out.html").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << "the message names the file: " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.html"));
  }
}

// Without an output option, report prints the console report: the one the run printed
// (report.json is golden/console_simulated.txt's topology as JSON).
TEST(CliReport, ReportNeedsARunAndPrintsTheConsoleWithoutAnOutput) {
  EXPECT_EQ(memtopo({"report"}).exit_code, 2);
  ProcessResult r = memtopo({"report", source_file("tests/report/golden/report.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read(source_file("tests/report/golden/console_simulated.txt")));
  ProcessResult help = memtopo({"report", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--markdown"), std::string::npos) << help.out;
}

TEST(CliReport, AnUnwritableOutputIsExitSeven) {
  const fs::path dir = fresh_directory("report_unwritable_saved");
  ProcessResult r =
      memtopo({"report", source_file("tests/report/golden/report.json"), "--html", dir.string()});
  EXPECT_EQ(r.exit_code, 7) << r.err;
}

TEST(CliReport, SvgWritesTheMemoryMapAlone) {
  const fs::path dir = fresh_directory("report_svg");
  ProcessResult r = memtopo(quick_run({"--svg", (dir / "map.svg").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string map = read(dir / "map.svg");
  EXPECT_EQ(map.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << map.substr(0, 80);
  EXPECT_NE(map.find("class=\"memory-map\""), std::string::npos);
  ProcessResult saved = memtopo(
      {"report", source_file("tests/report/golden/report.json"), "--svg", (dir / "saved.svg").string()});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_NE(read(dir / "saved.svg").find("class=\"memory-map\""), std::string::npos);
}

}  // namespace
}  // namespace memtopo
