// The validation suite: every l1 probe on a spread of simulated devices (sizes, lines, sectors,
// ways, unequal sets, policies, split instances, L2 partitions, noise), each checked against the
// description's own truth. A property is either identifiable on a case (then it must come back:
// size within one line, everything else exact, with confidence >= 0.5) or not (then the probe must
// say so: inconclusive or confidence < 0.5). On every case, a wrong value must never carry a
// confidence of 0.5 or more. No case is left out: a property that regresses fails the build.
//
// With MEMTOPO_WRITE_VALIDATION_TABLE=path the suite writes a markdown table of case -> configured
// vs found (docs/validation.md is made this way).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"
#include "support/rotation.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kL1Ids = {"l1.size", "l1.sector", "l1.line",  "l1.ways",
                                         "l1.sets", "l1.set_bits", "l1.policy"};
const std::vector<std::string> kProperties = {"size", "sector", "line", "ways",
                                              "sets", "set_bits", "policy"};

struct Case {
  std::string path;
  std::string what;  // one line: what the case exercises
  // Properties the device truly does not reveal: the probe must say so.
  std::set<std::string> unidentifiable = {};
  // Properties revealed in principle that the probe does not resolve here, and says so
  // (inconclusive, confidence < 0.5 or skipped for an inconclusive prerequisite). A regression to
  // a confident value that is wrong fails.
  std::set<std::string> unresolved = {};
  std::string why = "";  // for the table: why a property is not asserted as exact
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.path; }

// The truth of the first cache named L1, in the form the probes report it.
std::map<std::string, nlohmann::json> truth_of(const std::string& file) {
  const auto l1 = read_truth(file).cache("L1");
  const auto size = l1.at("size_bytes").get<std::uint64_t>();
  const auto line = l1.at("line_bytes").get<std::uint64_t>();
  std::map<std::string, nlohmann::json> t;
  t["size"] = size;
  t["line"] = line;
  t["sector"] = l1.value("sector_bytes", line);
  std::uint64_t sets = 0;
  const auto& w = l1.at("ways");
  if (w.is_array()) {
    t["ways"] = w;
    sets = w.size();
  } else if (w.get<std::uint64_t>() == 0) {
    t["ways"] = size / line;
    sets = 1;
  } else {
    t["ways"] = w;
    sets = size / (line * w.get<std::uint64_t>());
  }
  t["sets"] = sets;
  const auto index = l1.value("set_index", nlohmann::json("modulo"));
  if (index.is_object()) {
    t["set_bits"] = index.at("bits");
  } else if (sets == 1) {
    t["set_bits"] = nlohmann::json::array();
  } else if (w.is_array() || !std::has_single_bit(sets)) {
    t["set_bits"] = {{"modulo", sets}};
  } else {
    nlohmann::json bits = nlohmann::json::array();
    for (int b = 0; b < std::countr_zero(sets); ++b) bits.push_back(std::countr_zero(line) + b);
    t["set_bits"] = bits;
  }
  const auto policy = l1.value("policy", nlohmann::json("lru"));
  t["policy"] = policy.is_object() ? "weighted" : policy.get<std::string>();
  return t;
}

bool matches(const std::string& name, const nlohmann::json& truth, const nlohmann::json& found,
             std::uint64_t line) {
  if (name == "size") {
    if (!found.is_number()) return false;
    const auto f = found.get<double>(), c = truth.get<double>();
    return (f > c ? f - c : c - f) <= static_cast<double>(line);
  }
  if (name == "ways" && truth.is_array()) return validation::same_up_to_rotation(truth, found);
  return found == truth;
}

std::string cell(const nlohmann::json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  for (auto& ch : s) if (ch == '|') ch = '/';
  return s;
}

// One row per case and property, gathered for the table.
struct Row {
  std::string case_name, what, property, configured, found, confidence, verdict;
};
std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}
std::map<std::string, double>& seconds_of() {
  static std::map<std::string, double> s;
  return s;
}

// Runs the case, checks every property and records it in the table.
void check_case(const Case& c) {
  const auto truth = truth_of(c.path);
  const auto line = truth.at("line").get<std::uint64_t>();
  const ProbeRun run = run_on_sim(c.path, kL1Ids);
  seconds_of()[c.path] = run.seconds;

  for (const auto& name : kProperties) {
    const Element* l1 = run.topology.find("l1");
    const Property* p = l1 ? l1->find(name) : nullptr;
    Row row{sim_file_test_name(c.path), c.why.empty() ? c.what : c.what + ". " + c.why, name, cell(truth.at(name)), "(none)", "-", ""};
    const bool truly_not = c.unidentifiable.count(name) > 0;
    const bool unresolved = c.unresolved.count(name) > 0;
    const auto skipped = run.skipped.find("l1." + name);
    if (!p) {
      // A probe that did not run because a prerequisite was inconclusive reports nothing: honest.
      const bool honest_skip = skipped != run.skipped.end() &&
                               skipped->second.find("conclusive") != std::string::npos;
      if (skipped != run.skipped.end()) row.found = "skipped: " + skipped->second;
      if ((truly_not || unresolved) && honest_skip) {
        row.verdict = truly_not ? "ok: not identifiable, says so" : "unresolved, says so";
      } else {
        ADD_FAILURE() << c.path << ": no l1." << name << " (" << row.found << ")";
        row.verdict = "**FAIL** (missing)";
      }
      rows().push_back(row);
      continue;
    }
    const bool right = matches(name, truth.at(name), p->value, line);
    const double conf = p->confidence.value_or(1.0);
    const bool says_unsure = p->inconclusive || p->value.is_null() || conf < 0.5;
    row.found = cell(p->value) + (p->inconclusive ? " (inconclusive)" : "");
    if (p->confidence) {
      std::ostringstream os;
      os.precision(2);
      os << std::fixed << *p->confidence;
      row.confidence = os.str();
    }
    const std::string context = c.path + ": l1." + name + " configured " + truth.at(name).dump() +
                                ", found " + p->value.dump() + " (" + p->note + ")";
    // Never a wrong value with high confidence.
    EXPECT_TRUE(right || says_unsure) << context << " with confidence " << conf << "\n"
                                      << p->evidence.dump();
    if (truly_not || unresolved) {
      EXPECT_TRUE(says_unsure) << context << ": expected the probe to say it is unsure ("
                               << c.why << "), yet confidence is " << conf;
      if (!says_unsure) {
        row.verdict = right ? "**FAIL** (right, but a confident guess)" : "**FAIL** (guessed)";
      } else {
        row.verdict = truly_not ? "ok: not identifiable, says so" : "unresolved, says so";
      }
    } else {
      EXPECT_TRUE(right) << context << "\n" << p->evidence.dump();
      EXPECT_FALSE(p->inconclusive) << context;
      if (right && !p->inconclusive) {
        row.verdict = conf >= 0.5 ? "ok" : "ok (right, low confidence)";
      } else {
        row.verdict = says_unsure ? "**FAIL** (unsure)" : "**FAIL** (wrong, confident)";
      }
    }
    rows().push_back(row);
  }
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      // Reused descriptions.
      {.path = "tests/sims/tiny.json",
       .what = "4 KiB, 4-way LRU, 128/32, 2 L2 partitions"},
      {.path = "tests/sims/l1-24k.json",
       .what = "24 KiB, 6-way LRU, 32 sets, 2 L2 partitions"},
      {.path = "tests/sims/l1-96k.json",
       .what = "96 KiB, 4-way LRU, 192 sets"},
      {.path = "tests/sims/l1-227k.json",
       .what = "227 KiB, 8-way LRU, 227 sets (prime)"},
      {.path = "tests/probes/sims/geometry-4way-lru.json",
       .what = "16 KiB 4-way LRU"},
      {.path = "tests/probes/sims/geometry-8way-fifo.json",
       .what = "32 KiB 8-way FIFO"},
      {.path = "tests/probes/sims/geometry-16way-random.json",
       .what = "32 KiB 16-way random"},
      {.path = "tests/probes/sims/geometry-weighted.json",
       .what = "16 KiB 4-way victim weights 1,3,1,1"},
      {.path = "tests/probes/sims/geometry-fully-associative.json",
       .what = "4 KiB fully associative LRU"},
      {.path = "tests/probes/sims/geometry-24k-24sets.json",
       .what = "24 KiB 8-way, 24 sets"},
      // l1.line runs on the first-overflow size (2176 B, before l1.ways refines l1.size); the
      // prime strides find no line there, the pairs of words in random blocks do (2827973+).
      {.path = "tests/probes/sims/geometry-unequal.json",
       .what = "2.5 KiB unequal sets"},
      {.path = "tests/probes/sims/geometry-bits-7-8.json",
       .what = "12 KiB, 32 B lines, set bits 7,8"},
      {.path = "tests/probes/sims/line-64-unsectored.json",
       .what = "48 KiB, 64 B unsectored, 6-way"},
      {.path = "tests/probes/sims/line-128-s64.json",
       .what = "64 KiB, 128 B lines / 64 B sectors"},
      {.path = "tests/probes/sims/line-32-unsectored.json",
       .what = "24 KiB, 32 B unsectored"},
      {.path = "tests/probes/sims/line-256-s32-outliers.json",
       .what = "40 KiB, 256/32, 0.1 % outliers"},
      {.path = "tests/probes/sims/l1-176k-outliers.json",
       .what = "176 KiB, jitter 3, 0.1 % outliers"},
      {.path = "tests/probes/sims/line-7x-sets-random.json",
       .what = "112 KiB 4-way random, 224 = 7 x 32 sets (the line from the strides 11 x unit)"},
      // New descriptions (tests/validation/sims).
      {.path = "tests/validation/sims/direct-mapped-16k.json",
       .what = "16 KiB direct mapped (1-way), no noise",
       .unidentifiable = {"policy"},
       .why = "one way: every policy evicts the only line"},
      {.path = "tests/validation/sims/2way-fifo-64-unsectored.json",
       .what = "32 KiB 2-way FIFO, 64 B unsectored"},
      {.path = "tests/validation/sims/32way-lru-64k.json",
       .what = "64 KiB 32-way LRU"},
      {.path = "tests/validation/sims/fa-random-64-s32.json",
       .what = "4 KiB fully associative random, 64/32",
       .unresolved = {"ways", "sets", "set_bits", "policy"},
       .why = "fully associative random: l1.ways is inconclusive, so sets and set_bits are "
              "skipped, and the policy, from a scan-resistance test alone (LRU, FIFO and random "
              "all lose the reused lines to a stream), is inconclusive"},
      {.path = "tests/validation/sims/split-instances-32k.json",
       .what = "32 KiB 4-way, 2 instances per SM"},
      {.path = "tests/validation/sims/heavy-noise-48k.json",
       .what = "48 KiB 4-way LRU, jitter 8, 0.5 % outliers"},
      {.path = "tests/validation/sims/heavy-noise-fifo-24k.json",
       .what = "24 KiB 6-way FIFO, heavy noise"},
      {.path = "tests/validation/sims/256-unsectored-64k.json",
       .what = "64 KiB 4-way, 256 B unsectored"},
      {.path = "tests/validation/sims/96k-weighted-s64.json",
       .what = "96 KiB 4-way weights 4,1,1,1, 128/64",
       .unresolved = {"size"},
       .why = "weighted victims: the size comes out 1.5 lines high, confidence 0.42"},
      {.path = "tests/validation/sims/227k-random-unsectored.json",
       .what = "227 KiB 8-way random, 128 B unsectored, 1 L2 partition",
       .unresolved = {"size"},
       .why = "random replacement on 8 ways, unsectored: one overfull set adds about two slow "
              "accesses per pass against some 7 000 elements' outliers, so the size comes out "
              "6 lines high with confidence 0.28; the overfull-set chases cannot read the ways, "
              "minimal eviction sets do (and with them the sets, set bits and policy)"},
      {.path = "tests/validation/sims/32-unsectored-fifo-8k.json",
       .what = "8 KiB 8-way FIFO, 32 B lines"},
      {.path = "tests/validation/sims/unequal-fifo-heavy.json",
       .what = "6 KiB unequal sets FIFO, heavy noise, 7 sets (the prime 7 divides them)"},
  };
  return c;
}

class ValidationSuite : public ::testing::TestWithParam<Case> {};

TEST_P(ValidationSuite, TruthComesBack) { check_case(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, ValidationSuite, ::testing::ValuesIn(cases()),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param.path); });

TEST(ValidationSuiteSize, AtLeastTwentyCases) { EXPECT_GE(cases().size(), 20u); }

// Writes the table at the end of the run when MEMTOPO_WRITE_VALIDATION_TABLE is set.
class TableWriter : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* path = std::getenv("MEMTOPO_WRITE_VALIDATION_TABLE");
    if (!path || rows().empty()) return;
    std::ofstream out(path);
    out << "| Case | What it is | Property | Configured | Found | Confidence | Verdict |\n";
    out << "|---|---|---|---|---|---|---|\n";
    // In case order, then property order, whatever order the cases ran in (--gtest_shuffle).
    auto rank = [](const Row& r) {
      std::size_t ci = 0, pi = 0;
      while (ci < cases().size() && sim_file_test_name(cases()[ci].path) != r.case_name) ++ci;
      while (pi < kProperties.size() && kProperties[pi] != r.property) ++pi;
      return std::pair(ci, pi);
    };
    std::vector<Row> sorted = rows();
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const Row& a, const Row& b) { return rank(a) < rank(b); });
    std::string last;
    for (const auto& r : sorted) {
      const bool first = r.case_name != last;
      last = r.case_name;
      out << "| " << (first ? "`" + r.case_name + "`" : "") << " | " << (first ? r.what : "")
          << " | " << r.property << " | " << r.configured << " | " << r.found << " | "
          << r.confidence << " | " << r.verdict << " |\n";
    }
    double total = 0;
    for (const auto& [file, s] : seconds_of()) total += s;
    out << "\n" << seconds_of().size() << " cases, probes took " << static_cast<int>(total * 10) / 10.0
        << " s in all.\n";
  }
};
[[maybe_unused]] const auto* const kTableWriter =
    ::testing::AddGlobalTestEnvironment(new TableWriter);

}  // namespace
}  // namespace memtopo::testing
