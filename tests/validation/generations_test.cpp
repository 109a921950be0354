// The validation suite of other generations: a full default discovery (every probe, as
// `memtopo --sim FILE` runs it) on simulated devices modelled on published figures of GPUs
// other than Hopper, each fact of the description scored against what the discovery reported
// (support/scoring.hpp: right, unsure or wrong). A fact wrong at confidence >= 0.5, or a bound
// that excludes the truth, fails the case, unless it is a known failure listed below with its
// owner; a known failure that no longer fails fails too, so that the list only shrinks.
//
// With MEMTOPO_WRITE_GENERATIONS_TABLE=path the suite writes the summary and the facts that are
// not right to `path` and every fact to `path` with "-all" before its extension
// (docs/validation.md and docs/validation-generations.md are made this way).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "support/discovery_run.hpp"
#include "support/ground_truth.hpp"
#include "support/probe_harness.hpp"
#include "support/score_table.hpp"
#include "support/scoring.hpp"

namespace memtopo::validation {
namespace {

struct Case {
  std::string path;
  std::string what;  // one line: what the case models and what shape it adds
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.path; }

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"tests/validation/generations/kepler-gk110.json",
       "Kepler: 16 KiB L1 on ca only, texture 4 x 12 KiB (32 B lines, 96 ways, set bits 7-8), "
       "32 banks of 8 B, 1.5 MiB L2 of 32 B lines, L2 TLB of 7 unequal sets"},
      {"tests/validation/generations/fermi-gf114.json",
       "Fermi: 16 KiB L1 with victim weights 1,3,1,1, separate texture cache, no constant "
       "caches, 512 KiB L2, L2 TLB of 7 unequal sets"},
      {"tests/validation/generations/maxwell-gm108.json",
       "Maxwell: ca not cached on the SM, texture/L1 2 x 12 KiB of 32 B lines, 16 banks of "
       "8 B, 1 MiB L2 of 32 B lines, 3 SMs"},
      {"tests/validation/generations/pascal-gp102.json",
       "Pascal: L1/texture 2 x 24 KiB of 32 B lines, separate shared memory, 3 MiB L2 of 32 B "
       "lines, two TLB levels of 64 KiB pages"},
      {"tests/validation/generations/volta-v100.json",
       "Volta: 128 KiB L1 unified with shared memory (6 carveouts), 6 MiB 24-way L2 of 64 B "
       "lines, L1 TLB of 2 MiB and L2 TLB of 32 MiB pages, constant L1.5 of 64 KiB"},
      {"tests/validation/generations/turing-rtx2080ti.json",
       "Turing: 64 KiB L1 at the 32 KiB carveout, 5.5 MiB L2 (5632 sets) of 64 B lines, "
       "constant L1.5 of 23 sets, L2 TLB reach beyond what a chase may take"},
      {"tests/validation/generations/ampere-a100.json",
       "Ampere: 192 KiB unified L1 (8 carveouts), 40 MiB L2 in 2 partitions and 2 segments, "
       "L2 TLB of unequal sets (24, 16 x 62, 8)"},
      {"tests/validation/generations/ada-rtx4090.json",
       "Ada: 128 KiB unified L1, 72 MiB L2 (36864 sets), three TLB levels"},
      {"tests/validation/generations/ada-l40.json",
       "Ada L40: 96 MiB L2 in 4 partitions, L1 TLB of 64 KiB and L2 TLB of 2 MiB pages, "
       "142 SMs"},
      {"tests/validation/generations/blackwell-b200.json",
       "Blackwell: 240 KiB unified L1, 126 MiB L2 in 2 partitions (two dies), 180 GiB, "
       "L2 TLB of 32 MiB pages reaching 64 GiB, 148 SMs"},
  };
  return c;
}

// Facts that are wrong today and belong to work in progress elsewhere (the lead empties this
// list as it lands): case name, element.property, owner. Every entry must still fail.
struct KnownFailure {
  std::string case_name;
  std::string fact;
  std::string owner;
};
const std::vector<KnownFailure>& known_failures() {
  // Empty since the L2 chases go region by region (probes/core/region_order): ada_l40's
  // l2.latency and l2.far_latency chases (a random cycle over 64 pages of 64 KiB against an L1
  // TLB of 32) added the TLB's 25-cycle miss to half of their loads, and every miss penalty built
  // on them was wrong with them.
  static const std::vector<KnownFailure> k = {};
  return k;
}

std::string known_owner(const std::string& case_name, const std::string& fact) {
  for (const KnownFailure& k : known_failures()) {
    if (k.case_name == case_name && k.fact == fact) return k.owner;
  }
  return "";
}

ScoreTable& table() {
  static ScoreTable t;
  return t;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const Case& c : cases()) names.push_back(testing::sim_file_test_name(c.path));
  return names;
}

class Generations : public ::testing::TestWithParam<Case> {};

TEST_P(Generations, EveryFactRightOrUnsure) {
  const Case& c = GetParam();
  const std::string name = testing::sim_file_test_name(c.path);
  const nlohmann::json description = testing::read_truth(c.path).description;
  const DiscoveryRun run = run_default_discovery(c.path);
  table().add(CaseCost{name, run.seconds, run.cpu_seconds, run.loads, run.batches});

  std::size_t counts[3] = {0, 0, 0};
  std::set<std::string> scored;
  for (const Fact& fact : facts_of(description)) {
    const std::string id = fact.element + "." + fact.property;
    scored.insert(id);
    const Element* element = run.topology.find(fact.element);
    const Property* found = element ? element->find(fact.property) : nullptr;
    const auto why = run.not_ok.find(id);
    const Score s = score(fact, found, why == run.not_ok.end() ? "" : why->second);
    const std::string owner = known_owner(name, id);
    ++counts[static_cast<int>(s.verdict)];
    const std::string context = name + ": " + id + " configured " + cell(fact.truth) +
                                ", found " + s.found + " (confidence " + s.confidence + "): " +
                                s.why + (found ? "; " + found->note : "");
    if (s.fails && owner.empty()) ADD_FAILURE() << context;
    if (!owner.empty() && !s.fails) {
      ADD_FAILURE() << context << "\n  listed as a known failure (" << owner
                    << ") but it no longer fails: remove it from known_failures()";
    }
    table().add(ScoreRow{name, id, cell(fact.truth), fact.tolerance, s, s.fails ? owner : ""});
  }
  for (const KnownFailure& k : known_failures()) {
    if (k.case_name == name) {
      EXPECT_TRUE(scored.count(k.fact)) << "unknown fact " << k.fact;
    }
  }
  std::cout << "[ generations ] " << name << ": " << counts[0] << " right, " << counts[1]
            << " unsure, " << counts[2] << " wrong; " << run.seconds << " s, " << run.loads
            << " loads, " << run.batches << " batches\n";
}

INSTANTIATE_TEST_SUITE_P(Sims, Generations, ::testing::ValuesIn(cases()),
                         [](const auto& test_info) {
                           return testing::sim_file_test_name(test_info.param.path);
                         });

TEST(GenerationsSuite, AtLeastEightGenerationsOtherThanHopper) {
  EXPECT_GE(cases().size(), 8u);
  for (const Case& c : cases()) {
    const auto cc = testing::read_truth(c.path).description.at("compute_capability");
    EXPECT_NE(cc[0].get<int>(), 9) << c.path << " is a Hopper";
  }
}

TEST(GenerationsSuite, KnownFailuresNameCasesOfTheSuite) {
  const auto names = case_names();
  for (const KnownFailure& k : known_failures()) {
    EXPECT_NE(std::find(names.begin(), names.end(), k.case_name), names.end()) << k.case_name;
    EXPECT_FALSE(k.owner.empty()) << k.case_name << " " << k.fact;
  }
}

// Writes the tables at the end of the run when MEMTOPO_WRITE_GENERATIONS_TABLE is set.
class TableWriter : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* path = std::getenv("MEMTOPO_WRITE_GENERATIONS_TABLE");
    if (!path || table().empty()) return;
    std::string all_path = path;
    const auto dot = all_path.rfind('.');
    all_path.insert(dot == std::string::npos ? all_path.size() : dot, "-all");
    std::ofstream out(path);
    table().write_summary(out, case_names());
    out << "\n";
    table().write_not_right(out, case_names());
    std::ofstream all(all_path);
    table().write_all(all, case_names());
  }
};
[[maybe_unused]] const auto* const kTableWriter =
    ::testing::AddGlobalTestEnvironment(new TableWriter);

}  // namespace
}  // namespace memtopo::validation
