#pragma once
// Golden-output checks. A golden file is the exact expected output, kept under
// tests/report/golden/. After a deliberate change to a report's layout, regenerate them with
//   MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R 'ConsoleReport|JsonReport'
// and review the diff (git diff tests/report/golden) before committing it.
#include <filesystem>
#include <string>

namespace memtopo::testing {

// Compares `actual` with golden/<name>; with MEMTOPO_UPDATE_GOLDEN=1 rewrites the file instead.
// Fails the current test with the first differing line on a mismatch.
void expect_matches_golden(const std::string& actual, const std::string& name);

// A recorded file's text, gunzipped where it ends in .gz (docs/results keeps discoveries
// compressed); "" where it cannot be read (the caller says so).
std::string recorded_text(const std::filesystem::path& path);

}  // namespace memtopo::testing
