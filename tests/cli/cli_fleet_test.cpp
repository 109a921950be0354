// memtopo fleet as a user calls it, on runs of simulated devices: a directory of runs that agree
// (exit 0), one GPU with a slower DRAM among them (exit 9, named), a multi-device run counted per
// GPU, too few GPUs (not judged), and bad input (exit 4). The rule itself: tests/report/fleet_test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using nlohmann::json;

constexpr int kOutliers = 9;
constexpr int kBadInput = 4;
const std::string kTiny = "tests/sims/tiny.json";

// tiny.json with its own noise seed and DRAM latency, written into `dir`.
fs::path sim_variant(const fs::path& dir, int seed, int dram_latency) {
  json description = json::parse(read(source_file(kTiny)));
  description["noise"]["seed"] = seed;
  description["dram_latency"] = dram_latency;
  const fs::path file = dir / ("sim" + std::to_string(seed) + ".json");
  write(file, description.dump());
  return file;
}

// One dram.latency discovery per GPU of `latencies` into dir/runs/gpuN.json.
fs::path fleet_directory(const std::string& name, const std::vector<int>& latencies) {
  const fs::path dir = fresh_directory(name);
  fs::create_directories(dir / "runs");
  for (std::size_t i = 0; i < latencies.size(); ++i) {
    const fs::path sim = sim_variant(dir, static_cast<int>(i) + 1, latencies[i]);
    const fs::path run = dir / "runs" / ("gpu" + std::to_string(i) + ".json");
    const ProcessResult result = memtopo(
        {"--sim", sim.string(), "--quiet", "--only", "dram.latency", "--json", run.string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
  return dir;
}

TEST(CliFleet, RunsThatAgreeExit0) {
  const fs::path dir = fleet_directory("fleet_agree", {400, 400, 400});
  const ProcessResult result = memtopo({"fleet", (dir / "runs").string()});
  EXPECT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("No GPU differs"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("3 GPUs"), std::string::npos) << result.out;
}

TEST(CliFleet, TheSlowerGpuIsNamedAndExits9) {
  const fs::path dir = fleet_directory("fleet_slow", {400, 400, 480, 400});
  const fs::path html = dir / "fleet.html";
  const ProcessResult result =
      memtopo({"fleet", (dir / "runs").string(), "--json", "-", "--html", html.string()});
  EXPECT_EQ(result.exit_code, kOutliers) << result.err;
  const json fleet = json::parse(result.out);
  EXPECT_EQ(fleet["schema"], "memtopo-fleet/1");
  for (const json& p : fleet["models"][0]["properties"]) {
    for (const json& v : p["values"]) {
      if (v["outlier"] == true) {
        EXPECT_EQ(v["gpu"], 2) << p["element"] << "." << p["property"];
      }
    }
  }
  EXPECT_GE(fleet["outliers"].get<int>(), 1);
  EXPECT_NE(read(html).find("sim3.json"), std::string::npos);
}

TEST(CliFleet, TwoGpusAreTooFewToJudge) {
  const fs::path dir = fleet_directory("fleet_two", {400, 480});
  const ProcessResult result = memtopo({"fleet", (dir / "runs").string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("too small to judge"), std::string::npos) << result.out;
}

TEST(CliFleet, AMultiDeviceRunCountsOneGpuPerDevice) {
  const fs::path dir = fresh_directory("fleet_multi");
  const fs::path run = dir / "node.json";
  const ProcessResult discovery =
      memtopo({"--sim", source_file("sims/hopper-like-2gpu.json"), "--device", "all", "--quiet",
               "--only", "l1.latency", "--json", run.string()});
  ASSERT_EQ(discovery.exit_code, 0) << discovery.err;
  const ProcessResult result = memtopo({"fleet", run.string(), "--json", "-"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const json fleet = json::parse(result.out);
  ASSERT_EQ(fleet["gpus"].size(), 2u);
  EXPECT_EQ(fleet["gpus"][1]["file"], run.string() + " devices[1]");
  EXPECT_EQ(fleet["models"][0]["too_small"], true);
}

TEST(CliFleet, BadInputExits4) {
  const fs::path dir = fresh_directory("fleet_bad");
  fs::create_directories(dir / "empty");
  EXPECT_EQ(memtopo({"fleet", (dir / "empty").string()}).exit_code, kBadInput);
  EXPECT_EQ(memtopo({"fleet", (dir / "missing.json").string()}).exit_code, kBadInput);
  write(dir / "junk.json", "{\"not\": \"memtopo\"}");
  const ProcessResult result = memtopo({"fleet", (dir / "junk.json").string()});
  EXPECT_EQ(result.exit_code, kBadInput);
  EXPECT_NE(result.err.find("junk.json"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace memtopo
