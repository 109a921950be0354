// What each probe asks of the device on sims/hopper-like.json, against a committed golden
// (tests/data/work_counts/hopper-like.txt; issue 35 item 2). The counts are the budget of a
// discovery's speed: a cut that is undone, or a probe that grows, changes them and fails here
// with each probe's old and new counts. A change meant to move them rewrites the golden with
//   MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R WorkCounts
// and the commit says why (git diff tests/data/work_counts shows by how much).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

constexpr const char* kGolden = "tests/data/work_counts/hopper-like.txt";

std::string work_line(const ProbeWork& w) {
  char line[256];
  std::snprintf(line, sizeof line, "%-26s %8llu %8llu %11llu %8llu %9llu %8llu", w.probe_id.c_str(),
                static_cast<unsigned long long>(w.batches),
                static_cast<unsigned long long>(w.chases), static_cast<unsigned long long>(w.loads),
                static_cast<unsigned long long>(w.warp_access_batches),
                static_cast<unsigned long long>(w.warp_accesses),
                static_cast<unsigned long long>(w.stream_launches));
  return line;
}

std::string work_table(const std::vector<ProbeWork>& work) {
  std::string text =
      "# Work per probe on sims/hopper-like.json, seed 1 (tests/probes/discovery/"
      "work_counts_test.cpp)\n"
      "# probe                   batches   chases       loads  warp_bt  warp_acc  streams\n";
  ProbeWork total{"total"};
  for (const ProbeWork& w : work) {
    text += work_line(w) + "\n";
    total.batches += w.batches;
    total.chases += w.chases;
    total.loads += w.loads;
    total.warp_access_batches += w.warp_access_batches;
    total.warp_accesses += w.warp_accesses;
    total.stream_launches += w.stream_launches;
  }
  return text + work_line(total) + "\n";
}

// Probe id -> its line, comments left out.
std::map<std::string, std::string> lines_by_probe(const std::string& table) {
  std::map<std::string, std::string> lines;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    lines[line.substr(0, line.find(' '))] = line;
  }
  return lines;
}

// Every probe whose counts differ, both lines, the golden's first: readable in a CI log.
std::string differences(const std::string& golden, const std::string& actual) {
  const auto before = lines_by_probe(golden);
  const auto now = lines_by_probe(actual);
  std::string text;
  for (const auto& [probe, line] : before) {
    const auto it = now.find(probe);
    if (it == now.end()) {
      text += "- " + line + "   (no longer runs)\n";
    } else if (it->second != line) {
      text += "- " + line + "\n+ " + it->second + "\n";
    }
  }
  for (const auto& [probe, line] : now) {
    if (!before.count(probe)) text += "+ " + line + "   (new)\n";
  }
  return text;
}

TEST(WorkCounts, EveryProbeOnHopperLikeAsksWhatTheGoldenSays) {
  const ProbeRun run = run_on_sim("sims/hopper-like.json");
  const std::string actual = work_table(run.work);
  const std::string path = source_path(kGolden);
  if (std::getenv("MEMTOPO_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    GTEST_SKIP() << "rewrote " << kGolden;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << kGolden
                  << "; write it with MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R WorkCounts";
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(golden, actual)
      << "The work per probe changed (- golden, + now; columns: batches, chases, loads, "
         "warp-access batches, warp accesses, stream launches):\n"
      << differences(golden, actual)
      << "A change meant to move it: MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R "
         "WorkCounts, and say why in the commit.";
}

}  // namespace
}  // namespace memtopo::testing
