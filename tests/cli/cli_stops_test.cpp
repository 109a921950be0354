// Stops obeyed at once (issue 37, item 4): the first stop signal is acknowledged on stderr
// before the batch ends; an output nobody reads (a FIFO) is abandoned at a stop with exit 7;
// a standard output that is closed, full or a broken pipe still leaves every file written and
// ends with exit 7 and a message.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "cli_helpers.hpp"

namespace memtopo::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kCannotWrite = 7;
const std::string kLongRunSim = source_file("sims/hopper-like.json");

template <typename Condition>
bool wait_for(Condition done, std::chrono::milliseconds limit = std::chrono::seconds(120)) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The acknowledgement is written by the signal handler: it is there long before the batch
// (over 1.5 s on a slow GPU) ends.
void expect_acknowledged_at_once(const std::vector<std::string>& arguments) {
  Subprocess run(arguments);
  ASSERT_TRUE(wait_for([&] { return run.err_so_far().find("[1/") != std::string::npos; }));
  run.send_signal(SIGTERM);
  const bool acknowledged = wait_for(
      [&] { return run.err_so_far().find("SIGTERM received: stopping") != std::string::npos; },
      std::chrono::milliseconds(500));
  const ProcessResult result = run.wait();
  if (result.exit_code == 0) GTEST_SKIP() << "the run finished before the signal arrived";
  EXPECT_TRUE(acknowledged) << result.err;
  EXPECT_EQ(result.exit_code, 143) << result.err;
}

TEST(CliStops, TheFirstStopIsAcknowledgedAtOnceInADiscovery) {
  expect_acknowledged_at_once({kBinary, "--sim", kLongRunSim});
}

TEST(CliStops, TheFirstStopIsAcknowledgedAtOnceInAMultiDeviceRun) {
  expect_acknowledged_at_once(
      {kBinary, "--sim", source_file("sims/hopper-like-2gpu.json"), "--device", "all"});
}

// `--json fifo` and nobody opens the FIFO: SIGTERM, SIGINT, SIGHUP and two signals 5 ms apart
// did nothing, and only a second signal over a second later ended the run (by signal, no JSON).
TEST(CliStops, AFifoNobodyReadsIsAbandonedAtTheStopWithExit7) {
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    SCOPED_TRACE(strsignal(signal));
    const fs::path dir = fresh_directory("stops_fifo");
    const fs::path fifo = dir / "results.json";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    Subprocess run({kBinary, "--sim", smallest_test_sim(), "--only", "l1.size", "--quiet", "--json",
                    fifo.string()});
    // The console report comes first; then memtopo waits for a reader of the FIFO.
    ASSERT_TRUE(wait_for([&] { return !run.out_so_far().empty(); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    run.send_signal(signal);
    const ProcessResult result = run.wait();
    EXPECT_EQ(result.exit_code, kCannotWrite) << result.err;
    EXPECT_LT(result.seconds, 30);
    EXPECT_NE(result.err.find("no reader opened it before the stop signal"), std::string::npos)
        << result.err;
    struct stat status {};
    ASSERT_EQ(stat(fifo.c_str(), &status), 0);
    EXPECT_TRUE(S_ISFIFO(status.st_mode)) << "the FIFO stays a FIFO";
  }
}

// A reader that opens the FIFO and stops reading: the write of a JSON larger than the pipe's
// buffer blocks, and is abandoned at the stop.
TEST(CliStops, AFifoWhoseReaderStopsReadingIsAbandonedAtTheStop) {
  const fs::path dir = fresh_directory("stops_fifo_full");
  const fs::path fifo = dir / "results.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Subprocess run({kBinary, "--sim", smallest_test_sim(), "--quiet", "--json", fifo.string()});
  ASSERT_TRUE(wait_for([&] { return !run.out_so_far().empty(); }));
  const int reader = open(fifo.c_str(), O_RDONLY);  // opened, never read
  ASSERT_GE(reader, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  run.send_signal(SIGTERM);
  const ProcessResult result = run.wait();
  close(reader);
  EXPECT_EQ(result.exit_code, kCannotWrite) << result.err;
  EXPECT_NE(result.err.find("its reader stopped reading"), std::string::npos) << result.err;
}

// Standard output closed, full, or a pipe whose reader has gone: every file is still written,
// and memtopo ends with exit 7 and a message (it died by SIGPIPE, exit 141, without a word, and
// never wrote the --export file).
TEST(CliStops, AStdoutThatCannotBeWrittenStillLeavesEveryFile) {
  for (const std::string redirection : {">&-", ">/dev/full", "| :"}) {
    SCOPED_TRACE(redirection);
    const fs::path dir = fresh_directory("stops_stdout");
    // The exit status is kept in a file: a pipeline's status is its last command's.
    const std::string command = "{ '" + kBinary + "' --sim '" + smallest_test_sim() +
                                "' --quiet --json r.json --html r.html --markdown r.md "
                                "--traces traces --export accel-sim r.cfg; echo $? > rc; } " +
                                redirection;
    const ProcessResult result =
        run_process({"/bin/sh", "-c", "cd '" + dir.string() + "' && " + command});
    EXPECT_EQ(read(dir / "rc"), "7\n") << result.err;
    EXPECT_NE(result.err.find("standard output"), std::string::npos) << result.err;
    for (const char* file : {"r.json", "r.html", "r.md", "r.cfg", "traces"}) {
      EXPECT_TRUE(fs::exists(dir / file)) << file;
    }
  }
  const std::string run = source_file("tests/fuzz/corpus/topology_json/minimal.json");
  for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
           {"compare", run, run}, {"export", "accel-sim", run, "-"}, {"--list"}}) {
    std::string line;
    for (const std::string& word : command) line += " '" + word + "'";
    const ProcessResult result =
        run_process({"/bin/sh", "-c", "'" + kBinary + "'" + line + " > /dev/full"});
    EXPECT_EQ(result.exit_code, kCannotWrite) << line << ": " << result.err;
    EXPECT_NE(result.err.find("cannot write to standard output"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace memtopo::testing
