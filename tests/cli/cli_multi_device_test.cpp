// --device all and --device 0,1 as a user calls them, on simulated GPUs (multi_gpu key).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"

namespace memtopo::testing {
namespace {

const std::string kThreeGpus = source_file("tests/sims/multi-gpu/three-gpus.json");

TEST(CliMultiDevice, DeviceAllWritesOneDocumentWithEveryGpuAndTheMatrices) {
  const auto dir = fresh_directory("multi_all");
  ProcessResult r = memtopo({"--sim", kThreeGpus, "--device", "all", "--only", "p2p", "--quiet",
                             "--json", (dir / "multi.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto document = nlohmann::json::parse(read(dir / "multi.json"));
  EXPECT_EQ(document["schema"], "memtopo-multi-device");
  EXPECT_EQ(document["schema_version"], 1);
  ASSERT_EQ(document["devices"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    // Each device is a one-device document as --device N writes it.
    EXPECT_EQ(document["devices"][i]["schema_version"], 1);
    EXPECT_EQ(document["devices"][i]["device"]["device_index"], i);
  }
  EXPECT_EQ(document["p2p"]["pairs"].size(), 9u);
  EXPECT_EQ(document["p2p"]["matrices"]["peer_access"]["values"][0][2], false);
  // The console shows the matrices.
  EXPECT_NE(r.out.find("Latency of a dependent load"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NV18"), std::string::npos);
}

TEST(CliMultiDevice, HtmlHasTheMatricesAndEveryGpusSections) {
  const auto dir = fresh_directory("multi_html");
  ProcessResult r = memtopo({"--sim", kThreeGpus, "--device", "all", "--only",
                             "p2p,l2.latency", "--quiet", "--html", (dir / "multi.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read(dir / "multi.html");
  for (const char* id :
       {"id=\"p2p\"", "id=\"p2p-peer_access\"", "id=\"p2p-link\"", "id=\"p2p-latency\"",
        "id=\"p2p-sm_read_bandwidth\"", "id=\"p2p-copy_write_bandwidth\"",
        "id=\"gpu0-summary\"", "id=\"gpu2-findings\"", "id=\"gpu1-console\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("NV18"), std::string::npos);
  EXPECT_NE(html.find("n/a: "), std::string::npos);  // GPU 0 and GPU 2 have no peer access
  EXPECT_EQ(html.find("id=\"summary\""), std::string::npos);  // every id carries its GPU
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

// `memtopo report` renders a multi-device run's JSON: the same HTML page and memory map the run
// wrote itself. Console and markdown: cli_report_kinds_test.cpp.
TEST(CliMultiDevice, ReportRendersTheJsonAsTheRunsHtmlAndMap) {
  const auto dir = fresh_directory("multi_report");
  ProcessResult r = memtopo({"--sim", kThreeGpus, "--device", "all", "--only", "p2p,l2.latency",
                             "--quiet", "--json", (dir / "m.json").string(), "--html",
                             (dir / "m.html").string(), "--svg", (dir / "m.svg").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult report =
      memtopo({"report", (dir / "m.json").string(), "--html", (dir / "again.html").string(),
               "--svg", (dir / "again.svg").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(read(dir / "again.html"), read(dir / "m.html"));
  EXPECT_EQ(read(dir / "again.svg"), read(dir / "m.svg"));
}

TEST(CliMultiDevice, AListRunsThoseGpusOnlyAndThePerGpuProbesToo) {
  ProcessResult r = memtopo({"--sim", kThreeGpus, "--device", "2,1", "--only",
                             "p2p.link,l2.latency", "--quiet", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto document = nlohmann::json::parse(r.out);
  ASSERT_EQ(document["devices"].size(), 2u);
  EXPECT_EQ(document["devices"][0]["device"]["device_index"], 2);
  EXPECT_EQ(document["p2p"]["devices"][0]["cuda_index"], 2);
  EXPECT_EQ(document["p2p"]["matrices"]["link"]["values"][0][1], "PCIe");
  bool ran_latency = false;
  for (const auto& probe : document["devices"][0]["run"]["probes"]) {
    ran_latency |= probe["id"] == "l2.latency" && probe["status"] == "ok";
  }
  EXPECT_TRUE(ran_latency) << document["devices"][0]["run"]["probes"].dump();
}

TEST(CliMultiDevice, OneDeviceKeepsTheOneDeviceDocument) {
  ProcessResult r =
      memtopo({"--sim", kThreeGpus, "--only", "l2.latency", "--quiet", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto document = nlohmann::json::parse(r.out);
  EXPECT_FALSE(document.contains("schema"));
  EXPECT_FALSE(document.contains("p2p"));
  EXPECT_TRUE(document.contains("elements"));
}

TEST(CliMultiDevice, MistakesHaveTheirExitCodes) {
  // A GPU the description does not have: no device.
  ProcessResult r = memtopo({"--sim", kThreeGpus, "--device", "0,3", "--only", "p2p", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("3 GPUs are described"), std::string::npos) << r.err;
  // A repeated index, an unknown p2p id, --traces: usage.
  EXPECT_EQ(memtopo({"--sim", kThreeGpus, "--device", "0,0", "--quiet"}).exit_code, 2);
  r = memtopo({"--sim", kThreeGpus, "--device", "all", "--only", "p2p.bogus", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p2p.bogus"), std::string::npos) << r.err;
  const auto dir = fresh_directory("multi_traces");
  EXPECT_EQ(
      memtopo({"--sim", kThreeGpus, "--device", "all", "--traces", (dir / "t").string(), "--quiet"})
          .exit_code,
      2);
  r = memtopo({"--sim", kThreeGpus, "--device", "all", "--only", "l2.latency", "--markdown",
               (dir / "r.md").string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // the run writes its markdown as `report` does
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "r-plots" / "gpu1" / "memory-map.svg"));
  r = memtopo({"--sim", kThreeGpus, "--device", "all", "--export", "accel-sim",
               (dir / "x.config").string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // p2p ids on one device: usage, with the hint.
  r = memtopo({"--sim", kThreeGpus, "--only", "p2p", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--device all"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown id"), std::string::npos) << "p2p is no unknown id: " << r.err;
  // A bad multi_gpu key: bad input, naming the key.
  write(dir / "bad.json",
        read(kThreeGpus).replace(read(kThreeGpus).find("\"gpus\""), 6, "\"gpuz\""));
  r = memtopo({"--sim", (dir / "bad.json").string(), "--device", "all", "--quiet"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("gpuz"), std::string::npos) << r.err;
}

TEST(CliMultiDevice, ADescriptionWithoutMultiGpuIsOneGpuWithoutAHostLink) {
  ProcessResult r = memtopo({"--sim", smallest_test_sim(), "--device", "all", "--only",
                             "p2p.copy_bandwidth", "--quiet", "--json", "-"});
  ASSERT_EQ(r.exit_code, 5) << r.err;  // every pair failed: nothing to copy to
  const auto document = nlohmann::json::parse(r.out);
  EXPECT_EQ(document["devices"].size(), 1u);
  EXPECT_EQ(document["p2p"]["probes"][0]["status"], "failed");
}

}  // namespace
}  // namespace memtopo::testing
