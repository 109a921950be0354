// Latencies of two modes end to end on simulated devices unlike the H200 (three L2 partitions,
// hits and misses of the far ones slower) and like it (a chase's own L2 hits near, its misses
// through the line's home partition): every mode with its share and spread, the headline the
// near mode with the near loads' spread, the mix apart, and the miss penalty's modes and typical
// value as the descriptions' sums.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kTwoModeIds = {"l1.size",      "l1.latency",      "l2.latency",
                                              "dram.latency", "l2.miss_penalty", "l1.miss_penalty"};

struct FarMemory {
  double l2_hit, l2_far_extra, dram, dram_far_extra, far_share;
};

FarMemory far_memory(const SimTruth& truth) {
  const nlohmann::json& l2 = truth.cache("L2");
  const double partitions = l2.at("partitions").get<double>();
  const bool hits_near = l2.value("partition_policy", std::string("home")) == "copy_on_read";
  return {l2.at("hit_latency").get<double>(),
          hits_near ? 0.0 : l2.at("far_latency_extra").get<double>(), truth.number("dram_latency"),
          l2.at("far_miss_latency_extra").get<double>(), (partitions - 1) / partitions};
}

// A latency of two modes as the description makes it: near and far values, shares near the
// partitions', the headline and its spread the near mode's, the mix every load's.
void expect_two_modes(const Property& p, double near, double far, double far_share,
                      double jitter) {
  ASSERT_EQ(p.modes.size(), 2u) << p.evidence.dump();
  EXPECT_EQ(p.modes[0].name, "near");
  EXPECT_EQ(p.modes[1].name, "far");
  EXPECT_NEAR(p.modes[0].value, near, jitter + 1);
  EXPECT_NEAR(p.modes[1].value, far, jitter + 1);
  EXPECT_NEAR(p.modes[1].share, far_share, 0.05);  // a hash spreads the lines evenly
  EXPECT_DOUBLE_EQ(p.value.get<double>(), p.modes[0].value);
  ASSERT_TRUE(p.spread && p.mix);
  EXPECT_EQ(p.spread->samples, p.modes[0].spread.samples);
  EXPECT_EQ(p.mix->samples, p.modes[0].spread.samples + p.modes[1].spread.samples);
  EXPECT_LE(p.spread->p95, near + jitter + 1) << "the headline's spread is the near loads'";
  // Clean modes: nothing in the gap, both in every part of the chase, jitter within the band.
  for (const Mode& mode : p.modes) {
    ASSERT_TRUE(mode.confidence.has_value());
    EXPECT_GT(*mode.confidence, 0.85) << mode.name;
    EXPECT_EQ(mode.confidence_factors.size(), 3u);
  }
  EXPECT_EQ(p.confidence, p.modes[0].confidence);
}

TEST(TwoModeLatency, ThreePartitionsGiveNearAndFarL2AndDram) {
  const std::string file = "tests/probes/sims/far-memory-3part-home.json";
  const SimTruth truth = read_truth(file);
  const FarMemory m = far_memory(truth);
  const ProbeRun run = run_on_sim(file, kTwoModeIds);
  for (const auto& [id, reason] : run.skipped) ADD_FAILURE() << id << " skipped: " << reason;
  expect_two_modes(property(run, "l2", "latency"), m.l2_hit, m.l2_hit + m.l2_far_extra,
                   m.far_share, truth.jitter());
  expect_two_modes(property(run, "dram", "latency"), m.dram, m.dram + m.dram_far_extra,
                   m.far_share, truth.jitter());
  // The penalty: near minus near, far minus far, and the typical one weighted by the shares.
  const Property& penalty = property(run, "l2", "miss_penalty");
  const double tolerance = 2 * truth.jitter() + 1;
  EXPECT_NEAR(penalty.value.get<double>(), m.dram - m.l2_hit, tolerance);
  ASSERT_EQ(penalty.modes.size(), 2u);
  EXPECT_NEAR(penalty.modes[1].value, m.dram + m.dram_far_extra - m.l2_hit - m.l2_far_extra,
              tolerance);
  const double typical =
      m.dram - m.l2_hit + m.far_share * (m.dram_far_extra - m.l2_far_extra);
  EXPECT_NEAR(penalty.evidence.at("typical").at("cycles").get<double>(), typical, tolerance + 5);
  EXPECT_NE(penalty.method.find("near minus near"), std::string::npos) << penalty.method;
  EXPECT_NE(penalty.note.find("typical miss"), std::string::npos) << penalty.note;
  // An L1 miss answered by a far partition costs the far extra too.
  const Property& l1_penalty = property(run, "l1", "miss_penalty");
  ASSERT_EQ(l1_penalty.modes.size(), 2u);
  EXPECT_NEAR(l1_penalty.modes[1].value - l1_penalty.modes[0].value, m.l2_far_extra, tolerance);
}

TEST(TwoModeLatency, OwnL2HitsNearAndMissesThroughTheHomePartition) {
  const std::string file = "tests/probes/sims/far-memory-2part-copy-on-read.json";
  const SimTruth truth = read_truth(file);
  const FarMemory m = far_memory(truth);
  const ProbeRun run = run_on_sim(file, kTwoModeIds);
  // As on an H200: the chase's own L2 hits answer at one latency ...
  const Property& l2 = property(run, "l2", "latency");
  EXPECT_TRUE(l2.modes.empty());
  EXPECT_NEAR(l2.value.get<double>(), m.l2_hit, truth.jitter() + 1);
  // ... and its cold misses at two.
  expect_two_modes(property(run, "dram", "latency"), m.dram, m.dram + m.dram_far_extra,
                   m.far_share, truth.jitter());
  const Property& penalty = property(run, "l2", "miss_penalty");
  ASSERT_EQ(penalty.modes.size(), 2u);
  EXPECT_NEAR(penalty.modes[0].value, m.dram - m.l2_hit, 2 * truth.jitter() + 1);
  EXPECT_NEAR(penalty.modes[1].value, m.dram + m.dram_far_extra - m.l2_hit,
              2 * truth.jitter() + 1);
  EXPECT_NEAR(penalty.modes[1].share, m.far_share, 0.05);
}

}  // namespace
}  // namespace memtopo::testing
