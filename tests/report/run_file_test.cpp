// The one reader of saved runs (report/run_file.hpp, model/property_shapes.hpp): every table
// cell and evidence key a report reads is checked once, other documents are named, and files
// too large or not text are refused before they are read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "golden_file.hpp"
#include "model/json.hpp"
#include "report/gzip_text.hpp"
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

  std::string write(const std::string& text, const std::string& name = "run.json") {
    const fs::path path = directory_ / name;
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

const fs::path kRecordedRun =
    fs::path(MEMTOPO_SOURCE_DIR) / "tests/data/h200-discovery-2c1f551.json.gz";

std::string file_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// Saved runs gzip-compressed (report/gzip_text.hpp): read as their JSON, and every way gzip data
// can be wrong refused with a word. gzip (the program) makes the data; where the build has no
// zlib, the refusal says to gunzip first.
class GzipRunFile : public RunFile {
 protected:
  // `text` compressed by the gzip program ("" where it cannot run).
  std::string gzip_of(const std::string& text) {
    const fs::path path = directory_ / "gzip.out";
    const std::string command = "gzip -c > '" + path.string() + "' 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "w"), pclose);
    if (!pipe) return "";
    std::fwrite(text.data(), 1, text.size(), pipe.get());
    pipe.reset();
    return file_bytes(path);
  }
  std::string write_gz(const std::string& bytes) { return write(bytes, "run.json.gz"); }
};

TEST_F(GzipRunFile, ARecordedRunReadsAsItsJson) {
  if (!reads_gzip()) {
    EXPECT_NE(problem_of_file(kRecordedRun.string()).find("gunzip it first"), std::string::npos);
    GTEST_SKIP() << "built without zlib";
  }
  const std::string gunzipped = testing::recorded_text(kRecordedRun);
  ASSERT_FALSE(gunzipped.empty()) << "gzip could not read " << kRecordedRun;
  const Topology from_gzip = read_run_file(kRecordedRun.string());
  const Topology from_json = topology_from_json_text(gunzipped, "the same, gunzipped");
  EXPECT_EQ(topology_to_json(from_gzip).dump(), topology_to_json(from_json).dump());
  EXPECT_FALSE(from_gzip.elements.empty());
}

TEST_F(GzipRunFile, TruncatedOrCorruptGzipIsRefusedWithAWord) {
  if (!reads_gzip()) GTEST_SKIP() << "built without zlib";
  const std::string whole = file_bytes(kRecordedRun);
  ASSERT_GT(whole.size(), 100u);
  EXPECT_NE(problem_of_file(write_gz(whole.substr(0, whole.size() / 2))).find("ends early"),
            std::string::npos);
  std::string corrupt = whole;
  for (std::size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(~corrupt[i]);
  const std::string said = problem_of_file(write_gz(corrupt));
  EXPECT_NE(said.find("gzip: "), std::string::npos) << said;
  EXPECT_NE(said.find("run.json.gz"), std::string::npos) << said;
}

TEST_F(GzipRunFile, TextBeyondTheLimitStopsAsItInflates) {
  if (!reads_gzip()) GTEST_SKIP() << "built without zlib";
  const std::string spaces = gzip_of(std::string(std::size_t{4} << 20, ' '));
  if (spaces.empty()) GTEST_SKIP() << "no gzip program";
  EXPECT_LT(spaces.size(), std::size_t{64} << 10);  // 4 MiB of one byte: a few KiB
  try {
    gunzip_text(spaces, std::size_t{1} << 20, "spaces.gz");
    ADD_FAILURE() << "no refusal";
  } catch (const TopologyJsonError& error) {
    EXPECT_NE(std::string(error.what()).find("spaces.gz: gzip: inflates past 1 MiB"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(gunzip_text(spaces, std::size_t{8} << 20, "spaces.gz").size(), std::size_t{4} << 20);
}

TEST_F(GzipRunFile, MembersGzipConcatenatedReadAsOneText) {
  if (!reads_gzip()) GTEST_SKIP() << "built without zlib";
  const std::string first = gzip_of("{\"a\": ");
  const std::string second = gzip_of("1}");
  if (first.empty() || second.empty()) GTEST_SKIP() << "no gzip program";
  EXPECT_EQ(gunzip_text(first + second, 1024, "two.gz"), "{\"a\": 1}");
  // A NUL byte inside the gunzipped text is refused as in a plain file.
  const std::string with_nul = gzip_of(std::string("{\"a\"") + '\0' + "}");
  EXPECT_NE(problem_of_file(write_gz(with_nul)).find("(gunzipped): a NUL byte at byte 4"),
            std::string::npos);
}

}  // namespace
}  // namespace memtopo
