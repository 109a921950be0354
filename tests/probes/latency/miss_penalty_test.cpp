// <element>.miss_penalty end to end on simulated devices: the next level's latency minus the
// element's, as the description configures them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "probes/latency/miss_penalty_probe.hpp"

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// separate-tex: one L2 partition, so L2 answers at one latency; texture cache apart from L1.
TEST(MissPenalty, NextLevelMinusHitLatencyForEveryRow) {
  const std::string file = "tests/probes/sims/separate-tex.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run =
      run_on_sim(file, {"l1.size", "tex.size", "ro.size", "l1.latency", "tex.latency", "ro.latency",
                        "l2.latency", "dram.latency", "l1.miss_penalty", "tex.miss_penalty",
                        "ro.miss_penalty", "l2.miss_penalty"});
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  const double l2 = truth.cache("L2").at("hit_latency").get<double>();
  const double l1 = truth.cache("L1").at("hit_latency").get<double>();
  const double tex = truth.cache("Texture").at("hit_latency").get<double>();
  const double dram = truth.number("dram_latency");
  // Both latencies carry the jitter (and DRAM's the TLB's first misses): two jitters apart.
  const double tolerance = 2 * truth.jitter() + 1;
  EXPECT_NEAR(property(run, "l1", "miss_penalty").value.get<double>(), l2 - l1, tolerance);
  EXPECT_NEAR(property(run, "ro", "miss_penalty").value.get<double>(), l2 - l1, tolerance);
  EXPECT_NEAR(property(run, "tex", "miss_penalty").value.get<double>(), l2 - tex, tolerance);
  EXPECT_NEAR(property(run, "l2", "miss_penalty").value.get<double>(), dram - l2, tolerance);
  const Property& p = property(run, "l1", "miss_penalty");
  EXPECT_EQ(p.source, Source::derived);
  EXPECT_EQ(p.unit, "cycles");
  ASSERT_TRUE(p.spread.has_value());
  EXPECT_LE(p.spread->p5, p.spread->p50);
  EXPECT_GE(p.spread->p95, p.spread->p50);
  EXPECT_EQ(p.evidence.at("hit").at("property"), "l1.latency");
  EXPECT_EQ(p.evidence.at("next_level").at("property"), "l2.latency");
  // Confidence: the smaller of the two latencies', the runner's `inherited` factor (nothing of
  // the probe's own against it).
  const double hit_conf = property(run, "l1", "latency").confidence.value_or(1);
  const double next_conf = property(run, "l2", "latency").confidence.value_or(1);
  EXPECT_DOUBLE_EQ(*p.confidence, std::min(hit_conf, next_conf));
  EXPECT_TRUE(own_factors(p).empty()) << p.evidence.dump();
  const auto& factors = p.evidence.at("confidence_factors");
  if (*p.confidence < 1) {
    ASSERT_EQ(factors.size(), 1u);
    EXPECT_EQ(factors[0].at("rule"), "inherited");
  }
}

TEST(MissPenalty, SkippedWithoutTheLatencies) {
  // no-l1-ca: L1 does not cache global loads, so l1.latency is skipped, and so is the penalty.
  const ProbeRun run = run_on_sim("tests/probes/sims/no-l1-ca.json", {"l1.miss_penalty"});
  ASSERT_EQ(run.skipped.count("l1.miss_penalty"), 1u);
  EXPECT_NE(run.skipped.at("l1.miss_penalty").find("l1.latency"), std::string::npos);
}

TEST(MissPenalty, DifferenceSpreadPairsTheEnds) {
  Spread next{.p50 = 260,
              .mean = 261,
              .stdev = 3,
              .p5 = 255,
              .p95 = 266,
              .min = 250,
              .max = 300,
              .samples = 4096};
  Spread hit{.p50 = 33,
             .mean = 33.5,
             .stdev = 4,
             .p5 = 30,
             .p95 = 36,
             .min = 29,
             .max = 60,
             .samples = 8192};
  const Spread d = difference_spread(next, hit);
  EXPECT_DOUBLE_EQ(d.p50, 227);
  EXPECT_DOUBLE_EQ(d.mean, 227.5);
  EXPECT_DOUBLE_EQ(d.stdev, 5);
  EXPECT_DOUBLE_EQ(d.p5, 255 - 36);
  EXPECT_DOUBLE_EQ(d.p95, 266 - 30);
  EXPECT_DOUBLE_EQ(d.min, 250 - 60);
  EXPECT_DOUBLE_EQ(d.max, 300 - 29);
  EXPECT_EQ(d.samples, 4096u);
}

}  // namespace
}  // namespace memtopo::testing
