// The memtopo binary as a user calls it: options, exit codes, messages, outputs.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "model/json.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;

TEST(Cli, HelpPrintsUsageAndExamples) {
  ProcessResult r = memtopo({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes:"), std::string::npos);
}

TEST(Cli, VersionPrintsVersionAndGitDescribe) {
  ProcessResult r = memtopo({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("memtopo 0.", 0), 0u) << r.out;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  ProcessResult r = memtopo({"--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, MissingSimFileIsBadInputNamingTheFile) {
  ProcessResult r = memtopo({"--sim", "/nonexistent/device.json"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("/nonexistent/device.json"), std::string::npos) << r.err;
}

TEST(Cli, CorruptSimFileIsBadInput) {
  fs::path file = fresh_directory("corrupt") / "broken.json";
  std::ofstream(file) << "{ \"name\": \"broken\", ";
  ProcessResult r = memtopo({"--sim", file.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
}

TEST(Cli, UnknownOnlyIdIsAUsageErrorListingValidIds) {
  ProcessResult r = memtopo({"--only", "unknown.id", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown.id"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("l1.size"), std::string::npos) << "lists the valid ids: " << r.err;
}

TEST(Cli, ListShowsProbesAndExits) {
  ProcessResult r = memtopo({"--list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("l1.size"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p2p.latency"), std::string::npos) << r.out;
}

TEST(Cli, ExplicitDeviceThatDoesNotExistIsNoDevice) {
  // Never falls back to a simulation when the user named the device.
  ProcessResult r = memtopo({"--device", "99", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("SIMULATED"), std::string::npos);
}

TEST(Cli, UnwritableJsonFailsBeforeMeasuring) {
  ProcessResult r = memtopo({"--json", "/nonexistent/dir/out.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_NE(r.err.find("/nonexistent/dir/out.json"), std::string::npos) << r.err;
}

// Every probe property in the report has the fields the schema promises.
void expect_schema_keys(const nlohmann::json& doc, const std::string& sim_file) {
  for (const char* key : {"schema_version", "tool", "run", "device", "elements", "warnings"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["run"]["simulated"], true);
  EXPECT_EQ(doc["run"]["sim_file"], sim_file);
  EXPECT_EQ(doc["device"]["source"], "api");
  ASSERT_FALSE(doc["elements"].empty());
  std::size_t properties = 0;
  for (const auto& element : doc["elements"]) {
    EXPECT_TRUE(element["id"].is_string());
    for (const auto& [key, value] : element.items()) {
      if (key == "id" || key == "kind" || key == "scope" || key == "load_paths") continue;
      ++properties;
      for (const char* field : {"value", "unit", "source", "method"}) {
        EXPECT_TRUE(value.contains(field)) << element["id"] << "." << key << " lacks " << field;
      }
    }
  }
  EXPECT_GT(properties, 0u);
}

// One full discovery (ctest runs each test in its own process, so checks share one test
// rather than a fixture that would repeat the discovery).
TEST(Cli, FullDiscoveryOnASmallSimulatedDevice) {
  std::string sim = smallest_test_sim();
  ASSERT_FALSE(sim.empty()) << "no simulated device description under tests/sims/";
  fs::path json = fresh_directory("discovery") / "out.json";
  ProcessResult r = memtopo({"--sim", sim, "--json", json.string()});

  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_line(r.out),
            "SIMULATED DEVICE (" + sim + "): not a measurement of real hardware");
  EXPECT_NE(r.out.find("Memory elements"), std::string::npos);
  EXPECT_NE(r.err.find("[1/"), std::string::npos) << "progress goes to stderr: " << r.err;

  std::string text = read(json);
  expect_schema_keys(nlohmann::json::parse(text), sim);
  EXPECT_NO_THROW(topology_from_json_text(text, json.string())) << "compare can read it back";
}

TEST(Cli, NoVisibleGpuFallsBackToTheBundledSimulatedDevice) {
  ProcessResult r = memtopo({"--only", "l1.size", "--quiet"}, {"CUDA_VISIBLE_DEVICES="});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_line(r.out).rfind("SIMULATED DEVICE (", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("hopper-like.json"), std::string::npos);
  EXPECT_NE(r.err.find("SIMULATED"), std::string::npos) << r.err;
}

TEST(Cli, TracesDirectoryGetsOneCsvPerExperiment) {
  std::string sim = smallest_test_sim();
  ASSERT_FALSE(sim.empty());
  fs::path dir = fresh_directory("traces") / "traces";
  ProcessResult r =
      memtopo({"--sim", sim, "--only", "l1.size", "--traces", dir.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++files;
    std::string text = read(entry.path());
    EXPECT_EQ(text.rfind("# l1.size", 0), 0u) << entry.path();
    EXPECT_NE(text.find("\naccess,chaser,index,cycles\n"), std::string::npos);
  }
  EXPECT_GT(files, 0u);
}

// Every experiment goes through the probe context, so the traces hold the warp accesses of the
// bank probes and the L2 first-touch launches of the partition map too (issue 34: they were
// called on the backend directly and missing from --traces and the clock log).
TEST(Cli, TracesHoldWarpAccessesAndFirstTouches) {
  fs::path dir = fresh_directory("traces_other") / "traces";
  ProcessResult r = memtopo({"--sim", source_file("sims/hopper-like.json"), "--only",
                             "shared.banks,l2.partition_map", "--traces", dir.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  bool warp = false, touch = false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string text = read(entry.path());
    warp = warp || text.find(": warp access word_bytes=") != std::string::npos;
    touch = touch || text.find(": L2 first touch lines_per_reader=") != std::string::npos;
  }
  EXPECT_TRUE(warp) << "no warp-access trace in " << dir;
  EXPECT_TRUE(touch) << "no first-touch trace in " << dir;
}

// Signals, checkpoints and kills: cli_signals_test.cpp; output paths: cli_outputs_test.cpp.

}  // namespace
}  // namespace memtopo
