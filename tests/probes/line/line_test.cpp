// l1.sector and l1.line end to end on simulated devices: the line and sector sizes the
// description configures, exactly, sectored and unsectored.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/probe.hpp"

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

class L1LineOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(L1LineOnSim, LineAndSectorAsConfigured) {
  const SimTruth truth = read_truth(GetParam());
  const auto l1 = truth.cache("L1");
  const auto line = l1.at("line_bytes").get<std::uint64_t>();
  const auto sector = l1.value("sector_bytes", line);  // absent: unsectored

  const ProbeRun run = run_on_sim(GetParam(), {"l1.size", "l1.sector", "l1.line"});
  EXPECT_TRUE(run.skipped.empty());
  const Property& s = property(run, "l1", "sector");
  ASSERT_TRUE(s.value.is_number()) << s.note;
  EXPECT_EQ(s.value.get<std::uint64_t>(), sector);
  EXPECT_EQ(s.source, Source::measured);
  EXPECT_FALSE(s.inconclusive);
  ASSERT_TRUE(s.confidence.has_value());
  EXPECT_GT(*s.confidence, 0.9);
  EXPECT_EQ(s.evidence.at("confidence_factors").at(0).at("rule"), "share");
  EXPECT_EQ(s.evidence.at("mode_gap_bytes").get<std::uint64_t>(), sector);
  EXPECT_TRUE(s.evidence.at("gap_histogram_bytes").contains(std::to_string(sector)));

  const Property& l = property(run, "l1", "line");
  ASSERT_TRUE(l.value.is_number()) << l.note << "\n" << l.evidence.dump(1);
  EXPECT_EQ(l.value.get<std::uint64_t>(), line) << l.evidence.dump(1);
  EXPECT_EQ(l.source, Source::measured);
  EXPECT_FALSE(l.inconclusive);
  ASSERT_TRUE(l.confidence.has_value());
  // By hand: an exact ratio (octave_closeness 1), every stride of the ladder as the line predicts
  // (5 strides on the smallest ladders here: agreement 6 / 7 = 0.857, 6 strides 7 / 8), a clean
  // search edge: above 0.8.
  EXPECT_GT(*l.confidence, 0.8) << l.note;
  std::vector<std::string> rules;
  for (const auto& f : l.evidence.at("confidence_factors")) rules.push_back(f.at("rule"));
  ASSERT_GE(rules.size(), 3u) << l.evidence.at("confidence_factors").dump(1);
  EXPECT_EQ(rules[0], "octave_closeness");
  EXPECT_EQ(rules[1], "agreement");
  EXPECT_EQ(rules[2], "edge");
  EXPECT_EQ(l.evidence.at("sectored").get<bool>(), sector < line);
  EXPECT_FALSE(l.evidence.contains("primes_tried")) << "7 divides none of these set counts";
  // The raw ratio size / capacity is close to the line, not merely rounded to it.
  EXPECT_NEAR(l.evidence.at("raw_ratio_bytes").get<double>(), static_cast<double>(line),
              0.05 * static_cast<double>(line))
      << l.evidence.at("capacity_per_stride").dump(1);
  // The first stride beyond the line is above it (an aliased stride may push it an octave up).
  EXPECT_GT(l.evidence.at("first_beyond_stride_bytes").get<std::uint64_t>(), line);
  if (sector == line) {
    EXPECT_EQ(s.value, l.value) << "an unsectored cache reports sector == line";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Devices, L1LineOnSim,
    ::testing::Values("sims/hopper-like.json",                         // 128 B lines, 32 B sectors
                      "tests/probes/sims/line-64-unsectored.json",     // 64 B, unsectored
                      "tests/probes/sims/line-128-s64.json",           // 128 B lines, 64 B sectors
                      "tests/probes/sims/line-32-unsectored.json",     // 32 B, 96 B stride aliases
                      "tests/probes/sims/line-256-s32-outliers.json",  // 256/32, 0.1 % outliers
                      "tests/sims/l1-227k.json"),                      // 227 sets (prime)
    [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// 224 = 7 x 32 sets: every stride 7 x unit reaches at most a seventh of the sets, so no stride
// holds 7 x the size. The probe says so in the evidence and tries the next prime, 11, whose
// strides walk every set: the line comes back exact, under LRU and under random replacement
// (whose soft capacity edges lower the confidence, as at 7 on other random caches).
class L1LineOnSevenTimesSets : public ::testing::TestWithParam<std::string> {};

TEST_P(L1LineOnSevenTimesSets, TheNextPrimeGivesTheLine) {
  const SimTruth truth = read_truth(GetParam());
  const auto line = truth.cache("L1").at("line_bytes").get<std::uint64_t>();
  const ProbeRun run = run_on_sim(GetParam(), {"l1.size", "l1.sector", "l1.line"});
  EXPECT_EQ(property(run, "l1", "sector").value, 32);
  const Property& l = property(run, "l1", "line");
  ASSERT_FALSE(l.inconclusive) << l.note << "\n" << l.evidence.dump(1);
  EXPECT_EQ(l.value, line) << l.evidence.dump(1);
  EXPECT_EQ(l.evidence.at("prime"), 11);
  EXPECT_EQ(l.evidence.at("path"), "prime");
  const auto& tried = l.evidence.at("primes_tried");
  ASSERT_EQ(tried.size(), 1u);
  EXPECT_EQ(tried[0].at("prime"), 7);
  EXPECT_NE(tried[0].at("note").get<std::string>().find("prime divides"), std::string::npos);
  EXPECT_NE(l.note.find("11 x unit"), std::string::npos) << l.note;
  EXPECT_EQ(l.evidence.at("first_beyond_stride_bytes").get<std::uint64_t>(), 11 * line);
  ASSERT_TRUE(l.confidence.has_value());
  EXPECT_EQ(l.evidence.at("confidence_factors").at(0).at("rule"), "octave_closeness");
  EXPECT_GT(l.evidence.at("confidence_factors").at(0).at("value").get<double>(), 0.95);
}

INSTANTIATE_TEST_SUITE_P(Devices, L1LineOnSevenTimesSets,
                         ::testing::Values("tests/probes/sims/line-7x-sets.json",
                                           "tests/probes/sims/line-7x-sets-random.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

TEST(L1Line, SkippedWithoutAMeasuredSize) {
  const ProbeRun run = run_on_sim("sims/hopper-like.json", {"l1.sector", "l1.line"});
  ASSERT_EQ(run.skipped.count("l1.sector"), 1u);
  ASSERT_EQ(run.skipped.count("l1.line"), 1u);
  EXPECT_NE(run.skipped.at("l1.line").find("l1.size"), std::string::npos);
}

// Device time of concurrent batches: each batch lasts as long as its longest chase.
class CriticalPathBackend : public Backend {
 public:
  explicit CriticalPathBackend(Backend& inner) : inner_(inner) {}
  std::string_view kind() const override { return inner_.kind(); }
  const DeviceFacts& facts() const override { return inner_.facts(); }
  BackendLimits limits() const override { return inner_.limits(); }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    std::uint64_t longest = 0;
    for (const auto& spec : batch) longest = std::max(longest, loads_of(spec));
    critical_path += longest;
    return inner_.run(batch);
  }
  std::uint64_t critical_path = 0;

 private:
  Backend& inner_;
};

std::map<std::string, std::uint64_t> critical_paths(const std::string& sim) {
  auto backend = make_sim_backend_from_file(source_path(sim));
  CriticalPathBackend counting(*backend);
  Topology topology;
  topology.device = counting.facts();
  ProbeContext ctx{counting, topology, [](const std::string&) {}, [] { return false; }, 1, nullptr};
  std::map<std::string, std::uint64_t> out;
  for (const auto& probe : all_probes()) {
    const std::string id = probe->id();
    if (id != "l1.size" && id != "l1.sector" && id != "l1.line") continue;
    const std::uint64_t before = counting.critical_path;
    probe->run(ctx);
    out[id] = counting.critical_path - before;
  }
  return out;
}

TEST(L1Line, CostOnHopperLikeWithinHalfTheSizeSweep) {
  const ProbeRun size_only = run_on_sim("sims/hopper-like.json", {"l1.size"});
  const ProbeRun with_line =
      run_on_sim("sims/hopper-like.json", {"l1.size", "l1.sector", "l1.line"});
  const std::uint64_t size_loads = property(size_only, "l1", "size").evidence.at("loads");
  const auto& sector_cost = property(with_line, "l1", "sector").evidence.at("cost");
  const auto& line_cost = property(with_line, "l1", "line").evidence.at("cost");
  const std::uint64_t loads =
      sector_cost.at("loads").get<std::uint64_t>() + line_cost.at("loads").get<std::uint64_t>();
  const std::uint64_t batches =
      sector_cost.at("batches").get<std::uint64_t>() + line_cost.at("batches").get<std::uint64_t>();
  const std::uint64_t critical = sector_cost.at("critical_path_loads").get<std::uint64_t>() +
                                 line_cost.at("critical_path_loads").get<std::uint64_t>();
  std::cout << "[ line ] hopper-like: l1.size " << size_loads << " loads, " << size_only.batches
            << " batches; l1.sector + l1.line " << loads << " loads (critical path " << critical
            << "), " << batches << " batches\n";
  // The counting backend agrees with the probes' own bookkeeping.
  EXPECT_EQ(with_line.loads - size_only.loads, loads);
  EXPECT_EQ(with_line.batches - size_only.batches, batches);
  EXPECT_LE(2 * loads, size_loads);
  // Device time: batches run their chases concurrently, one per SM, so a batch lasts as long as
  // its longest chase; the sum of those must stay within half the size sweep's.
  const auto paths = critical_paths("sims/hopper-like.json");
  std::cout << "[ line ] hopper-like critical path: l1.size " << paths.at("l1.size")
            << " loads, l1.sector " << paths.at("l1.sector") << ", l1.line " << paths.at("l1.line")
            << "\n";
  EXPECT_EQ(paths.at("l1.sector") + paths.at("l1.line"), critical);
  EXPECT_LE(2 * critical, paths.at("l1.size"));
  EXPECT_LE(batches, size_only.batches + 2);
}

}  // namespace
}  // namespace memtopo::testing

namespace memtopo::testing {
namespace {

// One line probe, a row per cache: on the Kepler-like device the texture cache (32 B lines,
// unsectored) is apart from L1 (128 B / 32 B), and ld.global.nc is served by L1.
TEST(LineRows, TextureAndReadOnlyRowsFindTheirOwnCaches) {
  const std::string file = "tests/probes/sims/separate-tex.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run =
      run_on_sim(file, {"tex.size", "tex.sector", "tex.line", "ro.size", "ro.sector", "ro.line"});
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  const auto texture = truth.cache("Texture");
  const auto l1 = truth.cache("L1");
  const auto tex_line = texture.at("line_bytes").get<std::uint64_t>();
  EXPECT_EQ(property(run, "tex", "sector").value, texture.value("sector_bytes", tex_line));
  EXPECT_EQ(property(run, "tex", "line").value, tex_line)
      << property(run, "tex", "line").evidence.dump(1);
  EXPECT_EQ(property(run, "ro", "sector").value, l1.at("sector_bytes"));
  EXPECT_EQ(property(run, "ro", "line").value, l1.at("line_bytes"));
  EXPECT_EQ(property(run, "tex", "line").evidence.at("path"), "prime");
}

// The power-of-two path on a cache whose set index is a bit selection that skips address bit 7
// (the bit above the 128 B line offset): every other line spreads over all sets, so twice the
// line holds twice the size, and size / capacity there gives the line.
TEST(LineRows, PowerOfTwoStridesFindTheLineUnderANonContiguousBitIndex) {
  const std::string file = "tests/probes/sims/line-bits-skip-7.json";
  const auto l1 = read_truth(file).cache("L1");
  const ProbeRun run = run_on_sim(file, {"l1.size", "l1.sector", "l1.line"});
  const Property& line = property(run, "l1", "line");
  EXPECT_EQ(line.value, l1.at("line_bytes")) << line.evidence.dump(1);
  const auto& pow2 = line.evidence.at("power_of_two_path");
  EXPECT_EQ(pow2.at("line_bytes"), l1.at("line_bytes")) << pow2.dump(1);
  EXPECT_EQ(pow2.at("first_beyond_stride_bytes").get<std::uint64_t>(),
            2 * l1.at("line_bytes").get<std::uint64_t>());
  EXPECT_NEAR(pow2.at("raw_ratio_bytes").get<double>(), l1.at("line_bytes").get<double>(),
              0.05 * l1.at("line_bytes").get<double>());
}

// With 7 sets the prime strides reach one set only and say so; the power-of-two strides answer
// (an odd set count), so no further prime is chased, and the pairs of words in random blocks
// answer too: two methods of two agree.
TEST(LineRows, PairsAnswerWhereThePrimeDividesTheSets) {
  const std::string file = "tests/validation/sims/unequal-fifo-heavy.json";
  const auto l1 = read_truth(file).cache("L1");
  const ProbeRun run = run_on_sim(file, {"l1.size", "l1.sector", "l1.line"});
  const Property& line = property(run, "l1", "line");
  EXPECT_EQ(line.value, l1.at("line_bytes")) << line.evidence.dump(1);
  EXPECT_EQ(line.evidence.at("path"), "pairs");
  EXPECT_EQ(line.evidence.at("power_of_two_path").at("line_bytes"), l1.at("line_bytes"));
  EXPECT_FALSE(line.evidence.contains("primes_tried"));
  EXPECT_NE(line.note.find("prime"), std::string::npos) << line.note;
  bool both = false;
  for (const auto& f : line.evidence.at("confidence_factors")) {
    both |= f.at("rule") == "methods_agreeing" && f.at("value") == 1.0;
  }
  EXPECT_TRUE(both) << line.evidence.at("confidence_factors").dump(1);
}

// A hashed (XOR) set index: the prime strides find no line, and the pairs of words in random
// blocks (a and a XOR d) give it exactly, whatever the replacement or the set sizes, on the L1
// and on the texture path through it.
class PairsUnderAnXorIndex : public ::testing::TestWithParam<std::string> {};

TEST_P(PairsUnderAnXorIndex, GiveTheLine) {
  const auto l1 = read_truth(GetParam()).cache("L1");
  const ProbeRun run = run_on_sim(
      GetParam(), {"l1.size", "l1.sector", "l1.line", "tex.size", "tex.sector", "tex.line"});
  for (const std::string element : {"l1", "tex"}) {
    const Property& line = property(run, element, "line");
    EXPECT_EQ(line.value, l1.at("line_bytes")) << element << line.evidence.dump(1);
    EXPECT_EQ(line.evidence.at("path"), "pairs") << element;
    const auto& pairs = line.evidence.at("pairs");
    EXPECT_GT(pairs.at("split_miss_score").get<double>(),
              pairs.at("one_line_miss_score").get<double>());
    ASSERT_TRUE(line.confidence.has_value());
    // The pairs' own; the random replacement's soft size edge caps it (the runner's factor).
    EXPECT_GE(own_confidence(line), 0.8) << element;
  }
}

INSTANTIATE_TEST_SUITE_P(Sims, PairsUnderAnXorIndex,
                         ::testing::Values("tests/probes/sims/geometry-xor-lru.json",
                                           "tests/probes/sims/geometry-xor-random.json",
                                           "tests/probes/sims/geometry-xor-unequal.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

}  // namespace
}  // namespace memtopo::testing
