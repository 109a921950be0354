// Signals and crashes during a run, as a user, a batch scheduler or the kernel deliver them
// (issue 10, items 1 and 2): what was measured is written, and a killed run leaves a JSON file
// that parses and holds every probe completed before it.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "cli_helpers.hpp"
#include "model/json.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using Clock = std::chrono::steady_clock;

// The bundled device is the largest, so a discovery on it runs for seconds: long enough for a
// signal to land in the middle.
const std::string kLongRunSim = source_file("sims/hopper-like.json");
constexpr auto kStartTimeout = std::chrono::seconds(120);

// Waits until `done` holds (or the start timeout passes); false when it never did.
template <typename Condition>
bool wait_for(Condition done) {
  const auto deadline = Clock::now() + kStartTimeout;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool started_probing(const Subprocess& run) {
  return run.err_so_far().find("[1/") != std::string::npos;
}

std::size_t partial_files(const fs::path& dir) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    count += entry.path().extension() == ".partial";
  return count;
}

// The first probe's checkpoint is on disk: the run is well under way.
bool wrote_a_checkpoint(const fs::path& json) {
  std::error_code error;
  return fs::exists(json, error);
}

// Every probe a file lists ran to its end (the runner records one only then), each with its
// phase; an interrupted run adds not_run entries.
void expect_consistent_checkpoint(const Topology& topology) {
  EXPECT_FALSE(topology.run.probes.empty());
  std::size_t completed = 0;
  for (const ProbeOutcome& outcome : topology.run.probes) completed += outcome.status != "not_run";
  EXPECT_EQ(topology.run.phases.size(), completed + 2)
      << "startup and setup plus one phase per probe";
}

struct SignalCase {
  int signal;
  int exit_code;
  const char* name;
};

class StopSignal : public ::testing::TestWithParam<SignalCase> {};

TEST_P(StopSignal, WritesWhatWasMeasuredAndExitsWithItsCode) {
  const SignalCase signal = GetParam();
  fs::path json = fresh_directory(std::string("signal_") + signal.name) / "partial.json";
  Subprocess run({kBinary, "--sim", kLongRunSim, "--json", json.string()});
  ASSERT_TRUE(wait_for([&] { return started_probing(run); }));
  run.send_signal(signal.signal);
  ProcessResult r = run.wait();
  if (r.exit_code == 0) GTEST_SKIP() << "the discovery finished before the signal arrived";
  EXPECT_EQ(r.exit_code, signal.exit_code) << r.err;
  EXPECT_NE(r.err.find(std::string(signal.name) + " received"), std::string::npos) << r.err;
  const Topology topology = topology_from_json_text(read(json), json.string());
  EXPECT_TRUE(topology.run.interrupted);
  EXPECT_TRUE(topology.run.complete) << "the last write of the run";
  EXPECT_EQ(topology.run.probes.back().status, "not_run");
  EXPECT_NE(r.out.find("INTERRUPTED"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Signals, StopSignal,
                         ::testing::Values(SignalCase{SIGINT, 130, "SIGINT"},
                                           SignalCase{SIGTERM, 143, "SIGTERM"},
                                           SignalCase{SIGHUP, 129, "SIGHUP"}),
                         [](const ::testing::TestParamInfo<SignalCase>& param) {
                           return std::string(param.param.name);
                         });

TEST(CliSignals, TheSameSignalTwiceAtOnceCountsAsOne) {
  // `timeout -s INT` signals the process and then its process group: two SIGINTs at once.
  fs::path json = fresh_directory("double_int") / "partial.json";
  Subprocess run({kBinary, "--sim", kLongRunSim, "--json", json.string()});
  ASSERT_TRUE(wait_for([&] { return started_probing(run); }));
  run.send_signal(SIGINT);
  run.send_signal(SIGINT);
  ProcessResult r = run.wait();
  if (r.exit_code == 0) GTEST_SKIP() << "the discovery finished before the signal arrived";
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(topology_from_json_text(read(json), json.string()).run.interrupted);
}

TEST(CliSignals, ASecondSignalEndsAtOnceAndLeavesTheLastCheckpoint) {
  fs::path dir = fresh_directory("second_signal");
  fs::path json = dir / "partial.json";
  Subprocess run({kBinary, "--sim", kLongRunSim, "--json", json.string()});
  ASSERT_TRUE(wait_for([&] { return wrote_a_checkpoint(json); }));
  run.send_signal(SIGINT);
  run.send_signal(SIGTERM);  // another signal: the user does not want to wait for the batch
  ProcessResult r = run.wait();
  if (r.exit_code == 0) GTEST_SKIP() << "the discovery finished before the signals arrived";
  EXPECT_EQ(r.term_signal, SIGTERM) << "ended by the signal, exit code " << r.exit_code << "\n"
                                    << r.err;
  const Topology topology = topology_from_json_text(read(json), json.string());
  EXPECT_FALSE(topology.run.complete) << "a checkpoint, not the final write";
  expect_consistent_checkpoint(topology);
  EXPECT_EQ(partial_files(dir), 0u) << "the temporary file being written is removed";
}

// SIGKILL cannot be handled: only the checkpoints written after each probe survive it. Killed at
// several moments, the file must always parse and hold whole probes.
TEST(CliSignals, SigkillAtAnyMomentLeavesNoFileOrOneThatParses) {
  for (int delay_ms : {0, 40, 150, 400, 900}) {
    SCOPED_TRACE("killed " + std::to_string(delay_ms) + " ms after the first checkpoint");
    fs::path dir = fresh_directory("sigkill_" + std::to_string(delay_ms));
    fs::path json = dir / "partial.json";
    Subprocess run({kBinary, "--sim", kLongRunSim, "--json", json.string(), "--quiet"});
    ASSERT_TRUE(wait_for([&] { return wrote_a_checkpoint(json); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    run.send_signal(SIGKILL);
    ProcessResult r = run.wait();
    if (r.exit_code == 0) continue;  // finished first: then the file is the final one
    EXPECT_EQ(r.term_signal, SIGKILL);
    const Topology topology = topology_from_json_text(read(json), json.string());
    EXPECT_FALSE(topology.run.complete);
    EXPECT_FALSE(topology.run.interrupted);
    expect_consistent_checkpoint(topology);
  }
}

TEST(CliSignals, ACompleteRunSaysSo) {
  fs::path json = fresh_directory("complete") / "out.json";
  ProcessResult r = memtopo(
      {"--sim", smallest_test_sim(), "--only", "l1.size", "--quiet", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Topology topology = topology_from_json_text(read(json), json.string());
  EXPECT_TRUE(topology.run.complete);
  EXPECT_FALSE(topology.run.interrupted);
}

// Issue 35 item 3: the run says where the time from main() to the first probe went, and the
// wall counts from main(): startup and setup are phases, their steps run.startup.
TEST(CliSignals, ARunTimesItsStartupFromMain) {
  fs::path json = fresh_directory("startup") / "out.json";
  ProcessResult r = memtopo(
      {"--sim", smallest_test_sim(), "--only", "l1.size", "--quiet", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Topology topology = topology_from_json_text(read(json), json.string());
  ASSERT_GE(topology.run.phases.size(), 3u);
  EXPECT_EQ(topology.run.phases[0].name, "startup");
  EXPECT_EQ(topology.run.phases[1].name, "setup");
  std::vector<std::string> steps;
  double steps_seconds = 0;
  for (const StartupStep& step : topology.run.startup) {
    steps.push_back(step.name);
    steps_seconds += step.seconds;
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"options", "plan", "description", "sharing_check"}));
  const double startup = topology.run.phases[0].seconds + topology.run.phases[1].seconds;
  EXPECT_NEAR(steps_seconds, startup, 0.01) << "the steps are the two phases, split finer";
  double phases = 0;
  for (const PhaseTiming& phase : topology.run.phases) phases += phase.seconds;
  EXPECT_GE(topology.run.duration_seconds, phases);
  EXPECT_GT(topology.run.checkpoint_seconds, 0) << "a checkpoint after l1.size";
}

}  // namespace
}  // namespace memtopo
