#pragma once
// What the tests of the memtopo binary share: running it, small simulated devices, scratch
// directories and files.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "subprocess.hpp"

namespace memtopo::testing {

inline const std::string kBinary = std::string(MEMTOPO_BINARY_DIR) + "/memtopo";

inline ProcessResult memtopo(std::vector<std::string> args,
                             const std::vector<std::string>& environment = {}) {
  args.insert(args.begin(), kBinary);
  return run_process(args, environment);
}

inline std::string source_file(const std::string& relative) {
  return std::string(MEMTOPO_SOURCE_DIR) + "/" + relative;
}

// The simulated device with the fewest SMs under tests/sims/ (the tiny one the sim tests use),
// so that a full discovery stays quick.
inline std::string smallest_test_sim() {
  std::string best;
  std::uint64_t best_sms = UINT64_MAX;
  std::filesystem::path dir = std::filesystem::path(MEMTOPO_SOURCE_DIR) / "tests" / "sims";
  if (!std::filesystem::is_directory(dir)) return "";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream file(entry.path());
    auto description = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
    if (!description.is_object() || !description.contains("sm_count")) continue;
    auto sms = description["sm_count"].get<std::uint64_t>();
    if (sms < best_sms) best_sms = sms, best = entry.path().string();
  }
  return best;
}

// The quickest discovery a CLI test can ask for: one probe on the smallest simulated device,
// without progress lines; `more` arguments follow.
inline std::vector<std::string> quick_run(std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"--sim", smallest_test_sim(), "--only", "l1.size", "--quiet"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

inline std::filesystem::path fresh_directory(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("memtopo_cli_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

inline void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace memtopo::testing
