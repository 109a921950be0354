// Bandwidth probes end to end on simulated devices with a throughput model: the launch search
// converges to the modelled peak of every level, writes and copies follow the model's factors,
// the sweeps' knees land on the configured sizes, and descriptions without a model make the
// probes skip with the reason. Ground truth is read from the description file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/sim/sim_backend.hpp"
#include "backend/sim/throughput.hpp"
#include "probes/bandwidth/bandwidth_findings.hpp"
#include "probes/bandwidth/bandwidth_probe.hpp"
#include "probes/bandwidth/bandwidth_targets.hpp"
#include "probes/bandwidth/dram_footprints.hpp"
#include "probes/bandwidth/launch_search.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

constexpr const char* kSim = "tests/probes/sims/bandwidth-small.json";
// The model's launch jitter is 1 %: the p50 of 9 launches lies well within 3 % of the peak.
constexpr double kTolerance = 0.03;
const std::vector<std::string> kAllBandwidths = {
    "l1.size",       "tex.size",     "ro.size",          "l2.size",      "l1.bandwidth",
    "tex.bandwidth", "ro.bandwidth", "shared.bandwidth", "l2.bandwidth", "dram.bandwidth"};

struct Model {
  double sms, clock_hz, l1, l2, shared, dram, write_factor, copy_factor, api_peak;
};

Model model_of(const SimTruth& truth) {
  const nlohmann::json& t = truth.description.at("throughput");
  const nlohmann::json& caches = t.at("cache_bytes_per_cycle");
  return {truth.number("sm_count"),
          truth.number("clock_khz") * 1e3,
          caches.at("L1"),
          caches.at("L2"),
          t.at("shared_bytes_per_cycle"),
          t.at("dram_bytes_per_cycle"),
          t.at("write_factor"),
          t.at("copy_factor"),
          t.at("memory_clock_khz").get<double>() * 1e3 *
              t.at("memory_bus_width_bits").get<double>() / 8 * 2};
}

void expect_rate(const ProbeRun& run, const std::string& element, const std::string& name,
                 double modelled) {
  SCOPED_TRACE(element + "." + name);
  const Property& p = property(run, element, name);
  ASSERT_TRUE(p.value.is_number());
  EXPECT_NEAR(p.value.get<double>(), modelled, kTolerance * modelled);
  EXPECT_EQ(p.unit, "bytes/second");
  EXPECT_EQ(p.source, Source::measured);
  ASSERT_TRUE(p.spread && p.confidence);
  // The SM-local levels' rates follow the SM clock: their spread is over the run's clocks, the
  // launches' own in the evidence.
  const bool sm_local = element != "l2" && element != "dram";
  ASSERT_EQ(p.evidence.contains("launch_spread"), sm_local);
  // L2's rates: the final launches at three footprints inside it (the planned one, half and
  // one and a half of it), pooled.
  const bool three_footprints = element == "l2";
  ASSERT_EQ(p.evidence.contains("other_footprints"), three_footprints);
  if (three_footprints) {
    const double planned = p.evidence.at("footprint_bytes").get<double>();
    const auto& others = p.evidence.at("other_footprints");
    ASSERT_EQ(others.size(), 2u);
    EXPECT_NEAR(others[0].at("footprint_bytes").get<double>(), planned / 2, 0.01 * planned);
    EXPECT_NEAR(others[1].at("footprint_bytes").get<double>(), 1.5 * planned, 0.01 * planned);
  }
  // Finalists tied with the winner add their 9 launches to the pooled spread.
  const std::size_t ties = p.evidence.value("ties", nlohmann::json::array()).size();
  EXPECT_EQ(sm_local ? p.evidence.at("launch_spread").at("samples").get<std::size_t>()
                     : p.spread->samples,
            sm_local           ? 9u
            : three_footprints ? 27u + 9 * ties
            : element == "dram"
                ? kDramSweepLaunches *
                      p.evidence.at("footprint_sweep").at("agreeing_largest").get<std::size_t>()
                : 9u + 9 * ties);
  EXPECT_GE(*p.confidence, 0.9);  // every launch within 3 % of the p50
  EXPECT_TRUE(p.evidence.contains("confidence_factors"));
  // The clocks during the run and the launch that gave the figure are in the evidence.
  EXPECT_GT(p.evidence.at("sm_clock_khz").get<double>(), 0);
  for (const char* key : {"blocks_per_sm", "threads_per_block", "vector_bytes", "unroll"}) {
    EXPECT_TRUE(p.evidence.at("launch").contains(key)) << key;
  }
}

class BandwidthOnSim : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new ProbeRun(run_on_sim(kSim, kAllBandwidths)); }
  static void TearDownTestSuite() { delete run_; }
  static inline ProbeRun* run_ = nullptr;
};

TEST_F(BandwidthOnSim, TheSearchConvergesToEveryModelledReadPeak) {
  ASSERT_TRUE(run_->skipped.empty()) << run_->skipped.begin()->second;
  const Model m = model_of(read_truth(kSim));
  for (const char* level : {"l1", "tex", "ro"})
    expect_rate(*run_, level, "bandwidth", m.l1 * m.sms * m.clock_hz);
  expect_rate(*run_, "shared", "bandwidth", m.shared * m.sms * m.clock_hz);
  expect_rate(*run_, "l2", "bandwidth", m.l2 * m.clock_hz);
  expect_rate(*run_, "dram", "bandwidth", m.dram * m.clock_hz);
  // The start (4 x 256 threads, 16 B x 2) is below every peak of this model: the search moved.
  const Property& l1 = property(*run_, "l1", "bandwidth");
  EXPECT_GT(l1.evidence.at("search").at("measurements").get<int>(), 1);
  nlohmann::json start = l1.evidence.at("search").at("steps").at(0);
  start.erase("bytes_per_second");
  EXPECT_NE(l1.evidence.at("search").at("best"), start);
}

TEST_F(BandwidthOnSim, WritesAndCopiesFollowTheModelsFactors) {
  const Model m = model_of(read_truth(kSim));
  expect_rate(*run_, "shared", "write_bandwidth", m.shared * m.sms * m.clock_hz * m.write_factor);
  expect_rate(*run_, "shared", "copy_bandwidth", m.shared * m.sms * m.clock_hz * m.copy_factor);
  expect_rate(*run_, "l2", "write_bandwidth", m.l2 * m.clock_hz * m.write_factor);
  expect_rate(*run_, "l2", "copy_bandwidth", m.l2 * m.clock_hz * m.copy_factor);
  expect_rate(*run_, "dram", "write_bandwidth", m.dram * m.clock_hz * m.write_factor);
  expect_rate(*run_, "dram", "copy_bandwidth", m.dram * m.clock_hz * m.copy_factor);
  // Per-SM levels only have a per-SM-clock figure; stores only where they apply.
  EXPECT_EQ(run_->topology.find("l1")->find("write_bandwidth"), nullptr);
  EXPECT_EQ(run_->topology.find("l2")->find("bandwidth_per_sm_clock"), nullptr);
}

// DRAM is measured in both launch shapes; the model gives both the same peak, so whichever won,
// the other's figure is in the evidence and near the peak too.
TEST_F(BandwidthOnSim, DramTriesTheOnePassGridAndKeepsTheOtherShapeInTheEvidence) {
  const Model m = model_of(read_truth(kSim));
  for (const auto& [name, factor] :
       {std::pair{"bandwidth", 1.0}, std::pair{"write_bandwidth", m.write_factor},
        std::pair{"copy_bandwidth", m.copy_factor}}) {
    SCOPED_TRACE(name);
    const Property& p = property(*run_, "dram", name);
    const nlohmann::json& other = p.evidence.at("other_launch_shape");
    const std::string shapes = p.evidence.at("placement").get<std::string>() + "," +
                               other.at("placement").get<std::string>();
    EXPECT_TRUE(shapes == "one_pass,shared_by_all" || shapes == "shared_by_all,one_pass") << shapes;
    const double modelled = m.dram * m.clock_hz * factor;
    EXPECT_NEAR(other.at("p50_bytes_per_second").get<double>(), modelled, kTolerance * modelled);
    // The shape that lost had the lower p50 at the search's footprint; the value is the
    // winner's at the largest footprints of the sweep that agree (no L2 keeps lines in this
    // model: all of them), up to 1 GiB (half of half this device's memory: a copy's two arrays).
    EXPECT_LE(other.at("p50_bytes_per_second").get<double>(),
              p.evidence.at("planned_footprint_spread").at("p50").get<double>());
    const nlohmann::json& sweep = p.evidence.at("footprint_sweep");
    const nlohmann::json& points = sweep.at("points");
    ASSERT_EQ(points.size(), 3u) << sweep.dump();
    EXPECT_EQ(points[0].at("footprint_bytes").get<std::uint64_t>(), 1ull << 30);
    EXPECT_EQ(points[1].at("footprint_bytes").get<std::uint64_t>(), 1ull << 29);
    EXPECT_EQ(points[2].at("footprint_bytes").get<std::uint64_t>(), 1ull << 28);
    EXPECT_EQ(sweep.at("agreeing_largest").get<std::size_t>(), 3u);
    EXPECT_EQ(sweep.at("capped").get<std::string>().find("half the device memory"), 0u);
    EXPECT_NEAR(points[0].at("l2_share_at_most").get<double>(), 1.0 / 1024, 1e-9);
    EXPECT_EQ(p.spread->samples, 3u * kDramSweepLaunches);
    EXPECT_NEAR(p.value.get<double>(), modelled, kTolerance * modelled);
    // Every block size and unroll tried one-pass with short launches (or said why not), the
    // best three again with final launches.
    const nlohmann::json& configs = p.evidence.at("one_pass_configs");
    const LaunchSpace space = read_launch_space();
    EXPECT_EQ(configs.size(), space.unroll.size() * space.threads_per_block.size());
    std::size_t finals = 0;
    double fastest = 0;
    for (const nlohmann::json& row : configs) {
      EXPECT_TRUE(row.contains("not_run") ||
                  row.at("search_p50_bytes_per_second").get<double>() > 0)
          << row.dump();
      finals += row.contains("final_p50_bytes_per_second") ? 1 : 0;
      if (row.contains("search_p50_bytes_per_second")) {
        fastest = std::max(fastest, row.at("search_p50_bytes_per_second").get<double>());
      }
    }
    EXPECT_EQ(finals, 3u);
    // Told by one launch only where far below the fastest; never a finalist then.
    for (const nlohmann::json& row : configs) {
      if (row.contains("not_run")) continue;
      const auto launches = row.at("search_timed_launches").get<std::uint32_t>();
      EXPECT_TRUE(launches == 1 || launches == 3) << row.dump();
      if (launches == 1) {
        EXPECT_LT(row.at("search_p50_bytes_per_second").get<double>(), 0.8 * fastest);
        EXPECT_FALSE(row.contains("final_p50_bytes_per_second")) << row.dump();
      }
    }
    // The looping search's three fastest configurations, each with its final p50.
    const nlohmann::json& finalists = p.evidence.at("finalists");
    EXPECT_EQ(finalists.size(), 3u) << finalists.dump();
    for (const nlohmann::json& row : finalists) {
      EXPECT_GT(row.at("final_p50_bytes_per_second").get<double>(), 0) << row.dump();
    }
  }
  // Levels inside the L2 and the SM caches loop over their footprint only.
  EXPECT_FALSE(property(*run_, "l2", "bandwidth").evidence.contains("other_launch_shape"));
}

// DRAM's triad has no search of its own: the looping copy's final configuration and the one-pass
// grid at every threads x unroll, its two best again with final launches. This description has
// no triad_factor: the model's 2:1 mix at the read rate and write_factor times it.
// The 3:1 mix at the 2:1 triad's launch shapes: the model's 3:1 rate, four arrays, two series.
TEST_F(BandwidthOnSim, DramTriad3IsMeasuredAtTheTriadsLaunchShapes) {
  const Model m = model_of(read_truth(kSim));
  const double modelled = m.dram * m.clock_hz * sim::triad_factor_of(m.write_factor, 3);
  const Property& p = property(*run_, "dram", "triad3_bandwidth");
  ASSERT_TRUE(p.value.is_number());
  EXPECT_NEAR(p.value.get<double>(), modelled, kTolerance * modelled);
  EXPECT_EQ(p.evidence.at("op"), "triad3");
  EXPECT_NE(p.evidence.at("triad").get<std::string>().find("3 reads to 1 write"),
            std::string::npos);
  EXPECT_NE(p.method.find("3 x ld.global.cg + st.global"), std::string::npos) << p.method;
  const nlohmann::json& triad = property(*run_, "dram", "triad_bandwidth").evidence;
  const nlohmann::json& steps = p.evidence.at("search").at("steps");
  ASSERT_GE(steps.size(), 1u);
  EXPECT_LE(steps.size(), 2u);  // the triad's finding's shape and its other placement's
  EXPECT_EQ(steps.at(0).at("threads_per_block"), triad.at("launch").at("threads_per_block"))
      << steps.dump();
  ASSERT_TRUE(p.confidence);
  EXPECT_GE(*p.confidence, 0.9);
}

TEST_F(BandwidthOnSim, DramTriadFollowsTheModelsMixOfReadsAndWrites) {
  const Model m = model_of(read_truth(kSim));
  const double modelled = m.dram * m.clock_hz * sim::triad_factor_of(m.write_factor);
  const Property& p = property(*run_, "dram", "triad_bandwidth");
  ASSERT_TRUE(p.value.is_number());
  EXPECT_NEAR(p.value.get<double>(), modelled, kTolerance * modelled);
  EXPECT_EQ(p.unit, "bytes/second");
  EXPECT_EQ(p.source, Source::measured);
  ASSERT_TRUE(p.spread && p.confidence);
  EXPECT_EQ(p.spread->samples, 9u);  // the final launches; no footprint sweep of its own
  EXPECT_GE(*p.confidence, 0.9);
  EXPECT_EQ(p.evidence.at("op"), "triad");
  EXPECT_NE(p.evidence.at("triad").get<std::string>().find("2 reads to 1 write"),
            std::string::npos);
  EXPECT_NE(p.method.find("2 x ld.global.cg + st.global"), std::string::npos) << p.method;
  EXPECT_NE(p.method.find("no search of its own"), std::string::npos) << p.method;
  // The search is the copy's looping configuration, measured once.
  const nlohmann::json& search = p.evidence.at("search");
  ASSERT_EQ(search.at("steps").size(), 1u) << search.dump();
  const nlohmann::json& copy = property(*run_, "dram", "copy_bandwidth").evidence;
  const nlohmann::json& looping =
      copy.at("placement") == "shared_by_all" ? copy.at("launch") : copy.at("finalists").at(0);
  for (const char* key : {"blocks_per_sm", "threads_per_block", "vector_bytes", "unroll"}) {
    EXPECT_EQ(search.at("best").at(key), looping.at(key)) << key;
  }
  const nlohmann::json& configs = p.evidence.at("one_pass_configs");
  const LaunchSpace space = store_launch_space();
  EXPECT_EQ(configs.size(), space.unroll.size() * space.threads_per_block.size());
  std::size_t finals = 0;
  for (const nlohmann::json& row : configs) {
    finals += row.contains("final_p50_bytes_per_second") ? 1 : 0;
  }
  EXPECT_EQ(finals, 3u);  // kTriadOnePassFinalists
  EXPECT_TRUE(p.evidence.contains("other_launch_shape"));
  EXPECT_FALSE(p.evidence.contains("footprint_sweep"));
  // Three arrays of the planned footprint (the copy's search footprint), or of a third of the
  // memory a stream may use where that is less.
  const auto footprint = p.evidence.at("footprint_bytes").get<std::uint64_t>();
  EXPECT_GT(footprint, 0u);
  EXPECT_LE(
      footprint,
      property(*run_, "dram", "bandwidth").evidence.at("footprint_bytes").get<std::uint64_t>());
  // Only DRAM has a triad.
  for (const char* level : {"l1", "shared", "l2"}) {
    EXPECT_EQ(run_->topology.find(level)->find("triad_bandwidth"), nullptr) << level;
  }
}

TEST_F(BandwidthOnSim, PerSmClockFiguresAndTheDramPeak) {
  const Model m = model_of(read_truth(kSim));
  const Property& l1 = property(*run_, "l1", "bandwidth_per_sm_clock");
  EXPECT_EQ(l1.source, Source::derived);
  EXPECT_EQ(l1.unit, "bytes/cycle");
  EXPECT_NEAR(l1.value.get<double>(), m.l1, kTolerance * m.l1);
  EXPECT_NEAR(property(*run_, "shared", "bandwidth_per_sm_clock").value.get<double>(), m.shared,
              kTolerance * m.shared);
  // The SM-local levels' finalists too are ranked by their final launches, per SM cycle: the
  // finding is the fastest of them, and those tied with it are in its spread.
  for (const char* level : {"l1", "shared"}) {
    SCOPED_TRACE(level);
    const Property& rate = property(*run_, level, "bandwidth");
    const nlohmann::json& finalists = rate.evidence.at("finalists");
    ASSERT_EQ(finalists.size(), 3u) << finalists.dump();
    double fastest = 0;
    for (const nlohmann::json& row : finalists) {
      fastest = std::max(fastest, row.at("final_p50_bytes_per_sm_cycle").get<double>());
    }
    const nlohmann::json& launch = rate.evidence.at("launch");
    bool winner_listed = false;
    for (const nlohmann::json& row : finalists) {
      if (row.at("blocks_per_sm") == launch.at("blocks_per_sm") &&
          row.at("threads_per_block") == launch.at("threads_per_block") &&
          row.at("vector_bytes") == launch.at("vector_bytes") &&
          row.at("unroll") == launch.at("unroll")) {
        winner_listed = true;
        EXPECT_DOUBLE_EQ(row.at("final_p50_bytes_per_sm_cycle").get<double>(), fastest);
      }
    }
    EXPECT_TRUE(winner_listed) << launch.dump();
    const std::size_t series = 1 + rate.evidence.value("ties", nlohmann::json::array()).size();
    EXPECT_EQ(property(*run_, level, "bandwidth_per_sm_clock").spread->samples,
              series * rate.evidence.at("seconds").size());
  }
  const Property& peak = property(*run_, "dram", "peak_bandwidth");
  EXPECT_EQ(peak.source, Source::api);
  EXPECT_DOUBLE_EQ(peak.value.get<double>(), m.api_peak);
  const Property& fraction = property(*run_, "dram", "peak_fraction");
  EXPECT_EQ(fraction.source, Source::derived);
  EXPECT_NEAR(fraction.value.get<double>(), m.dram * m.clock_hz / m.api_peak,
              kTolerance * m.dram * m.clock_hz / m.api_peak);
  // The fraction carries the bandwidth's spread over the peak, so that it varies no more
  // between runs than the bandwidth does.
  const Property& dram = property(*run_, "dram", "bandwidth");
  ASSERT_TRUE(fraction.spread && dram.spread);
  EXPECT_DOUBLE_EQ(fraction.spread->p5, dram.spread->p5 / peak.value.get<double>());
  EXPECT_DOUBLE_EQ(fraction.spread->p95, dram.spread->p95 / peak.value.get<double>());
}

TEST_F(BandwidthOnSim, KneesLandOnTheModelledSizes) {
  const SimTruth truth = read_truth(kSim);
  const auto expect_knee = [&](const std::string& element, double size) {
    SCOPED_TRACE(element);
    const nlohmann::json& sweep = property(*run_, element, "bandwidth").evidence.at("sweep");
    EXPECT_TRUE(sweep.at("agrees").get<bool>());
    ASSERT_FALSE(sweep.at("knees").empty());
    const nlohmann::json& knee = sweep.at("knees").at(0);
    EXPECT_LE(knee.at("last_high_bytes").get<double>(), size);
    EXPECT_GT(knee.at("first_low_bytes").get<double>(), size);
    // Within the fine grid's resolution of 4 points per octave, of which fewer were measured.
    EXPECT_NEAR(std::log2(knee.at("footprint_bytes").get<double>() / size), 0, 0.25);
    // Fine gaps (2^-1/4, rounded to whole warp tiles) either side of the knee's interval.
    EXPECT_LT(sweep.at("resolution").get<double>(), std::sqrt(1.9));
    const nlohmann::json& grid = sweep.at("grid");
    EXPECT_GE(grid.at("fine_points").get<std::size_t>(), 16u);
    EXPECT_EQ(grid.at("measured_points").get<std::size_t>(), sweep.at("points").size());
    EXPECT_LT(sweep.at("points").size(), grid.at("fine_points").get<std::size_t>() * 3 / 4);
  };
  const double l1 = truth.cache("L1").at("size_bytes");
  for (const char* element : {"l1", "tex", "ro"}) expect_knee(element, l1);
  expect_knee("l2", truth.cache("L2").at("size_bytes"));
  EXPECT_TRUE(run_->topology.warnings.empty()) << run_->topology.warnings.front();
}

// Unlike an H200's: an L2 only twice the L1, so the L1 sweep falls twice an octave apart (L1 ->
// L2 -> DRAM), with noisier launches (2 %): both falls measured finely, the first one compared.
TEST(BandwidthProbes, TwoKneesAnOctaveApartBothLandOnTheirSizes) {
  const char* sim = "tests/probes/sims/bandwidth-close-knees.json";
  const ProbeRun run = run_on_sim(sim, {"l1.size", "l1.bandwidth"});
  const SimTruth truth = read_truth(sim);
  const nlohmann::json& sweep = property(run, "l1", "bandwidth").evidence.at("sweep");
  ASSERT_EQ(sweep.at("knees").size(), 2u) << sweep.dump();
  const double sizes[] = {truth.cache("L1").at("size_bytes"), truth.cache("L2").at("size_bytes")};
  for (std::size_t k = 0; k < 2; ++k) {
    const nlohmann::json& knee = sweep.at("knees").at(k);
    EXPECT_LE(knee.at("last_high_bytes").get<double>(), sizes[k]);
    EXPECT_GT(knee.at("first_low_bytes").get<double>(), sizes[k]);
  }
  EXPECT_TRUE(sweep.at("agrees").get<bool>());
  EXPECT_LT(sweep.at("points").size(), sweep.at("grid").at("fine_points").get<std::size_t>());
  EXPECT_TRUE(run.topology.warnings.empty()) << run.topology.warnings.front();
}

TEST(BandwidthProbes, DescriptionsWithoutAModelSkipWithTheReason) {
  const ProbeRun run = run_on_sim(
      "tests/sims/tiny.json", {"l1.size", "l1.bandwidth", "shared.bandwidth", "dram.bandwidth"});
  for (const char* id : {"l1.bandwidth", "shared.bandwidth", "dram.bandwidth"}) {
    ASSERT_TRUE(run.skipped.count(id)) << id;
    EXPECT_NE(run.skipped.at(id).find("no throughput model"), std::string::npos)
        << run.skipped.at(id);
  }
}

TEST(BandwidthProbes, AKneeThatDisagreesWithTheSizeIsAWarningWithBothNumbers) {
  auto sim = make_sim_backend_from_file(source_path(kSim));
  Topology topology;
  topology.device = sim->facts();
  // An l1.size half the configured one, as a wrong size probe would have found.
  Property size;
  size.name = "size";
  size.value = 32768;
  size.unit = "bytes";
  size.confidence = 0.9;
  topology.element("l1", "cache", "sm").set(size);
  ProbeContext ctx{.backend = *sim, .topology = topology};
  BandwidthProbe(bandwidth_targets().front()).run(ctx);
  ASSERT_EQ(topology.warnings.size(), 1u);
  const std::string& warning = topology.warnings.front();
  EXPECT_NE(warning.find("l1.size (measured) = 32 KiB"), std::string::npos) << warning;
  EXPECT_NE(warning.find("knee at 6"), std::string::npos) << warning;  // about 64 KiB
  // The footprint, half the (wrong) size, still lies in the L1: the bandwidth is right.
  const Model m = model_of(read_truth(kSim));
  EXPECT_NEAR(topology.number("l1", "bandwidth").value(), m.l1 * m.sms * m.clock_hz,
              kTolerance * m.l1 * m.sms * m.clock_hz);
}

}  // namespace
}  // namespace memtopo::testing

namespace memtopo::testing {
namespace {

// A rate bound by the SM clock: launches at 1973 MHz in a run whose clock was read between 1961
// and 1980 MHz (an H200 discovery). Value and spread are the launches' bytes per cycle at those
// clocks, so that a run at 1980 MHz lands inside this run's p5-p95; without the log (DRAM) the
// launches' own spread stays.
TEST(RateProperty, AClockBoundRateSpreadsOverTheRunsClocks) {
  OpOutcome outcome;
  outcome.final.spec.blocks_per_sm = 4;
  outcome.final.spec.threads_per_block = 256;
  outcome.final.spec.vector_bytes = 16;
  outcome.final.spec.unroll = 8;
  outcome.final.result.sms = 132;
  outcome.final.result.sm_clock_khz = 1973000;
  outcome.final.bytes_per_second = {3.330e13, 3.331e13, 3.332e13};
  SmClockLog clocks;
  for (int i = 0; i < 40; ++i) clocks.add(i % 2 ? 1961000 : 1980000);
  clocks.add(0);  // unknown: left out
  const FootprintPlan plan;
  const Property clock_bound = rate_property("write_bandwidth", outcome, plan, &clocks);
  ASSERT_TRUE(clock_bound.spread.has_value());
  EXPECT_EQ(clock_bound.spread->samples, 3u * 16u);  // 16 quantiles of 40 readings
  EXPECT_NEAR(clock_bound.spread->min, 3.330e13 / 1973000 * 1961000, 1e7);
  EXPECT_NEAR(clock_bound.spread->max, 3.332e13 / 1973000 * 1980000, 1e7);
  EXPECT_LE(clock_bound.spread->p5, 3.331e13 / 1973000 * 1961000 * 1.0001);
  EXPECT_GE(clock_bound.spread->p95, 3.331e13 / 1973000 * 1980000 * 0.9999);
  EXPECT_EQ(clock_bound.evidence.at("run_sm_clock_khz").at("readings"), 40);
  EXPECT_TRUE(clock_bound.evidence.contains("launch_spread"));

  const Property alone = rate_property("write_bandwidth", outcome, plan);
  EXPECT_EQ(alone.spread->samples, 3u);
  EXPECT_DOUBLE_EQ(alone.value.get<double>(), 3.331e13);
  EXPECT_FALSE(alone.evidence.contains("run_sm_clock_khz"));
}

TEST(SmClockLog, QuantilesSpanTheReadingsAtEvenRanks) {
  SmClockLog log;
  for (const double khz : {5.0, 1.0, 4.0, 2.0, 3.0}) log.add(khz);
  EXPECT_EQ(log.quantiles(16), (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(log.quantiles(3), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(log.quantiles(2), (std::vector<double>{1, 5}));
}

TEST(SmClockLog, RatesAtRunClocksScaleEachRateByItsOwnClock) {
  SmClockLog log;
  for (const double khz : {1900.0, 2000.0}) log.add(khz);
  // Two launches at different clocks: each is rescaled from its own clock to every reading.
  const std::vector<double> out = log.at_run_clocks({100, 210}, {1000, 2100}, kRunClockQuantiles);
  EXPECT_EQ(out, (std::vector<double>{190, 190, 200, 200}));
  EXPECT_TRUE(log.at_run_clocks({100, 210}, {1000, 0}, kRunClockQuantiles).empty());  // unknown
  EXPECT_TRUE(log.at_run_clocks({100}, {1000, 2000}, kRunClockQuantiles).empty());    // mismatched
  EXPECT_TRUE(SmClockLog{}.at_run_clocks({100}, {1000}, kRunClockQuantiles).empty());
}

}  // namespace
}  // namespace memtopo::testing
