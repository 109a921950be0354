// Saved runs gzip-compressed (report/gzip_text.hpp): read as their JSON, and every way gzip data
// can be wrong refused with a word. gzip (the program) makes the test's data; where the build
// has no zlib, the refusal says to gunzip first.
#include <gtest/gtest.h>
#include <unistd.h>

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

const fs::path kRecordedRun =
    fs::path(MEMTOPO_SOURCE_DIR) / "tests/data/h200-discovery-2c1f551.json.gz";

std::string file_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

class GzipRunFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("memtopo_gzip_" + std::to_string(getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

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
  std::string write(const std::string& bytes, const std::string& name = "run.json.gz") {
    const fs::path path = directory_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
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
  EXPECT_NE(problem_of_file(write(whole.substr(0, whole.size() / 2))).find("ends early"),
            std::string::npos);
  std::string corrupt = whole;
  for (std::size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(~corrupt[i]);
  const std::string said = problem_of_file(write(corrupt));
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
  EXPECT_NE(problem_of_file(write(with_nul)).find("(gunzipped): a NUL byte at byte 4"),
            std::string::npos);
}

}  // namespace
}  // namespace memtopo
