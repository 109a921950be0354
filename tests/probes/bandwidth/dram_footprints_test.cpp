// DRAM's bandwidth where no cache can serve it (probes/bandwidth/dram_footprints): the sweep's
// footprints, the agreement of the largest, and end to end on simulated devices whose L2 keeps
// lines against a looping stream, whose API peak is below the modelled rate, and whose largest
// footprints still disagree. Ground truth is read from the description files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/sim/throughput.hpp"
#include "probes/bandwidth/dram_footprints.hpp"
#include "support/probe_harness.hpp"
#include "support/stream_launches.hpp"

namespace memtopo::testing {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

StreamMeasurement launches(std::vector<double> rates, std::uint64_t footprint = kGiB) {
  return measured_launches(std::move(rates), footprint);
}

TEST(DramFootprints, TheLargestIsAtLeast8GiBAnd128L2sAndTheOthersHalveDownFromIt) {
  // An H200: the search over 16 API L2s (960 MiB), 70 GB per array free.
  EXPECT_EQ(dram_sweep_footprints(960 * kMiB, 60 * kMiB, 70'000'000'000),
            (std::vector<std::uint64_t>{8 * kGiB, 4 * kGiB, 2 * kGiB}));
  // A 126 MiB L2 (a Blackwell-class size): 128 L2s, beyond 8 GiB.
  EXPECT_EQ(dram_sweep_footprints(16 * 126 * kMiB, 126 * kMiB, 180 * kGiB).front(),
            128 * 126 * kMiB);
  // The memory caps it; halves stay above sqrt(2) x the search's footprint.
  EXPECT_EQ(dram_sweep_footprints(16 * kMiB, kMiB, kGiB),
            (std::vector<std::uint64_t>{kGiB, 512 * kMiB, 256 * kMiB}));
  EXPECT_EQ(dram_sweep_footprints(kGiB, 64 * kMiB, 4 * kGiB),
            (std::vector<std::uint64_t>{4 * kGiB, 2 * kGiB}));
  EXPECT_TRUE(dram_sweep_footprints(kGiB, 64 * kMiB, kGiB).empty());
}

TEST(DramFootprints, RatesAgreeWithinTheLaunchesScatterOrOnePerCent) {
  const StreamMeasurement tight = launches({100.0, 100.1, 100.0, 99.9, 100.0});
  const StreamMeasurement higher = launches({101.5, 101.6, 101.5, 101.4, 101.5});
  const double scatter = pooled_launch_stdev({&tight, &higher});
  EXPECT_NEAR(scatter, std::sqrt(0.04 / 8), 1e-9);  // 2 x (0.01 + 0.01) over 10 - 2
  EXPECT_TRUE(rates_agree(tight, launches({100.2, 100.25, 100.2, 100.3, 100.2}), 0.003, scatter));
  EXPECT_FALSE(rates_agree(tight, higher, 0.003, scatter));
  // An H200's 8 and 4 GiB: +0.37 % with launches 0.07 % apart, far beyond their scatter but
  // within 1 %, what the finding means.
  EXPECT_TRUE(rates_agree(tight, launches({100.37, 100.4, 100.37, 100.35, 100.37}), 0.003, 0.07));
  // Launches that scatter by 1.5 % (the search footprint's showed it) cannot tell 1.5 % apart.
  EXPECT_TRUE(rates_agree(tight, higher, 0.003, 1.5));
  // The largest first; the count stops at the first that disagrees with it.
  EXPECT_EQ(agreeing_largest({tight, tight, launches({102, 102, 102}), tight}, 0.003, scatter), 2u);
  EXPECT_EQ(agreeing_largest({}, 0.003, scatter), 0u);
}

TEST(DramFootprints, DisagreementLowersTheConfidenceAndIsSaidInWords) {
  DramFootprintSweep sweep;
  sweep.l2_bytes = 64 * kMiB;
  sweep.points = {launches({100, 100, 100}, 8 * kGiB), launches({101, 101, 101}, 4 * kGiB)};
  sweep.agreeing = 1;
  const std::string words = footprint_disagreement(sweep);
  EXPECT_NE(words.find("at 8 GiB"), std::string::npos) << words;
  EXPECT_NE(words.find("(+1 %)"), std::string::npos) << words;
  EXPECT_NEAR(footprint_agreement(sweep).value(), (1 - 1.0 / 128) / 3, 1e-12);
  sweep.agreeing = 2;
  EXPECT_EQ(footprint_disagreement(sweep), "");
  EXPECT_NEAR(footprint_agreement(sweep).value(), 1 - 1.0 / 128, 1e-12);
  // None ran: the search's footprint is the finding's, with what the L2 could answer of it.
  DramFootprintSweep none;
  none.l2_bytes = 64 * kMiB;
  none.planned_bytes = kGiB;
  EXPECT_NEAR(footprint_agreement(none).value(), 1 - 1.0 / 16, 1e-12);
}

// The L2 keeps 1 MiB of every pass: 6.7 % faster over the search's 16 MiB, 0.1 % over 1 GiB.
TEST(DramBandwidthOnSim, AnL2ThatKeepsLinesDoesNotInflateTheFinding) {
  const char* kSim = "tests/probes/sims/bandwidth-l2-keeps-lines.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth"});
  const double dram = read_truth(kSim).dram_bytes_per_second();
  for (const char* name : {"bandwidth", "write_bandwidth", "copy_bandwidth"}) {
    SCOPED_TRACE(name);
    const Property& p = property(run, "dram", name);
    const nlohmann::json& planned = p.evidence.at("planned_footprint_spread");
    const nlohmann::json& sweep = p.evidence.at("footprint_sweep");
    ASSERT_EQ(sweep.at("points").size(), 3u);
    EXPECT_GE(sweep.at("agreeing_largest").get<int>(), 2);
    // Over 1 GiB the L2 answers 1/1024 of a pass: within the launches' 1 % jitter of DRAM's.
    const double factor = p.evidence.at("op") == "read"    ? 1.0
                          : p.evidence.at("op") == "write" ? 0.8
                                                           : 0.7;
    EXPECT_NEAR(p.value.get<double>(), factor * dram, 0.01 * factor * dram);
    // Over the search's footprint the L2 answered 1/16 of a read (1/32 of a copy's two arrays).
    EXPECT_GT(planned.at("p50").get<double>(), factor * dram * 1.025);
    EXPECT_GE(*p.confidence, 0.9);
  }
  // The triad runs at its planned footprint only: three arrays of 16 MiB, of which the L2
  // answers at most 1 MiB (1/48) a pass, the bound measure_triad names.
  const Property& triad = property(run, "dram", "triad_bandwidth");
  const double mix = sim::triad_factor_of(0.8) * dram;
  EXPECT_GE(triad.value.get<double>(), 0.99 * mix);
  EXPECT_LE(triad.value.get<double>(), 1.01 * mix * 48 / 47);
  EXPECT_GE(*triad.confidence, 0.9);
  EXPECT_TRUE(run.topology.warnings.empty()) << run.topology.warnings.front();
}

TEST(DramBandwidthOnSim, ARateAboveTheApiPeakIsAWarningWithBothNumbersAndLowConfidence) {
  const char* kSim = "tests/probes/sims/bandwidth-above-api-peak.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth"});
  const Property& read = property(run, "dram", "bandwidth");
  ASSERT_TRUE(read.evidence.contains("above_peak"));
  EXPECT_NEAR(read.evidence.at("above_peak").at("fraction").get<double>(), 300.0 / 160, 0.04);
  EXPECT_LT(*read.confidence, kLowConfidence);
  EXPECT_GT(property(run, "dram", "peak_fraction").value.get<double>(), 1.8);
  // Reads, writes (80 %: 150 % of the peak), copies (70 %: 131 %), triads (92 %: 173 %) and
  // 3:1 triads: one warning each.
  ASSERT_EQ(run.topology.warnings.size(), 5u);
  const std::string& warning = run.topology.warnings.front();
  EXPECT_EQ(warning.find("dram.bandwidth: 30"), 0u) << warning;  // about 300 GB/s ...
  EXPECT_NE(warning.find(" GB/s is 18"), std::string::npos) << warning;  // ... 187 % ...
  EXPECT_NE(warning.find("of the API's peak 160 GB/s"), std::string::npos) << warning;
}

// A 64 MiB L2 that keeps its lines and 16 GiB of memory: the sweep reaches 4 GiB per array, where
// the L2 still answers 1/64 of a pass and 2 GiB answers 1/32: the two largest disagree.
TEST(DramBandwidthOnSim, LargestFootprintsThatDisagreeAreAWarningAndLowConfidence) {
  const char* kSim = "tests/probes/sims/bandwidth-l2-64m-keeps-lines.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth"});
  const Property& read = property(run, "dram", "bandwidth");
  const nlohmann::json& sweep = read.evidence.at("footprint_sweep");
  ASSERT_EQ(sweep.at("points").size(), 2u) << sweep.dump();
  EXPECT_EQ(sweep.at("points")[0].at("footprint_bytes").get<std::uint64_t>(), 4 * kGiB);
  EXPECT_EQ(sweep.at("agreeing_largest").get<int>(), 1);
  const double dram = read_truth(kSim).dram_bytes_per_second();
  EXPECT_NEAR(read.value.get<double>(), dram / (1 - 1.0 / 64), 1e-6 * dram);
  EXPECT_LT(*read.confidence, kLowConfidence);
  ASSERT_FALSE(run.topology.warnings.empty());
  const std::string& warning = run.topology.warnings.front();
  EXPECT_NE(warning.find("dram.bandwidth: the largest footprints' rates"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("at 4 GiB"), std::string::npos) << warning;
  // The triad: three arrays of 1 GiB (16 L2s), of which the L2 answers at most 1/48 a pass.
  const Property& triad = property(run, "dram", "triad_bandwidth");
  ASSERT_TRUE(triad.value.is_number());
  EXPECT_NEAR(triad.value.get<double>(), sim::triad_factor_of(0.8) * dram * 48 / 47,
              1e-6 * dram);
}

}  // namespace
}  // namespace memtopo::testing

namespace memtopo::testing {
namespace {

// L2 figures are judged against DRAM's for the same op: bandwidth-small's L2 (600 B/cycle) is
// twice DRAM's, so each figure stayed in the L2; an L2 no faster than DRAM cannot show it.
TEST(L2Residency, AnL2FasterThanDramShowsThatTheFootprintStayedInIt) {
  const ProbeRun run =
      run_on_sim("tests/probes/sims/bandwidth-small.json", {"dram.bandwidth", "l2.bandwidth"});
  for (const char* name : {"bandwidth", "write_bandwidth", "copy_bandwidth"}) {
    SCOPED_TRACE(name);
    const Property& p = property(run, "l2", name);
    EXPECT_FALSE(p.inconclusive);
    const nlohmann::json& dram = p.evidence.at("dram_rate");
    EXPECT_TRUE(dram.at("stayed_in_l2").get<bool>()) << dram.dump();
    EXPECT_NEAR(dram.at("above_dram_percent").get<double>(), 100, 5);
  }
  // Without DRAM's figures (--only l2.bandwidth) nothing is judged, and the evidence says so.
  const ProbeRun alone = run_on_sim("tests/probes/sims/bandwidth-small.json", {"l2.bandwidth"});
  const Property& write = property(alone, "l2", "write_bandwidth");
  EXPECT_FALSE(write.inconclusive);
  EXPECT_EQ(write.evidence.at("dram_rate").at("verdict").get<std::string>().find("not judged"), 0u);
}

TEST(L2Residency, AnL2NoFasterThanDramIsAnInconclusiveLowerBoundWithBothNumbers) {
  const char* kSim = "tests/probes/sims/bandwidth-l2-as-fast-as-dram.json";
  const ProbeRun run = run_on_sim(kSim, {"dram.bandwidth", "l2.bandwidth"});
  const double dram = read_truth(kSim).dram_bytes_per_second();
  for (const char* name : {"bandwidth", "write_bandwidth", "copy_bandwidth"}) {
    SCOPED_TRACE(name);
    const Property& p = property(run, "l2", name);
    EXPECT_TRUE(p.inconclusive);
    EXPECT_EQ(p.bound, Bound::lower);
    EXPECT_FALSE(p.confidence.has_value());
    ASSERT_TRUE(p.value.is_number());
    EXPECT_LE(p.value.get<double>(), 1.03 * dram);  // what the L2 took: true as a lower bound
    EXPECT_FALSE(p.evidence.at("dram_rate").at("stayed_in_l2").get<bool>());
    EXPECT_NE(p.note.find("inside the L2 against"), std::string::npos) << p.note;
    EXPECT_NE(p.note.find("from DRAM (dram." + std::string(name)), std::string::npos) << p.note;
  }
  EXPECT_TRUE(property(run, "dram", "triad_bandwidth").value.is_number());
}

}  // namespace
}  // namespace memtopo::testing
