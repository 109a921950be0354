#include "golden_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace memtopo::testing {
namespace {

std::string golden_path(const std::string& name) {
  return std::string(MEMTOPO_SOURCE_DIR) + "/tests/report/golden/" + name;
}

bool update_requested() {
  const char* flag = std::getenv("MEMTOPO_UPDATE_GOLDEN");
  return flag && std::string(flag) == "1";
}

// "line N: expected '...' but got '...'" for the first line that differs.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string expected_line, actual_line;
  for (int line = 1;; ++line) {
    bool more_expected = static_cast<bool>(std::getline(e, expected_line));
    bool more_actual = static_cast<bool>(std::getline(a, actual_line));
    if (!more_expected && !more_actual) return "the outputs differ only in line endings";
    if (!more_expected) expected_line = "<end of file>";
    if (!more_actual) actual_line = "<end of output>";
    if (expected_line != actual_line || !more_expected || !more_actual) {
      return "line " + std::to_string(line) + ":\n  expected: " + expected_line +
             "\n  actual:   " + actual_line;
    }
  }
}

}  // namespace

void expect_matches_golden(const std::string& actual, const std::string& name) {
  const std::string path = golden_path(name);
  if (update_requested()) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path << " (MEMTOPO_UPDATE_GOLDEN=1); review the diff";
  }
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << "missing golden file " << path
                    << "; create it with MEMTOPO_UPDATE_GOLDEN=1 and review it";
  std::stringstream expected;
  expected << file.rdbuf();
  if (expected.str() != actual) {
    ADD_FAILURE() << name << " differs from the golden output at "
                  << first_difference(expected.str(), actual)
                  << "\nIf the change is intended, regenerate with MEMTOPO_UPDATE_GOLDEN=1.";
  }
}

// docs/results keeps discoveries gzip-compressed since 38c7db2 (ConsoleReport's recorded-run
// test found none and skipped from then on). gzip is on every machine the suite runs on; where
// it is not, the text is empty and the caller says so.
std::string recorded_text(const std::filesystem::path& path) {
  if (path.extension() != ".gz") {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }
  const std::string command = "gzip -dc '" + path.string() + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string text;
  if (!pipe) return text;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) {
    text.append(buffer, n);
  }
  return text;
}

}  // namespace memtopo::testing
