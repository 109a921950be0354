// The one reader of saved runs (report/run_file.hpp, model/property_shapes.hpp): every table
// cell and evidence key a report reads is checked once, other documents are named, and files
// too large or not text are refused before they are read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/json.hpp"
#include "report/run_file.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

// A run with every table-valued property a discovery writes (the fuzz seed).
ordered_json tables_run() {
  std::ifstream file(fs::path(MEMTOPO_SOURCE_DIR) / "tests/fuzz/corpus/compare_input/tables.json");
  std::stringstream text;
  text << file.rdbuf();
  return ordered_json::parse(text.str());
}

ordered_json& element(ordered_json& run, const std::string& id) {
  for (ordered_json& entry : run["elements"]) {
    if (entry["id"] == id) return entry;
  }
  throw std::logic_error("no element " + id);
}

class RunFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("memtopo_run_file_" + std::to_string(getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  std::string write(const std::string& text) {
    const fs::path path = directory_ / "run.json";
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  // The reader's message for `text` in a file ("" when it reads).
  std::string problem_of_text(const std::string& text) { return problem_of_file(write(text)); }
  std::string problem_of(const ordered_json& run) { return problem_of_text(run.dump()); }
  static std::string problem_of_file(const std::string& path) {
    try {
      read_run_file(path);
    } catch (const TopologyJsonError& error) {
      return error.what();
    }
    return "";
  }

  fs::path directory_;
};

#define EXPECT_SAYS(problem, text) \
  EXPECT_NE((problem).find(text), std::string::npos) << "the message: " << (problem)

TEST_F(RunFile, EveryTableValuedPropertyOfADiscoveryReads) {
  EXPECT_EQ(problem_of(tables_run()), "");
}

// What ended `memtopo report` in an internal error, or reached the export as nonsense.
TEST_F(RunFile, WrongTypesInsideTablesNameTheKeyAndItsPath) {
  ordered_json run = tables_run();
  element(run, "tma")["copy_latency"]["value"][1]["method"] = false;
  EXPECT_SAYS(problem_of(run), "copy_latency.value[1].method: expected a string, found false");

  run = tables_run();
  element(run, "dram")["latency_patterns"]["value"][1]["tlb"][1] = ordered_json::array();
  EXPECT_SAYS(problem_of(run), "latency_patterns.value[1].tlb[1]: expected a string, found []");

  run = tables_run();
  element(run, "dram")["latency_patterns"]["value"][0]["reachable"] = nullptr;
  EXPECT_SAYS(problem_of(run), "value[0].reachable: expected true or false, found null");

  run = tables_run();
  element(run, "dram")["latency_patterns"]["value"][0]["pages"] = 1e300;
  EXPECT_SAYS(problem_of(run), "value[0].pages: expected an integer of 0 or more");

  run = tables_run();
  element(run, "shared")["banks"]["value"] = "fifo";
  EXPECT_SAYS(problem_of(run), "banks.value: expected a number, found \"fifo\"");

  run = tables_run();
  element(run, "l1")["line"]["value"] = -128;
  EXPECT_SAYS(problem_of(run), "line.value: must not be negative, found -128");

  run = tables_run();
  element(run, "l1")["carveout"]["value"][0] = 5;
  EXPECT_SAYS(problem_of(run), "carveout.value[0]: expected an object, found 5");

  run = tables_run();
  element(run, "l2")["partition_map"]["evidence"]["second_touch_p50_cycles"] = "fast";
  EXPECT_SAYS(problem_of(run), "partition_map.evidence.second_touch_p50_cycles");

  run = tables_run();
  element(run, "dram")["latency_patterns"]["evidence"]["tlb_levels"] = std::uint64_t{1} << 60;
  EXPECT_SAYS(problem_of(run), "evidence.tlb_levels: must be at most 64");

  run = tables_run();
  element(run, "l1")["size"]["evidence"] = ordered_json::array();
  EXPECT_SAYS(problem_of(run), "size.evidence: expected an object, found []");
}

TEST_F(RunFile, OtherMemtopoDocumentsAreNamedForWhatTheyAre) {
  const ordered_json run = tables_run();
  const ordered_json multi = {{"schema", "memtopo-multi-device"},
                              {"schema_version", 1},
                              {"devices", ordered_json::array({run, run})},
                              {"p2p", nullptr}};
  EXPECT_SAYS(problem_of(multi), "is a multi-device run (memtopo --device all: 2 GPUs");
  EXPECT_SAYS(problem_of(multi), "jq '.devices[0]'");
  EXPECT_SAYS(problem_of({{"schema_version", "memtopo-study/1"}, {"study", {}}}),
              "is a study's result");
  EXPECT_SAYS(problem_of({{"schema", "memtopo-compare/1"}, {"a", {}}}),
              "is a comparison of two runs");
}

TEST_F(RunFile, AFileTooLargeIsRefusedBeforeItIsRead) {
  const fs::path huge = directory_ / "huge.json";
  std::ofstream(huge).put('{');
  fs::resize_file(huge, kMaxRunFileBytes + 1);  // sparse: nothing is written
  const auto start = std::chrono::steady_clock::now();
  EXPECT_SAYS(problem_of_file(huge.string()), "268435457 bytes, larger than 256 MiB");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1);
}

TEST_F(RunFile, AnEndlessOrBinaryInputEndsAtItsFirstNulByte) {
  EXPECT_SAYS(problem_of_file("/dev/zero"), "/dev/zero: a NUL byte at byte 0");
  const std::string text = tables_run().dump();
  EXPECT_SAYS(problem_of_text(text + std::string(1, '\0') + " garbage"),
              "a NUL byte at byte " + std::to_string(text.size()));
  EXPECT_SAYS(problem_of_text(text + " garbage"), "expected end of input");
  EXPECT_SAYS(problem_of_file(directory_.string()), "is a directory");
  EXPECT_SAYS(problem_of_file((directory_ / "absent.json").string()), "no such file");
}

TEST_F(RunFile, ElementsAndPropertiesAreBounded) {
  ordered_json run = tables_run();
  ordered_json& l1 = element(run, "l1");
  for (int i = 0; i < 300; ++i) l1["p" + std::to_string(i)] = l1["size"];
  EXPECT_SAYS(problem_of(run), "an element of a memtopo run has at most 256 properties");
  run = tables_run();
  for (int i = 0; i < 300; ++i) {
    run["elements"].push_back({{"id", "e" + std::to_string(i)}});
  }
  EXPECT_SAYS(problem_of(run), "a memtopo run has at most 256");
}

// 800,000 probe outcomes (28 MB) took over two minutes to read; the same in well under a second
// now (the bound leaves room for a sanitizer build on a busy machine).
TEST_F(RunFile, AHugeListOfProbesReadsInLinearTime) {
  ordered_json run = tables_run();
  ordered_json probes = ordered_json::array();
  for (int i = 0; i < 800'000; ++i) probes.push_back({{"id", "p"}, {"status", "ok"}});
  run["run"]["probes"] = std::move(probes);
  const std::string path = write(run.dump());
  const auto start = std::chrono::steady_clock::now();
  const Topology topology = read_run_file(path);
  EXPECT_EQ(topology.run.probes.size(), 800'000u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20);
}

}  // namespace
}  // namespace memtopo
