// Two runs writing one --json file or one --traces directory (issue 37, item 6): both exited 0,
// one overwriting the other. The second refuses now, before measuring, naming the first.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "cli_helpers.hpp"

namespace memtopo::testing {
namespace {

namespace fs = std::filesystem;
constexpr int kOutputLockCannotWrite = 7;

TEST(CliOutputLock, ASecondWriterOfOneJsonOrTraceDirectoryRefusesNamingTheFirst) {
  const fs::path dir = fresh_directory("output_lock");
  fs::create_symlink(dir / "run.json", dir / "link.json");
  Subprocess first({kBinary, "--sim", source_file("sims/hopper-like.json"), "--json",
                    (dir / "run.json").string(), "--traces", (dir / "traces").string()});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (first.err_so_far().find("[1/") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const ProcessResult json = memtopo(quick_run({"--json", (dir / "link.json").string()}));
  const ProcessResult traces = memtopo(quick_run({"--traces", (dir / "traces").string()}));
  first.send_signal(SIGTERM);  // what it measured so far is written, the locks let go
  const ProcessResult first_result = first.wait();
  ASSERT_EQ(first_result.exit_code, 143) << first_result.err;
  EXPECT_EQ(json.exit_code, kOutputLockCannotWrite) << json.err;
  EXPECT_NE(json.err.find("another memtopo (pid "), std::string::npos) << json.err;
  EXPECT_EQ(traces.exit_code, kOutputLockCannotWrite) << traces.err;
  EXPECT_NE(traces.err.find("another memtopo (pid "), std::string::npos) << traces.err;
  // The first run's results are its own, and its lock files are gone.
  EXPECT_NE(read(dir / "run.json").find("hopper-like"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / ".run.json.memtopo-lock"));
  EXPECT_FALSE(fs::exists(dir / "traces" / ".memtopo-lock"));
  EXPECT_EQ(memtopo(quick_run({"--json", (dir / "run.json").string()})).exit_code, 0);
}

}  // namespace
}  // namespace memtopo::testing
