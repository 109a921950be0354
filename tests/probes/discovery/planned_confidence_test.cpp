// No value surer than what it was planned from (docs/architecture.md, design rule 3): every
// probe, run as a
// user runs it (select_probes, run_probes: a full default discovery), on every simulated device
// description in the tree (sims/, tests/sims/, tests/probes/sims/, tests/validation/sims/, and
// their subfolders), checked by PlanInputsCheck: each value's confidence is at most that of every
// finding its probe read from an earlier probe, and the product of its factors. The devices of
// tests/validation/generations/ get the same check in memtopo_validation_tests, whose full
// discoveries of them this program does not repeat.
//
// A program of its own, labelled `property`, so that CI's sanitizer stage (which runs the five
// host programs it names) does not run it: one full discovery per description, some 30 s of CPU
// in all on an optimised build (docs/reliability.md, "Sanitizers and speed budgets").
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/runner.hpp"
#include "support/plan_check.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const char* const kSimFolders[] = {"sims", "tests/sims", "tests/probes/sims",
                                   "tests/validation/sims"};

// Every description file, relative to the source tree, in a stable order.
std::vector<std::string> every_sim() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const fs::path root = source_path("");
  for (const char* folder : kSimFolders) {
    if (!fs::is_directory(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json")
        out.push_back(fs::relative(entry.path(), root).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "tests/probes/sims/tlb-3level-unequal.json" -> "tests_probes_sims_tlb_3level_unequal".
std::string test_name(const std::string& path) {
  std::string name = path.substr(0, path.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class EverySim : public ::testing::TestWithParam<std::string> {};

TEST_P(EverySim, NoValueIsSurerThanTheFindingsItsPlanRead) {
  auto backend = make_sim_backend_from_file(source_path(GetParam()));
  Topology topology;
  topology.device = backend->facts();
  add_api_facts(topology);
  ProbeContext ctx{.backend = *backend, .topology = topology};
  const auto registry = all_probes();
  PlanInputsCheck check(topology);
  run_probes(ctx, select_probes(registry, {}),
             [&](const Probe& probe) { check.probe_finished(probe.id()); });

  for (const std::string& violation : check.violations()) ADD_FAILURE() << violation;
  // A discovery whose probes read nothing from each other would test nothing.
  EXPECT_GT(check.comparisons(), 0u);
  std::cout << "[ planned ] " << GetParam() << ": " << check.comparisons()
            << " values against their inputs\n";
}

INSTANTIATE_TEST_SUITE_P(Descriptions, EverySim, ::testing::ValuesIn(every_sim()),
                         [](const auto& test_info) { return test_name(test_info.param); });

TEST(EverySimList, FindsTheDescriptionsOfEveryFolder) {
  const auto sims = every_sim();
  for (const char* folder : kSimFolders) {
    EXPECT_TRUE(std::any_of(sims.begin(), sims.end(), [&](const std::string& path) {
      return path.starts_with(std::string(folder) + "/");
    })) << folder;
  }
}

}  // namespace
}  // namespace memtopo::testing
