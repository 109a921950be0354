#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "golden_file.hpp"
#include "model/json.hpp"
#include "report/json_report.hpp"
#include "report/output_error.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

fs::path fresh_directory(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("memtopo_json_report_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(JsonReport, MatchesGolden) {
  testing::expect_matches_golden(render_json(testing::make_sample_topology()), "report.json");
}

TEST(JsonReport, WritesAFileThatReadsBack) {
  fs::path path = fresh_directory("writes") / "out.json";
  Topology topology = testing::make_sample_topology();
  write_json_file(topology, path);
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), render_json(topology));
  EXPECT_FALSE(fs::exists(path.string() + ".partial")) << "the temporary file is renamed";
  Topology back = topology_from_json_text(text.str(), path.string());
  EXPECT_EQ(back.elements.size(), topology.elements.size());
}

TEST(JsonReport, MissingDirectoryIsAnOutputErrorNamingThePath) {
  fs::path path = fresh_directory("missing") / "no" / "such" / "out.json";
  try {
    write_json_file(testing::make_sample_topology(), path);
    FAIL() << "expected OutputError";
  } catch (const OutputError& error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
}

TEST(JsonReport, ADirectoryInTheWayIsAnOutputError) {
  fs::path dir = fresh_directory("in_the_way");
  fs::create_directories(dir / "out.json");
  EXPECT_THROW(write_json_file(testing::make_sample_topology(), dir / "out.json"), OutputError);
}

}  // namespace
}  // namespace memtopo
