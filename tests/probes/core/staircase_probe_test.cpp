// Staircase probes end to end on simulated devices: constant L1 and L1.5, L2 size, TLB reach
// and miss penalty, DRAM latency with TLB misses. Every expectation comes from the description
// file. (l2.partitions: tests/probes/l2/l2_partitions_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// The probes of this file, with the L1 ones the L2 sweep is planned from (start beyond the
// measured L1, stride of the measured line).
const std::vector<std::string> kStaircaseIds = {"l1.size",          "l1.sector", "l1.line",
                                                "constant_l1.size", "l2.size",   "tlb_l1.reach"};

double number(const Property& p) {
  return p.value.get<double>();
}

// The rules a finding's confidence was computed by, in order (its evidence.confidence_factors),
// the probe's own: not the runner's `inherited` factor for the findings its plan read.
std::vector<std::string> rules_of(const Property& p) {
  std::vector<std::string> rules;
  for (const auto& factor : own_factors(p)) {
    rules.push_back(factor.at("rule").get<std::string>());
  }
  return rules;
}

// A size or reach from a refined step is as sure as the staircase's step times the section
// search's edge: two edge factors, both in the evidence (and then no surer than the findings its
// plan read, core/inheritance.hpp).
void expect_refined_step_confidence(const Property& p) {
  EXPECT_EQ(rules_of(p), (std::vector<std::string>{"edge", "edge"}));
  EXPECT_DOUBLE_EQ(own_confidence(p), p.evidence.at("step_confidence").get<double>() *
                                          p.evidence.at("edge_confidence").get<double>());
}

// The constant caches of the description, in lookup order.
const nlohmann::json& constant_cache(const SimTruth& truth, int level) {
  return truth.cache(level == 0 ? "constant L1" : "constant L1.5");
}

void expect_l2_size(const ProbeRun& run, const SimTruth& truth) {
  const Property& size = property(run, "l2", "size");
  ASSERT_TRUE(size.value.is_number()) << size.note;
  const double l2 = truth.cache("L2").at("size_bytes").get<double>();
  // Tolerance: the refined bracket [largest fit, first miss], which holds the true size. With
  // every element timed twice it is one stride (the L1 line); a footprint just past 8192 lines
  // is timed once only (16384 timed loads at most), and then the section stops at what the
  // outlier allowance can resolve, a few lines: at most 4.
  const double bracket = size.evidence.at("first_miss_bytes").get<double>() -
                         size.evidence.at("edge_bytes").get<double>();
  EXPECT_LE(number(size), l2);
  EXPECT_LT(l2, number(size) + bracket);
  EXPECT_LE(bracket, 4 * truth.cache("L1").at("line_bytes").get<double>());
  EXPECT_GT(own_confidence(size), 0.9);  // the staircase's own; l1.line's caps it
  // The step refined on three placements of the chain: on a cache without a hash over physical
  // pages each finds the same edge, so the spread is nil and their agreement costs nothing.
  const auto& placements = size.evidence.at("placements");
  ASSERT_EQ(placements.size(), 3u);
  EXPECT_EQ(placements[0].at("offset_bytes").get<double>(), 0);
  for (const auto& placement : placements) {
    EXPECT_EQ(placement.at("edge_bytes").get<double>(), number(size));
  }
  EXPECT_LT(placements[0].at("offset_bytes").get<double>(),
            placements[1].at("offset_bytes").get<double>());
  ASSERT_TRUE(size.spread);
  EXPECT_EQ(size.spread->samples, 3u);
  EXPECT_EQ(size.spread->p5, number(size));
  EXPECT_EQ(size.spread->p95, number(size));
  EXPECT_EQ(rules_of(size), (std::vector<std::string>{"edge", "edge", "capacity_agreement"}));
  EXPECT_DOUBLE_EQ(own_confidence(size), size.evidence.at("step_confidence").get<double>() *
                                             size.evidence.at("edge_confidence").get<double>());
  EXPECT_EQ(size.evidence.at("api_l2_bytes").get<double>(), l2);
  EXPECT_EQ(run.topology.find("l2")->find("segment_size"), nullptr);  // no step inside L2
}

class StaircaseOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(StaircaseOnSim, L2SizeWithinALine) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), kStaircaseIds);
  expect_l2_size(run, truth);
}

TEST_P(StaircaseOnSim, ConstantCachesSizeAndLatency) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), {"constant_l1.size"});
  const char* elements[] = {"constant_l1", "constant_l15"};
  for (int level = 0; level < 2; ++level) {
    SCOPED_TRACE(elements[level]);
    const auto& cache = constant_cache(truth, level);
    const Property& latency = property(run, elements[level], "latency");
    EXPECT_NEAR(number(latency), cache.at("hit_latency").get<double>(), truth.jitter());
    const Property& size = property(run, elements[level], "size");
    const double configured = cache.at("size_bytes").get<double>();
    if (configured < 65536) {  // the constant bank of a simulated device
      ASSERT_TRUE(size.value.is_number());
      EXPECT_FALSE(size.inconclusive);
      EXPECT_EQ(number(size), configured);
      EXPECT_GT(own_confidence(size), 0.9);
      expect_refined_step_confidence(size);
    } else {
      // Larger than the bank: a lower bound, never a size.
      EXPECT_TRUE(size.inconclusive);
      EXPECT_EQ(number(size), 65536);
      EXPECT_NE(size.note.find("lower bound: the constant bank (64 KiB) caps the footprint"),
                std::string::npos);
      EXPECT_EQ(size.evidence.at("bound"), "lower");
      EXPECT_FALSE(size.confidence.has_value());  // a bound carries no confidence
    }
    EXPECT_EQ(rules_of(latency), std::vector<std::string>{"share_within"});
  }
}

TEST_P(StaircaseOnSim, TlbReachMissPenaltyAndDramWithTlbMisses) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), {"tlb_l1.reach"});
  const auto& tlbs = truth.description.at("tlbs");
  const char* elements[] = {"tlb_l1", "tlb_l2"};
  double all_extras = 0;
  for (std::size_t k = 0; k < tlbs.size(); ++k) {
    SCOPED_TRACE(elements[k]);
    const auto& tlb = tlbs[k];
    const double reach = tlb.at("entries").get<double>() * tlb.at("page_bytes").get<double>();
    const Property& measured = property(run, elements[k], "reach");
    ASSERT_TRUE(measured.value.is_number()) << measured.note;
    EXPECT_EQ(number(measured), reach);
    // reach = entries x page: as sure as the scan of sets (the refined step times the share of
    // chain lengths the sets explain) and the page test.
    EXPECT_EQ(rules_of(measured),
              (std::vector<std::string>{"edge", "edge", "agreement", "inherited"}));
    const Property& entries = property(run, elements[k], "entries");
    const Property& page = property(run, elements[k], "page");
    EXPECT_DOUBLE_EQ(*measured.confidence, *entries.confidence * *page.confidence);
    EXPECT_GT(*measured.confidence, 0.85);
    // The penalty is a difference of two plateau means: jitter cancels to well under a cycle;
    // rare outliers (2e-4 at +300) add a little on either side.
    const double extra = tlb.at("miss_latency_extra").get<double>();
    const Property& penalty = property(run, elements[k], "miss_penalty");
    EXPECT_NEAR(number(penalty), extra, 1.5);
    // As sure as the staircase's step, which the reach's evidence holds too.
    EXPECT_EQ(rules_of(penalty), std::vector<std::string>{"edge"});
    EXPECT_DOUBLE_EQ(*penalty.confidence, measured.evidence.at("step_confidence").get<double>());
    all_extras += extra;
  }
  const Property& page = property(run, "tlb_l1", "page");
  EXPECT_EQ(number(page), tlbs[0].at("page_bytes").get<double>());
  EXPECT_FALSE(page.inconclusive);
  // A cold chase with a new page and a new line at every load: DRAM plus every TLB level's miss.
  const Property& dram = property(run, "dram", "latency_tlb_miss");
  EXPECT_NEAR(number(dram), truth.number("dram_latency") + all_extras, truth.jitter());
  // One mode (the sim has no far memory): the share of its loads within 10 % of the p50.
  EXPECT_EQ(rules_of(dram), std::vector<std::string>{"share_within"});
}

INSTANTIATE_TEST_SUITE_P(Sims, StaircaseOnSim,
                         ::testing::Values("tests/probes/sims/staircase-2part.json",
                                           "tests/probes/sims/staircase-1part-l15-128k.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

TEST(StaircaseOutliers, OnePerMilleAt400CyclesDoesNotMoveTheL2Size) {
  const std::string path = "tests/probes/sims/staircase-outliers.json";
  const SimTruth truth = read_truth(path);
  ASSERT_DOUBLE_EQ(truth.description.at("noise").at("outlier_probability").get<double>(), 0.001);
  const ProbeRun run = run_on_sim(path, kStaircaseIds);
  expect_l2_size(run, truth);
  // The same device without outliers (same caches) gives the same size.
  const ProbeRun clean = run_on_sim("tests/probes/sims/staircase-2part.json", kStaircaseIds);
  EXPECT_EQ(number(property(run, "l2", "size")), number(property(clean, "l2", "size")));
}

TEST(StaircaseOnHopperLike, TlbLevelsAndConstantCaches) {
  const SimTruth truth = read_truth("sims/hopper-like.json");
  const ProbeRun run = run_on_sim("sims/hopper-like.json", {"constant_l1.size", "tlb_l1.reach"});
  EXPECT_EQ(number(property(run, "constant_l1", "size")),
            truth.cache("constant L1").at("size_bytes").get<double>());
  EXPECT_EQ(number(property(run, "constant_l15", "size")),
            truth.cache("constant L1.5").at("size_bytes").get<double>());
  const auto& tlbs = truth.description.at("tlbs");
  EXPECT_EQ(number(property(run, "tlb_l1", "reach")),
            tlbs[0].at("entries").get<double>() * tlbs[0].at("page_bytes").get<double>());
  EXPECT_EQ(number(property(run, "tlb_l2", "reach")),
            tlbs[1].at("entries").get<double>() * tlbs[1].at("page_bytes").get<double>());
  std::cout << "[ staircase ] hopper-like constant + TLB: " << run.seconds << " s, " << run.loads
            << " loads\n";
}

}  // namespace
}  // namespace memtopo::testing
