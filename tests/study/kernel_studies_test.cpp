// The sync and spilling studies on a host: registered, skipped on a simulated device with the
// reason, and on a fake GPU with exact timings (kernel_studies_fake.hpp) their tables, ratios,
// slopes and findings match the fake's formulas. Also the trend helpers on synthetic data.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "../report/golden_file.hpp"
#include "backend/sim/sim_backend.hpp"
#include "kernel_studies_fake.hpp"
#include "study/report.hpp"
#include "study/study.hpp"
#include "run_study_on.hpp"
#include "study/trend.hpp"

namespace memtopo::study {
namespace {

using testing::FakeStudyGpu;

class CollectedTraces final : public TraceSink {
 public:
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override {
    headers[name] = header;
    files[name] = rows;
  }
  void record_experiment(const std::string&, const Experiment& experiment) override {
    barriers += std::holds_alternative<BarrierRecord>(experiment) ? 1 : 0;
  }
  std::map<std::string, std::string> headers;
  std::map<std::string, std::vector<std::string>> files;
  std::size_t barriers = 0;
};

StudyResult run_on(Backend& backend, const std::string& id, TraceSink* traces = nullptr) {
  const Study* study = find_study(id);
  if (study == nullptr) throw std::runtime_error("no study " + id);
  return run_study_on(backend, *study, traces);
}

const Table& table_of(const StudyResult& result, const std::string& id) {
  for (const Table& table : result.tables) {
    if (table.id == id) return table;
  }
  throw std::runtime_error("no table " + id);
}

double number_at(const Table& table, std::size_t row, const std::string& column) {
  return table.rows.at(row).at(table.column(column)).value.get<double>();
}

const Finding& finding_containing(const StudyResult& result, const std::string& text) {
  for (const Finding& finding : result.findings) {
    if (finding.what.find(text) != std::string::npos) return finding;
  }
  throw std::runtime_error("no finding with '" + text + "'");
}

TEST(KernelStudies, AreRegisteredAndSayTheyNeedAGpu) {
  for (const std::string id : {"sync", "spilling"}) {
    const Study* study = find_study(id);
    ASSERT_NE(study, nullptr) << id;
    EXPECT_NE(study->needs.find("CUDA GPU"), std::string::npos);
  }
}

TEST(KernelStudies, SkipOnASimulatedDeviceWithTheReason) {
  auto sim = make_sim_backend_from_file(std::string(MEMTOPO_SOURCE_DIR) + "/sims/hopper-like.json");
  const StudyResult sync = run_on(*sim, "sync");
  EXPECT_EQ(sync.status, "skipped");
  EXPECT_NE(sync.reason.find("does not model barriers"), std::string::npos) << sync.reason;
  const StudyResult spilling = run_on(*sim, "spilling");
  EXPECT_EQ(spilling.status, "skipped");
  EXPECT_NE(spilling.reason.find("registers"), std::string::npos) << spilling.reason;
}

TEST(SyncStudy, SyncthreadsTableFollowsTheFakeCosts) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "sync");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const Table& table = table_of(result, "syncthreads");
  // Blocks per SM 1, 2, 4 ... up to what 2048 threads per SM allow (32 at most), per size.
  EXPECT_EQ(table.rows.size(), 6u + 6 + 5 + 4 + 3 + 2);
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    BarrierSpec spec;
    spec.threads_per_block = static_cast<std::uint32_t>(number_at(table, row, "threads_per_block"));
    spec.blocks_per_sm = static_cast<std::uint32_t>(number_at(table, row, "blocks_per_sm"));
    const double cycles = testing::fake_barrier_cycles(spec);
    EXPECT_DOUBLE_EQ(number_at(table, row, "cycles_per_barrier"), cycles);
    EXPECT_DOUBLE_EQ(number_at(table, row, "ns_per_barrier"),
                     cycles / testing::kCyclesPerNs * 1e-9);
    EXPECT_EQ(number_at(table, row, "blocks_on_busiest_sm"), spec.blocks_per_sm);
  }
}

TEST(SyncStudy, FindingsQuoteTheCostsAndTheirRise) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "sync");
  const Finding& threads = finding_containing(result, "__syncthreads costs");
  EXPECT_NE(threads.what.find("22.0 cycles (11.0 ns) at 32 threads per block, rising to 84.0 "
                              "cycles (42.0 ns) at 1024"),
            std::string::npos)
      << threads.what;
  // Five steps of threads per block, all rising: agreement 6 / 7; every sample on its p50.
  ASSERT_TRUE(threads.confidence);
  EXPECT_NEAR(*threads.confidence, 6.0 / 7.0, 1e-9);
  EXPECT_EQ(threads.at["threads_per_block"], nlohmann::json({32, 1024}));
  EXPECT_EQ(threads.at["blocks_per_sm"], 1);
  const Finding& blocks = finding_containing(result, "alone on its SM");
  EXPECT_NE(blocks.what.find("with 8 blocks per SM (8.00x)"), std::string::npos) << blocks.what;
}

TEST(SyncStudy, OtherBarriersAreRowsWithTheirRatioToSyncthreads) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "sync");
  const Table& table = table_of(result, "other_barriers");
  // __syncwarp at 32 and 1024 threads; grid sync at 32, 256, 1024 threads with 1 and the most
  // blocks per SM; clusters of 2, 4, 8 at 128 threads.
  ASSERT_EQ(table.rows.size(), 2u + 6 + 3);
  EXPECT_EQ(table.rows[0][table.column("barrier")].value, "__syncwarp");
  EXPECT_DOUBLE_EQ(number_at(table, 0, "ratio_to_syncthreads"),
                   testing::kWarpBarrierCycles / (testing::kBarrierBaseCycles + 2));
  EXPECT_DOUBLE_EQ(number_at(table, 10, "cycles_per_barrier"), 8 * testing::kClusterCyclesPerBlock);
  EXPECT_NE(finding_containing(result, "cluster barrier costs").what.find("clusters of 8"),
            std::string::npos);
  EXPECT_NO_THROW(finding_containing(result, "grid sync costs 2000.0 cycles"));
}

TEST(SyncStudy, AKindTheDeviceLacksIsANoteNotAFailure) {
  FakeStudyGpu gpu;
  gpu.unsupported[BarrierKind::cluster] = "thread-block clusters need compute capability 9.0";
  const StudyResult result = run_on(gpu, "sync");
  EXPECT_EQ(result.status, "ok");
  EXPECT_EQ(table_of(result, "other_barriers").rows.size(), 8u);
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes.back().find("cluster: not measured: thread-block clusters"),
            std::string::npos);
}

TEST(SyncStudy, TracesHoldEverySample) {
  FakeStudyGpu gpu;
  CollectedTraces traces;
  const StudyResult result = run_on(gpu, "sync", &traces);
  ASSERT_EQ(traces.files.count("sync_samples"), 1u);
  EXPECT_EQ(traces.headers["sync_samples"].rfind("barrier,threads_per_block", 0), 0u);
  std::size_t samples = 0, rows = 0;
  for (const Table& table : result.tables) {
    for (const auto& row : table.rows) {
      samples += row[table.column("cycles_per_barrier")].spread->samples;
      ++rows;
    }
  }
  EXPECT_EQ(traces.files["sync_samples"].size(), samples);
  // Every barrier run went through the engine's context to the sink, one per row.
  EXPECT_EQ(traces.barriers, rows);
}

TEST(SpillingStudy, RowsCarryTheBuildsCountsAndTimes) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "spilling");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const Table& table = table_of(result, "spilling_one_warp");
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(number_at(table, 0, "local_bytes"), 0);
  EXPECT_EQ(number_at(table, 2, "ptxas_spill_store_bytes"), 588);
  EXPECT_DOUBLE_EQ(
      number_at(table, 2, "slowdown"),
      (testing::kSpillBaseCycles + 328 * testing::kSpillCyclesPerByte) / testing::kSpillBaseCycles);
  // (136 + 140) B per thread and iteration, 32 threads on each of 4 SMs, 170 cycles at 2 GHz.
  EXPECT_NEAR(number_at(table, 1, "local_traffic"), 276.0 * 32 * 4 / (170 / 2.0 * 1e-9), 1);
  EXPECT_EQ(table_of(result, "spilling_512_threads").rows.size(), 3u);
  EXPECT_EQ(table_of(result, "spilling_512_threads_small_l1").rows.size(), 3u);
}

TEST(SpillingStudy, ASmallerL1ShowsInTheTightestBuildsSlowdown) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "spilling");
  // (130 + 2 x 0.5 x 328) / 130 = 3.52 with the small L1, (130 + 0.5 x 328) / 130 = 2.26 without.
  const Finding& l1 = finding_containing(result, "with L1 at its smallest");
  EXPECT_NE(l1.what.find("slowdown is 3.52x, against 2.26x with the default L1"), std::string::npos)
      << l1.what;
  EXPECT_NE(l1.why.find("a smaller L1 holds fewer of them"), std::string::npos);
  EXPECT_EQ(l1.table, "spilling_512_threads_small_l1");
}

TEST(SpillingStudy, SlopePerSpilledWordComesFromTheLine) {
  FakeStudyGpu gpu;
  const StudyResult result = run_on(gpu, "spilling");
  // 0.5 cycles per byte: 2 cycles (1 ns at 2 GHz) per 4-byte word with one warp; 16 times as
  // much with 512 threads per SM in the fake.
  const Finding& one = finding_containing(result, "(one warp per SM)");
  EXPECT_NE(one.what.find("adds 1.00 ns (2.00 cycles) per iteration"), std::string::npos)
      << one.what;
  ASSERT_TRUE(one.confidence);
  EXPECT_NEAR(*one.confidence, 3.0 / 4.0, 1e-9);  // R^2 1, agreement 2 of 2
  const Finding& busy = finding_containing(result, "adds 16.00 ns (32.00 cycles)");
  EXPECT_EQ(busy.table, "spilling_512_threads");
  const Finding& slowdown = finding_containing(result, "limited to 32 registers");
  EXPECT_NE(slowdown.what.find("runs 2.26x slower"), std::string::npos) << slowdown.what;
}

// MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R SpillingStudy rewrites it.
TEST(SpillingStudy, ConsoleMatchesGolden) {
  FakeStudyGpu gpu;
  StudyReport report;
  report.header.run.tool_version = "0.0.0";
  report.header.run.git_describe = "test";
  report.header.device = gpu.facts();
  report.result = run_on(gpu, "spilling");
  ::memtopo::testing::expect_matches_golden(render_study_console(report),
                                            "spilling_study_console.txt");
}

TEST(Trend, LineThroughExactPointsAndNoisyOnes) {
  const std::vector<double> x = {0, 80, 200, 328};
  std::vector<double> y;
  for (const double v : x) y.push_back(130 + 0.5 * v);
  const auto exact = fit_line(x, y);
  ASSERT_TRUE(exact);
  EXPECT_NEAR(exact->slope, 0.5, 1e-12);
  EXPECT_NEAR(exact->intercept, 130, 1e-9);
  EXPECT_NEAR(exact->r_squared, 1, 1e-12);
  y[1] += 20;  // one point off the line
  const auto noisy = fit_line(x, y);
  ASSERT_TRUE(noisy);
  EXPECT_LT(noisy->r_squared, 0.99);
  EXPECT_GT(noisy->r_squared, 0.8);
  EXPECT_NEAR(noisy->slope, 0.5, 0.1);
}

TEST(Trend, DegenerateInputsHaveNoLine) {
  EXPECT_FALSE(fit_line(std::vector<double>{1}, std::vector<double>{2}));
  EXPECT_FALSE(fit_line(std::vector<double>{1, 1}, std::vector<double>{2, 3}));
  EXPECT_FALSE(fit_line(std::vector<double>{1, 2}, std::vector<double>{2}));
  const auto flat = fit_line(std::vector<double>{1, 2}, std::vector<double>{5, 5});
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->slope, 0);
  EXPECT_EQ(flat->r_squared, 1);
}

TEST(Trend, NonDecreasingPairsAllowTheTolerance) {
  const std::vector<double> values = {10, 12, 11, 20, 5};
  const PairCount strict = non_decreasing_pairs(values, 0);
  EXPECT_EQ(strict.pairs, 4u);
  EXPECT_EQ(strict.in_order, 2u);                             // 10->12, 11->20
  EXPECT_EQ(non_decreasing_pairs(values, 0.1).in_order, 3u);  // 12->11 is within 10 %
  EXPECT_EQ(non_decreasing_pairs(std::vector<double>{}, 0.1).pairs, 0u);
}

}  // namespace
}  // namespace memtopo::study
