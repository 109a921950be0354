// The scoring rules on made-up findings, and the ground truth read from small descriptions:
// what counts as right, unsure and wrong, and what fails the suite.
#include <gtest/gtest.h>

#include "support/ground_truth.hpp"
#include "support/scoring.hpp"

namespace memtopo::validation {
namespace {

Property measured(nlohmann::json value, double confidence) {
  Property p;
  p.value = std::move(value);
  p.confidence = confidence;
  return p;
}

TEST(Scoring, AValueWithinItsToleranceAndConfidentIsRight) {
  const Fact size = within_fact("l1", "size", 16384, 128, "1 line");
  const Property p = measured(16384 + 128, 0.9);
  const Score s = score(size, &p);
  EXPECT_EQ(s.verdict, Verdict::right);
  EXPECT_FALSE(s.fails);
}

TEST(Scoring, AConfidentWrongValueFailsAndAnUnsureOneDoesNot) {
  const Fact line = exact_fact("l1", "line", 128);
  const Property confident = measured(64, 0.5);
  EXPECT_EQ(score(line, &confident).verdict, Verdict::wrong);
  EXPECT_TRUE(score(line, &confident).fails);
  const Property unsure = measured(64, 0.49);
  EXPECT_EQ(score(line, &unsure).verdict, Verdict::unsure);
  EXPECT_FALSE(score(line, &unsure).fails);
}

TEST(Scoring, ARightValueBelowHalfConfidenceIsUnsure) {
  const Property p = measured(128, 0.3);
  EXPECT_EQ(score(exact_fact("l2", "line", 128), &p).verdict, Verdict::unsure);
}

TEST(Scoring, ABoundIsUnsureWhenTrueAndFailsWhenItExcludesTheTruth) {
  const Fact reach = exact_fact("tlb_l1", "reach", 32.0 * (1 << 20));
  Property lower = measured(16.0 * (1 << 20), 0.9);
  lower.inconclusive = true;
  lower.bound = Bound::lower;
  EXPECT_EQ(score(reach, &lower).verdict, Verdict::unsure);
  EXPECT_FALSE(score(reach, &lower).fails);
  lower.value = 504.0 * (1 << 20);  // "> 504 MiB" where the reach is 32 MiB
  EXPECT_EQ(score(reach, &lower).verdict, Verdict::wrong);
  EXPECT_TRUE(score(reach, &lower).fails);
  Property upper = lower;
  upper.bound = Bound::upper;
  upper.value = 4096;  // "< 4 KiB" where the truth is 32 MiB
  EXPECT_TRUE(score(reach, &upper).fails);
}

TEST(Scoring, AnAbsentElementIsRightWhenNotReportedAndWrongWhenClaimed) {
  const Fact none = absent_fact("tlb_l3", "reach", "two levels");
  EXPECT_EQ(score(none, nullptr).verdict, Verdict::right);
  const Property claimed = measured(1 << 30, 0.8);
  EXPECT_TRUE(score(none, &claimed).fails);
  Property bound = claimed;
  bound.bound = Bound::lower;
  EXPECT_EQ(score(none, &bound).verdict, Verdict::unsure);
}

TEST(Scoring, AHiddenFactIsOnlyHonestWhenUnsure) {
  const Fact policy = hidden_fact("l1", "policy", "lru", "one way");
  const Property guess = measured("lru", 0.98);
  EXPECT_TRUE(score(policy, &guess).fails);
  Property says_so;
  says_so.inconclusive = true;
  EXPECT_EQ(score(policy, &says_so).verdict, Verdict::unsure);
  EXPECT_FALSE(score(policy, &says_so).fails);
}

TEST(Scoring, NotReportedAndApiValuesAreUnsure) {
  const Fact size = relative_fact("l2", "size", 1 << 20, kDeviceSizeFraction);
  EXPECT_EQ(score(size, nullptr, "skipped: no sweep").verdict, Verdict::unsure);
  EXPECT_EQ(score(size, nullptr, "skipped: no sweep").why, "skipped: no sweep");
  Property api;
  api.value = 1 << 20;
  api.source = Source::api;
  EXPECT_EQ(score(size, &api).verdict, Verdict::unsure);
}

TEST(Scoring, LatenciesAllowTwoCyclesOrThreePercent) {
  EXPECT_TRUE(latency_matches(30, 28));
  EXPECT_FALSE(latency_matches(31, 28));
  EXPECT_TRUE(latency_matches(609, 600));
  EXPECT_FALSE(latency_matches(619, 600));
}

const char* const kTwoLevelDevice = R"({
  "name": "t", "sm_count": 4, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
  "dram_latency": 400,
  "caches": [
    { "name": "L1", "scope": "sm", "size_bytes": 16384, "line_bytes": 128, "sector_bytes": 32,
      "ways": 4, "hit_latency": 30, "paths": ["ca", "nc", "tex"] },
    { "name": "L2", "scope": "device", "partitions": 2, "far_latency_extra": 100,
      "size_bytes": 1048576, "line_bytes": 128, "ways": 8, "hit_latency": 200,
      "paths": ["ca", "cg", "nc", "tex", "const"] } ],
  "tlbs": [ { "name": "L1 TLB", "entries": 16, "ways": 0, "page_bytes": 2097152,
              "miss_latency_extra": 20 },
            { "name": "L2 TLB", "entries": 65, "ways": [17, 8, 8, 8, 8, 8, 8],
              "page_bytes": 2097152, "miss_latency_extra": 80 } ],
  "shared_memory": { "bytes_per_sm": 49152, "banks": 32, "bank_width_bytes": 8, "latency": 24 }
})";

const Fact& fact_named(const std::vector<Fact>& facts, const std::string& id) {
  for (const Fact& f : facts) {
    if (f.element + "." + f.property == id) return f;
  }
  throw std::runtime_error("no fact " + id);
}

TEST(GroundTruth, ReadsEveryElementOfADescription) {
  const auto facts = facts_of(nlohmann::json::parse(kTwoLevelDevice));
  EXPECT_EQ(fact_named(facts, "l1.sets").truth, 32);
  EXPECT_EQ(fact_named(facts, "l1.set_bits").truth, nlohmann::json({7, 8, 9, 10, 11}));
  EXPECT_EQ(fact_named(facts, "tex.shared_with").truth, nlohmann::json({"l1", "ro"}));
  EXPECT_EQ(fact_named(facts, "l1.miss_penalty").truth, 170.0);
  EXPECT_EQ(fact_named(facts, "l2.far_latency").truth, 300.0);
  EXPECT_EQ(fact_named(facts, "l2.partition_map").reveal, Reveal::hidden);
  EXPECT_EQ(fact_named(facts, "l2.sector").truth, 128);
  EXPECT_EQ(fact_named(facts, "tlb_l1.ways").truth, 16);
  EXPECT_EQ(fact_named(facts, "tlb_l2.ways").truth, nlohmann::json({17, 8, 8, 8, 8, 8, 8}));
  EXPECT_EQ(fact_named(facts, "tlb_l2.sets").truth, 7);
  EXPECT_EQ(fact_named(facts, "tlb_l2.reach").truth, 65.0 * 2097152);
  EXPECT_EQ(fact_named(facts, "tlb_l3.reach").reveal, Reveal::absent);
  EXPECT_EQ(fact_named(facts, "dram.latency_tlb_miss").truth, 500.0);
  EXPECT_EQ(fact_named(facts, "constant_l1.size").reveal, Reveal::absent);
  EXPECT_EQ(fact_named(facts, "shared.bank_width").truth, 8);
  EXPECT_TRUE(fact_named(facts, "l1.carveout").matches(
      nlohmann::json::array({{{"reserved_shared_bytes", 0}, {"l1_bytes", 16384}},
                             {{"reserved_shared_bytes", 49152}, {"l1_bytes", 16384}}})));
}

TEST(GroundTruth, ALatencyPatternRowIsItsLabelsLatency) {
  const auto facts = facts_of(nlohmann::json::parse(kTwoLevelDevice));
  const Fact& patterns = fact_named(facts, "dram.latency_patterns");
  const auto row = [](const char* data, nlohmann::json tlb, double cycles) {
    return nlohmann::json{{"reachable", true}, {"data", data}, {"tlb", tlb}, {"cycles", cycles}};
  };
  EXPECT_TRUE(patterns.matches(nlohmann::json::array(
      {row("l1", {"hit", "-"}, 30), row("l2", {"miss", "hit"}, 220), row("dram", {"miss", "miss"}, 500)})));
  EXPECT_FALSE(patterns.matches(nlohmann::json::array({row("l2", {"miss", "miss"}, 220)})));
}

}  // namespace
}  // namespace memtopo::validation
