// `memtopo report` on every kind of memtopo JSON (a discovery, a study, a multi-device run) in
// every format: the console report is the one the run printed, the HTML and memory map the
// files the run wrote, the markdown links every plot it wrote beside it (issue 34 item 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "cli_helpers.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;

const std::string kHopperLike = source_file("sims/hopper-like.json");
const std::string kThreeGpus = source_file("tests/sims/multi-gpu/three-gpus.json");

// Every relative link "](stem-plots/...svg)" of the markdown at `md` names a file that is there.
void expect_plots_linked_and_written(const fs::path& md) {
  const std::string text = read(md);
  const std::string folder = md.stem().string() + "-plots/";
  const std::regex link("\\]\\((" + folder + "[^)]*\\.svg)\\)");
  int links = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it, ++links) {
    EXPECT_TRUE(fs::is_regular_file(md.parent_path() / (*it)[1].str())) << (*it)[1].str();
  }
  EXPECT_GT(links, 0) << text.substr(0, 400);
}

// A run's console report, its JSON, HTML and (where the kind has one) memory map, then each
// re-rendered by `report`.
struct SavedKind {
  std::vector<std::string> run;  // the command, less its outputs
  bool has_map;
};

void expect_report_renders_as_the_run(const std::string& name, const SavedKind& kind) {
  const fs::path dir = fresh_directory("report_kinds_" + name);
  std::vector<std::string> run = kind.run;
  run.insert(run.end(),
             {"--json", (dir / "run.json").string(), "--html", (dir / "run.html").string()});
  if (kind.has_map) {
    run.push_back("--svg");
    run.push_back((dir / "run.svg").string());
  }
  const ProcessResult original = memtopo(run);
  ASSERT_EQ(original.exit_code, 0) << original.err;
  const std::string run_json = (dir / "run.json").string();

  const ProcessResult console = memtopo({"report", run_json});
  EXPECT_EQ(console.exit_code, 0) << console.err;
  EXPECT_EQ(console.out, original.out);

  const ProcessResult files = memtopo({"report", run_json, "--html", (dir / "again.html").string(),
                                       "--markdown", (dir / "again.md").string()});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_TRUE(files.out.empty()) << files.out;  // an output file replaces the console report
  EXPECT_EQ(read(dir / "again.html"), read(dir / "run.html"));
  expect_plots_linked_and_written(dir / "again.md");

  const ProcessResult map = memtopo({"report", run_json, "--svg", (dir / "again.svg").string()});
  if (kind.has_map) {
    EXPECT_EQ(map.exit_code, 0) << map.err;
    EXPECT_EQ(read(dir / "again.svg"), read(dir / "run.svg"));
  } else {
    EXPECT_EQ(map.exit_code, 2) << map.err;
  }
}

TEST(CliReportKinds, ADiscoveryInEveryFormat) {
  expect_report_renders_as_the_run("discovery",
                                   {{"--sim", kHopperLike, "--only", "l1.size,l2.latency"}, true});
}

TEST(CliReportKinds, AStudyInEveryFormat) {
  expect_report_renders_as_the_run("study", {{"study", "coalescing", "--sim", kHopperLike}, false});
}

TEST(CliReportKinds, AMultiDeviceRunInEveryFormat) {
  expect_report_renders_as_the_run(
      "multi", {{"--sim", kThreeGpus, "--device", "all", "--only", "p2p,l2.latency"}, true});
}

// The markdown of a multi-device run: the map of the GPUs, the p2p matrices, then each GPU's
// report under its own heading with its plots in a folder of its own.
TEST(CliReportKinds, MultiDeviceMarkdownHasEveryGpu) {
  const fs::path dir = fresh_directory("report_kinds_multi_md");
  ASSERT_EQ(memtopo({"--sim", kThreeGpus, "--device", "all", "--only", "p2p,l2.latency", "--quiet",
                     "--json", (dir / "m.json").string(), "--svg", (dir / "m.svg").string()})
                .exit_code,
            0);
  ASSERT_EQ(memtopo({"report", (dir / "m.json").string(), "--markdown", (dir / "m.md").string()})
                .exit_code,
            0);
  const std::string md = read(dir / "m.md");
  EXPECT_EQ(md.rfind("# memtopo multi-device run: 3 GPUs\n", 0), 0u) << md.substr(0, 200);
  EXPECT_NE(md.find("## Peer to peer"), std::string::npos);
  for (const char* gpu : {"## GPU 0: ", "## GPU 1: ", "## GPU 2: "})
    EXPECT_NE(md.find(gpu), std::string::npos) << gpu;
  EXPECT_EQ(read(dir / "m-plots" / "memory-map.svg"), read(dir / "m.svg"));
  EXPECT_TRUE(fs::is_regular_file(dir / "m-plots" / "gpu2" / "memory-map.svg"));
  // Each GPU's contents lead to its own sections and plots: every anchor once, every link to
  // one of them (the headings repeat per GPU, so their own anchors would lead to GPU 0's).
  const std::regex anchor(R"re(<a id="([^"]+)"></a>)re");
  const std::regex link(R"re(\]\(#(gpu[0-9]+-[^)]+)\))re");
  std::set<std::string> anchors;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), anchor); it != std::sregex_iterator();
       ++it) {
    EXPECT_TRUE(anchors.insert((*it)[1]).second) << "anchor repeats: " << (*it)[1];
  }
  std::size_t links = 0;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator();
       ++it, ++links) {
    EXPECT_TRUE(anchors.count((*it)[1])) << "link to no anchor: " << (*it)[1];
  }
  EXPECT_GE(links, 3u * 5);  // five sections per GPU at least
  EXPECT_TRUE(anchors.count("gpu2-findings"));
}

// The H200's stride study recorded at 3876637 (tests/data) renders in every format a study has.
TEST(CliReportKinds, ARecordedH200StudyRenders) {
  const fs::path dir = fresh_directory("report_kinds_h200_study");
  const std::string study_json = source_file("tests/data/h200-stride-study-3876637.json");
  const ProcessResult console = memtopo({"report", study_json});
  EXPECT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("stride"), std::string::npos) << console.out.substr(0, 400);
  const ProcessResult files = memtopo(
      {"report", study_json, "--html", (dir / "s.html").string(), "--markdown",
       (dir / "s.md").string()});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_NE(read(dir / "s.html").find("<section id=\"findings\">"), std::string::npos);
  // Recorded before the tables carried their drawing hint: no charts, the sections all there.
  const std::string md = read(dir / "s.md");
  for (const char* section : {"# memtopo study stride", "## Findings", "## Plots",
                              "No measured curves", "## Console report"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
}

}  // namespace
}  // namespace memtopo
