// Latency probes end to end on simulated devices: the configured latencies, within the
// description's jitter (uniform in +-jitter_cycles on every record and on the overhead samples).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

void expect_latency(const ProbeRun& run, const std::string& element, double configured,
                    double jitter) {
  SCOPED_TRACE(element + ".latency");
  const Property& p = property(run, element, "latency");
  ASSERT_TRUE(p.value.is_number());
  EXPECT_NEAR(p.value.get<double>(), configured, jitter);
  EXPECT_EQ(p.unit, "cycles");
  ASSERT_TRUE(p.spread && p.raw && p.seconds_value && p.confidence);
  EXPECT_DOUBLE_EQ(p.spread->p50, p.value.get<double>());
  // Raw and corrected differ by the overhead the traces measured.
  EXPECT_NEAR(p.raw->p50 - p.spread->p50, p.evidence.at("overhead_cycles").get<double>(), 1.0);
  EXPECT_GE(p.spread->samples, 1024u);
  const double clock_hz = p.evidence.at("clock_khz").get<double>() * 1e3;
  EXPECT_DOUBLE_EQ(*p.seconds_value, p.spread->p50 / clock_hz);
  // The confidence is the share_within rule's (analysis/confidence.hpp), its factor in the
  // evidence (then capped by the size its footprint was planned from, core/inheritance.hpp).
  const auto factors = own_factors(p);
  ASSERT_EQ(factors.size(), 1u);
  EXPECT_EQ(factors[0].at("rule"), "share_within");
  EXPECT_LE(*p.confidence, factors[0].at("value").get<double>());
}

// The least confidence (share of loads within 10 % of the p50) a latency of `configured` cycles
// can honestly have under uniform integer jitter of +-jitter: the p50 may sit a cycle off the
// centre, and then the band can leave out an edge value. Outliers may cost 2 % more.
double confidence_floor(double configured, double jitter) {
  const int j = static_cast<int>(jitter);
  double worst = 1.0;
  for (int offset = -1; offset <= 1; ++offset) {
    const double p50 = configured + offset;
    int inside = 0;
    for (int k = -j; k <= j; ++k) inside += std::abs(configured + k - p50) <= 0.1 * p50;
    worst = std::min(worst, static_cast<double>(inside) / (2 * j + 1));
  }
  return worst - 0.02;
}

class LatencyOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(LatencyOnSim, L1SharedAndDramAsConfigured) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(
      GetParam(), {"l1.size", "l1.latency", "shared.latency", "l2.latency", "dram.latency"});
  ASSERT_TRUE(run.skipped.empty()) << run.skipped.begin()->second;
  expect_latency(run, "l1", truth.cache("L1").at("hit_latency"), truth.jitter());
  expect_latency(run, "shared", truth.description.at("shared_memory").at("latency"),
                 truth.jitter());
  expect_latency(run, "dram", truth.number("dram_latency"), truth.jitter());
  // One number describes an L1 hit and a DRAM access: only jitter spreads them.
  EXPECT_GE(*property(run, "l1", "latency").confidence,
            confidence_floor(truth.cache("L1").at("hit_latency"), truth.jitter()));
  EXPECT_GE(*property(run, "dram", "latency").confidence,
            confidence_floor(truth.number("dram_latency"), truth.jitter()));
  // DRAM was measured cold: no warm pass, caches flushed, no two loads in one line.
  const auto& dram = property(run, "dram", "latency").evidence;
  EXPECT_EQ(dram.at("warm_passes"), 0);
  EXPECT_EQ(dram.at("flushed"), true);
  EXPECT_GE(dram.at("stride_bytes").get<int>(), 1024);
}

INSTANTIATE_TEST_SUITE_P(Devices, LatencyOnSim,
                         ::testing::Values("sims/hopper-like.json", "tests/sims/l1-227k.json",
                                           "tests/sims/l1-96k.json", "tests/sims/l1-24k.json",
                                           "tests/sims/tiny.json",
                                           "tests/probes/sims/l1-176k-outliers.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

TEST(L2Latency, OnePartitionGivesTheHitLatency) {
  const std::string file = "tests/probes/sims/l1-176k-clean.json";
  const SimTruth truth = read_truth(file);
  const ProbeRun run = run_on_sim(file, {"l1.size", "l2.latency"});
  expect_latency(run, "l2", truth.cache("L2").at("hit_latency"), truth.jitter());
  // The footprint lies beyond the measured L1 and well inside the L2.
  const auto footprint =
      property(run, "l2", "latency").evidence.at("footprint_bytes").get<double>();
  EXPECT_GT(footprint, property(run, "l1", "size").value.get<double>());
  EXPECT_LE(footprint, truth.cache("L2").at("size_bytes").get<double>() / 4);
  EXPECT_EQ(property(run, "l2", "latency").evidence.at("chases").size(), 1u);  // alone
}

// Issue 15: on the Hopper-like sim about half of one chase's loads come from the far partition;
// the median of the mix flipped between near and far with the seed (seed 5 gave 439 cycles for
// a near hit of 261). The headline is the near mode at every seed, the far mode in the evidence.
TEST(L2Latency, TheHeadlineIsTheNearModeAtEverySeed) {
  const std::string file = "sims/hopper-like.json";
  const SimTruth truth = read_truth(file);
  const double near = truth.cache("L2").at("hit_latency");
  const double far = near + truth.cache("L2").at("far_latency_extra").get<double>();
  for (const std::uint64_t seed : {1, 5, 7}) {
    SCOPED_TRACE(seed);
    const ProbeRun run = run_on_sim(file, {"l2.latency"}, seed);
    const Property& p = property(run, "l2", "latency");
    // Overhead correction may be off by the jitter.
    EXPECT_NEAR(p.value.get<double>(), near, 2 * truth.jitter());
    EXPECT_NEAR(p.spread->p95, near, 2 * truth.jitter());
    EXPECT_TRUE(p.evidence.at("mode_split").at("bimodal").get<bool>());
    ASSERT_EQ(p.modes.size(), 2u);
    EXPECT_EQ(p.modes[0].name, "near");
    EXPECT_DOUBLE_EQ(p.modes[0].value, p.value.get<double>());
    EXPECT_EQ(p.modes[1].name, "far");
    EXPECT_NEAR(p.modes[1].value, far, 2 * truth.jitter());
    EXPECT_GT(p.modes[1].share, 0.2);
    EXPECT_NEAR(p.modes[0].share + p.modes[1].share, 1.0, 1e-12);
    // The headline's spread describes the near loads, the mix every load.
    EXPECT_EQ(p.spread->samples, p.modes[0].spread.samples);
    ASSERT_TRUE(p.mix.has_value());
    EXPECT_EQ(p.mix->samples, p.evidence.at("samples").get<std::size_t>());
    // The near mode's confidence: an empty gap, its loads within the band, and every part of
    // the chase showing it.
    EXPECT_GT(*p.confidence, 0.8);
    EXPECT_EQ(p.confidence, p.modes[0].confidence);
    std::vector<std::string> rules;
    for (const auto& f : p.evidence.at("confidence_factors")) rules.push_back(f.at("rule"));
    EXPECT_EQ(rules, (std::vector<std::string>{"mode_separation", "share_within", "agreement"}));
    EXPECT_NE(p.note.find("near mode"), std::string::npos) << p.note;
  }
}

// One partition only: no split, the p50 of every load, as before.
TEST(L2Latency, AUnifiedL2KeepsThePlainMedian) {
  const ProbeRun run = run_on_sim("tests/probes/sims/geometry-l2-8way-fifo.json", {"l2.latency"});
  const Property& p = property(run, "l2", "latency");
  EXPECT_FALSE(p.evidence.at("mode_split").at("bimodal").get<bool>());
  EXPECT_TRUE(p.modes.empty());
  EXPECT_FALSE(p.mix.has_value());
  EXPECT_EQ(p.spread->samples, p.evidence.at("samples").get<std::size_t>());
}

TEST(L1Latency, UsesTheMeasuredSizeAndSeveralSms) {
  const ProbeRun run = run_on_sim("tests/sims/l1-96k.json", {"l1.size", "l1.latency"});
  const Property& p = property(run, "l1", "latency");
  EXPECT_EQ(p.evidence.at("footprint_bytes").get<double>(),
            property(run, "l1", "size").value.get<double>() / 4);
  std::set<int> sms;
  for (const auto& chase : p.evidence.at("chases")) sms.insert(chase.at("sm").get<int>());
  EXPECT_GT(sms.size(), 1u);
  // The reference chase that proves L1 caches ca ran via cg and was clearly slower.
  EXPECT_EQ(p.evidence.at("reference").at("path"), "cg");
}

}  // namespace
}  // namespace memtopo::testing
