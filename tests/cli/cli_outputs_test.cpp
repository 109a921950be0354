// Output paths and option values as a user gives them (issue 10, item 7): stdout, symlinks,
// FIFOs and devices, read-only files and directories, full disks, non-UTF-8 paths, empty values.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "model/json.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;

bool is_character_device(const char* path) {
  struct stat status {};
  return lstat(path, &status) == 0 && S_ISCHR(status.st_mode);
}

// Files a write left behind in `dir`: temporary files end in ".partial".
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".partial") found.push_back(entry.path().string());
  }
  return found;
}

TEST(CliOutputs, EmptyOptionValuesAreUsageErrors) {
  // An unset shell variable must not mean "absent": --sim '' once measured the bundled device.
  for (const std::string option : {"--sim", "--json", "--traces", "--only"}) {
    SCOPED_TRACE(option);
    ProcessResult r = memtopo({option, "", "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing ran";
  }
}

TEST(CliOutputs, JsonDashIsStdout) {
  ProcessResult r = memtopo(quick_run({"--json", "-"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NO_THROW(topology_from_json_text(r.out, "stdout"));
}

TEST(CliOutputs, ASymlinkIsWrittenThroughToItsTarget) {
  fs::path dir = fresh_directory("symlink");
  write(dir / "target.json", "old");
  fs::create_symlink("target.json", dir / "link.json");
  ProcessResult r = memtopo(quick_run({"--json", (dir / "link.json").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.json")) << "the link stays a link";
  EXPECT_NO_THROW(topology_from_json_text(read(dir / "target.json"), "target"));
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(CliOutputs, AFifoIsWrittenDirectlyAndStaysAFifo) {
  fs::path dir = fresh_directory("fifo");
  fs::path fifo = dir / "results";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read(fifo); });  // blocks until memtopo opens it
  ProcessResult r = memtopo(quick_run({"--json", fifo.string()}));
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_NO_THROW(topology_from_json_text(received, "fifo")) << "one document, written once";
}

TEST(CliOutputs, DevNullIsWrittenAndNeverReplaced) {
  // As root, --json /dev/stdout once replaced the machine's /dev/stdout with a regular file.
  ProcessResult r = memtopo(quick_run({"--json", "/dev/null"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_character_device("/dev/null"));
}

TEST(CliOutputs, AFullDeviceIsAWriteErrorAndStaysADevice) {
  ProcessResult r = memtopo(quick_run({"--json", "/dev/full"}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("cannot write /dev/full: No space left on device"), std::string::npos)
      << r.err;
  EXPECT_TRUE(is_character_device("/dev/full"));
  EXPECT_NE(r.out.find("Memory elements"), std::string::npos) << "the results are still shown";
}

TEST(CliOutputs, AFullStdoutIsAWriteErrorAndTheJsonFileIsStillWritten) {
  fs::path json = fresh_directory("stdout_full") / "out.json";
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" > /dev/full", "sh", kBinary};
  for (const std::string& arg : quick_run({"--json", json.string()})) argv.push_back(arg);
  ProcessResult r = run_process(argv);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("cannot write the report to standard output"), std::string::npos) << r.err;
  EXPECT_NO_THROW(topology_from_json_text(read(json), "out")) << "the results are kept";
}

TEST(CliOutputs, AReadOnlyFileIsRefusedBeforeMeasuring) {
  fs::path file = fresh_directory("read_only") / "kept.json";
  write(file, "kept");
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  ProcessResult r = memtopo(quick_run({"--json", file.string()}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "refused before anything ran";
  EXPECT_EQ(read(file), "kept");
}

TEST(CliOutputs, ADirectoryWhereNoFileCanBeCreatedIsRefusedBeforeMeasuring) {
  // /proc takes no new file even from root, for whom a mode-555 directory is writable.
  for (const std::string option : {"--json", "--traces"}) {
    SCOPED_TRACE(option);
    const std::string path = option == "--json" ? "/proc/memtopo.json" : "/proc/memtopo-traces";
    ProcessResult r = memtopo(quick_run({option, path}));
    EXPECT_EQ(r.exit_code, 7) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "refused before anything ran";
  }
  if (geteuid() != 0) {
    fs::path dir = fresh_directory("read_only_dir");
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    ProcessResult r = memtopo(quick_run({"--json", (dir / "out.json").string()}));
    EXPECT_EQ(r.exit_code, 7) << r.err;
    fs::permissions(dir, fs::perms::owner_all);
  }
}

TEST(CliOutputs, ATraceDirectoryThatIsAFileIsRefusedBeforeMeasuring) {
  fs::path file = fresh_directory("traces_file") / "not_a_directory";
  write(file, "x");
  ProcessResult r = memtopo(quick_run({"--traces", file.string()}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// A file-size limit (ulimit -f) makes every write past it fail as a full disk would.
ProcessResult memtopo_with_file_limit(const std::string& kib,
                                      const std::vector<std::string>& args) {
  std::string command = "ulimit -f " + kib + "; exec \"$0\"";
  for (std::size_t i = 0; i < args.size(); ++i) command += " \"$" + std::to_string(i + 1) + "\"";
  std::vector<std::string> argv = {"/bin/sh", "-c", command, kBinary};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

TEST(CliOutputs, AFailedJsonWriteLeavesTheOldFileWhole) {
  fs::path dir = fresh_directory("file_limit");
  write(dir / "out.json", "the previous results");
  // 8 KiB: the console report fits, the JSON (about 16 KiB) does not.
  ProcessResult r =
      memtopo_with_file_limit("8", quick_run({"--json", (dir / "out.json").string()}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(read(dir / "out.json"), "the previous results") << "never truncated";
  EXPECT_TRUE(leftovers(dir).empty()) << "the temporary file is removed";
}

TEST(CliOutputs, AFailedTraceWriteLeavesNoTruncatedTrace) {
  fs::path dir = fresh_directory("trace_limit");
  ProcessResult r = memtopo_with_file_limit("4", quick_run({"--traces", (dir / "t").string()}));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_TRUE(leftovers(dir / "t").empty());
  for (const auto& entry : fs::directory_iterator(dir / "t")) {
    const std::string text = read(entry.path());
    EXPECT_NE(text.find("\naccess,chaser,index,cycles\n"), std::string::npos) << entry.path();
    EXPECT_EQ(text.back(), '\n') << entry.path() << " is whole";
  }
}

TEST(CliOutputs, PathsThatAreNotUtf8Work) {
  // They once ended a finished run with an internal error: the JSON could not encode them.
  fs::path dir = fresh_directory("latin1");
  const std::string sim = (dir / "na\xefve.json").string();
  fs::copy_file(smallest_test_sim(), sim);
  const std::string json = (dir / "r\xe9sultats.json").string();
  ProcessResult r = memtopo({"--sim", sim, "--only", "l1.size", "--quiet", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Topology topology = topology_from_json_text(read(json), "latin1");
  EXPECT_EQ(topology.run.sim_file, (dir / "na\\xefve.json").string()) << "stored printable";
  EXPECT_EQ(topology.run.arguments.back(), (dir / "r\\xe9sultats.json").string());
}

TEST(CliOutputs, ControlCharactersInNamesFromTheSimFileAreEscaped) {
  fs::path dir = fresh_directory("control_name");
  nlohmann::json description = nlohmann::json::parse(read(smallest_test_sim()));
  description["name"] = "evil\x1b[2J\x1b[31m";
  write(dir / "evil.json", description.dump());
  ProcessResult r = memtopo({"--sim", (dir / "evil.json").string(), "--only", "l1.size", "--quiet",
                             "--json", (dir / "out.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no raw escape reaches the terminal";
  const Topology topology = topology_from_json_text(read(dir / "out.json"), "out");
  EXPECT_EQ(topology.device.name, "evil\\x1b[2J\\x1b[31m");
}

}  // namespace
}  // namespace memtopo
