// A device with little free memory, as a user meets it: what does not fit is skipped with the
// reason (exit 0), and only a run where nothing could run at all ends with exit 6.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "subprocess.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBinary = std::string(MEMTOPO_BINARY_DIR) + "/memtopo";

// tests/sims/tiny.json with `global_memory_bytes` of memory, written to a fresh directory.
fs::path tiny_sim_with_memory(std::uint64_t global_memory_bytes, const fs::path& dir) {
  std::ifstream in(fs::path(MEMTOPO_SOURCE_DIR) / "tests" / "sims" / "tiny.json");
  json description = json::parse(in);
  description["global_memory_bytes"] = global_memory_bytes;
  const fs::path path = dir / "little-memory.json";
  std::ofstream(path) << description.dump(2);
  return path;
}

fs::path fresh_directory(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("memtopo_cli_memory_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json probe_outcomes(const fs::path& report) {
  std::ifstream in(report);
  return json::parse(in)["run"]["probes"];
}

TEST(CliMemory, WhatDoesNotFitIsSkippedWithTheReasonAndTheRestRuns) {
  const fs::path dir = fresh_directory("little");
  // 64 KiB: the size search's first chase and its records do not fit; latencies and shared
  // memory do.
  const fs::path sim = tiny_sim_with_memory(64 << 10, dir);
  const testing::ProcessResult result =
      testing::run_process({kBinary, "--sim", sim.string(), "--only", "l1,shared", "--quiet",
                            "--json", (dir / "out.json").string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  int ok = 0;
  for (const json& outcome : probe_outcomes(dir / "out.json")) {
    EXPECT_NE(outcome["status"], "failed") << outcome.dump();
    ok += outcome["status"] == "ok";
    if (outcome["id"] == "l1.size") {
      EXPECT_EQ(outcome["status"], "skipped");
      EXPECT_TRUE(outcome["reason"].get<std::string>().starts_with(
          "not enough device memory: chase spec needs "))
          << outcome["reason"];
    }
  }
  EXPECT_GT(ok, 0) << "shared.latency and the L1 latency fit";
}

TEST(CliMemory, ARunWhereNothingFitsEndsWithExitSixAndStillWritesTheReport) {
  const fs::path dir = fresh_directory("none");
  const fs::path sim = tiny_sim_with_memory(4096, dir);
  const testing::ProcessResult result =
      testing::run_process({kBinary, "--sim", sim.string(), "--only", "l1,shared", "--quiet",
                            "--json", (dir / "out.json").string()});
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.err.find("no probe could run for lack of free device memory"), std::string::npos)
      << result.err;
  for (const json& outcome : probe_outcomes(dir / "out.json")) {
    EXPECT_EQ(outcome["status"], "skipped") << outcome.dump();
  }
}

}  // namespace
}  // namespace memtopo
