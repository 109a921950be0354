// Every option the Accel-Sim export writes is one GPGPU-Sim knows, with a value its parser
// takes (accel_sim_option_table.hpp), on a hand-built run, a recorded sim run and a recorded
// H200 run; and the H200's fragment has dl1 (sets derived), the constant cache and the API facts.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "accel_sim_option_table.hpp"
#include "golden_file.hpp"
#include "model/json.hpp"
#include "report/export_accel_sim.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

// "" when every option line is in the table with a value of its format; else the bad lines.
std::string problems_of(const std::string& fragment) {
  std::istringstream in(fragment);
  std::string problems;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find(' '));
    const std::string value = line.find(' ') == std::string::npos ? "" : line.substr(line.find(' ') + 1);
    const auto& table = testing::accel_sim_option_table();
    const auto it = table.find(name);
    if (it == table.end()) {
      problems += "unknown option: " + line + "\n";
    } else if (!std::regex_match(value, std::regex(it->second))) {
      problems += "bad value: " + line + "\n";
    }
  }
  return problems;
}

std::size_t options_in(const std::string& fragment) {
  std::istringstream in(fragment);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) count += !line.empty() && line[0] == '-';
  return count;
}

Topology recorded(const std::string& relative) {
  const fs::path path = fs::path(MEMTOPO_SOURCE_DIR) / relative;
  const std::string text = testing::recorded_text(path);
  if (text.empty()) throw std::runtime_error("cannot read " + path.string());
  return topology_from_json_text(text, path.string());
}

TEST(ExportOptionTable, TheRecordedH200RunGivesAFragmentAccelSimLoads) {
  const std::string text =
      render_accel_sim_config(recorded("tests/data/h200-discovery-2c1f551.json.gz"));
  EXPECT_EQ(problems_of(text), "") << text;
  EXPECT_GE(options_in(text), 14u) << text;  // 7 before issue 36
  for (const char* option : {"-gpgpu_cache:dl1 S:480:128:4,L:", "-gpgpu_const_cache:l1 N:8:64:4,L:",
                             "-gpgpu_n_clusters 132", "-gpgpu_clock_domains 1980:1980:1980:3201",
                             "-gpgpu_shmem_size 233472", "-gpgpu_shmem_option 0,"}) {
    EXPECT_NE(text.find(std::string("\n") + option), std::string::npos) << option << "\n" << text;
  }
}

TEST(ExportOptionTable, TheRecordedSimRunGivesAFragmentAccelSimLoads) {
  const std::string text =
      render_accel_sim_config(recorded("tests/data/hopper-like-sim-discovery-9e979a1.json.gz"));
  EXPECT_EQ(problems_of(text), "") << text;
  EXPECT_NE(text.find("\n-gpgpu_cache:dl2 "), std::string::npos) << text;  // l2.ways measured
}

TEST(ExportOptionTable, TheTableCatchesAWrongOption) {
  EXPECT_NE(problems_of("-gpgpu_cache:dl1 S:480:128\n"), "");
  EXPECT_NE(problems_of("-gpgpu_l1_latncy 23\n"), "");
  EXPECT_NE(problems_of("-gpgpu_shmem_option 0,8,\n"), "");
  EXPECT_EQ(problems_of("# a comment\n-gpgpu_l1_latency 23\n"), "");
}

}  // namespace
}  // namespace memtopo
