// Strided requests and the stride/coalescing studies on simulated devices, against the
// description's ground truth (sector size, banks).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/strided_model.hpp"
#include "study/study.hpp"
#include "run_study_on.hpp"

namespace memtopo::study {
namespace {

const std::string kHopperLike = std::string(MEMTOPO_SOURCE_DIR) + "/sims/hopper-like.json";
const std::string kTiny = std::string(MEMTOPO_SOURCE_DIR) + "/tests/sims/tiny.json";

StridedAccessSpec spec_of(AccessSpace space, std::uint32_t element, std::uint32_t stride,
                          std::uint32_t start = 0) {
  StridedAccessSpec spec;
  spec.space = space;
  spec.element_bytes = element;
  spec.stride_elements = stride;
  spec.start_offset_bytes = start;
  spec.footprint_bytes = 1 << 20;
  return spec;
}

TEST(StridedRequests, SectorsPerRequestFollowTheDescription) {
  const sim::SimDescription description = sim::load_description_file(kHopperLike);
  const std::uint32_t sector = description.caches[0].sector_bytes;  // L1
  for (std::uint32_t offset : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
    const auto cost = sim::request_cost(spec_of(AccessSpace::ca, 4, offset), description);
    // 32 lanes x offset words: one sector per lane once lanes are a sector apart.
    const std::uint32_t expected = std::min<std::uint32_t>(32, 32 * 4 * offset / sector);
    EXPECT_EQ(cost.units, expected) << "offset " << offset;
    EXPECT_EQ(cost.unit_bytes, sector);
  }
  // A start one word past the boundary spills into one more sector.
  EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::ca, 4, 1, 4), description).units,
            32 * 4 / sector + 1);
  // Shared memory: passes = the worst bank conflict; stride 32 words puts all lanes in one bank.
  const auto& shared = description.shared_memory;
  EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::shared, 4, shared.banks), description).units,
            32u);
  EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::shared, 4, 1), description).units, 1u);
}

StudyResult run_with(Backend& backend, const std::string& id) {
  return run_study_on(backend, *find_study(id));
}

StudyResult run_on(const std::string& sim, const std::string& id) {
  auto backend = make_sim_backend_from_file(sim);
  return run_study_on(*backend, *find_study(id));
}

const Table& table_named(const StudyResult& result, const std::string& id) {
  for (const Table& table : result.tables) {
    if (table.id == id) return table;
  }
  throw std::out_of_range(id);
}

TEST(CoalescingStudy, RatioFollowsSectorsAndTheFindingNamesTheSector) {
  const StudyResult result = run_on(kHopperLike, "coalescing");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const Table& table = table_named(result, "coalescing_offset");
  const std::size_t ratio = table.column("ratio_to_best");
  // Offset 1 is the best case; from offset 8 words (32 B = the L1 sector) on every lane has
  // a sector of its own and the ratio stays flat.
  EXPECT_NEAR(table.rows[1][ratio].value.get<double>(), 1.0, 0.02);
  const double at8 = table.rows[8][ratio].value.get<double>();
  EXPECT_LT(at8, 0.5);
  EXPECT_NEAR(table.rows[32][ratio].value.get<double>(), at8, 0.05 * at8);
  ASSERT_FALSE(result.findings.empty());
  EXPECT_EQ(result.findings[0].at["offset_words"], 8);
  // No --topology: the predictions say so rather than guess.
  EXPECT_TRUE(table.rows[1][table.column("sectors_per_request")].value.is_null());
}

TEST(StrideStudy, ChangePointsAtTheSectorAndTheBankRow) {
  const StudyResult result = run_on(kHopperLike, "stride");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const sim::SimDescription description = sim::load_description_file(kHopperLike);
  const double sector = description.caches[0].sector_bytes;
  const double bank_row = static_cast<double>(description.shared_memory.banks) *
                          description.shared_memory.bank_width_bytes;
  int checked = 0;
  for (const Finding& finding : result.findings) {
    const double distance =
        finding.at["element_bytes"].get<double>() * finding.at["stride_elements"].get<double>();
    EXPECT_DOUBLE_EQ(distance, finding.table == "stride_shared" ? bank_row : sector)
        << finding.what;
    ++checked;
  }
  EXPECT_GE(checked, 12);  // ca, cg, nc, tex and shared at 3 element sizes
  // 4 B ca throughput at stride 1 beats stride 32.
  const Table& ca = table_named(result, "stride_ca");
  const std::size_t throughput = ca.column("throughput");
  EXPECT_GT(ca.rows[0][throughput].value.get<double>(),
            2 * ca.rows[5][throughput].value.get<double>());
}

TEST(StrideStudy, WithoutAThroughputModelOnlyLatencyIsMeasured) {
  const StudyResult result = run_on(kTiny, "stride");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const Table& ca = table_named(result, "stride_ca");
  EXPECT_TRUE(ca.rows[0][ca.column("throughput")].value.is_null());
  EXPECT_TRUE(ca.rows[0][ca.column("latency")].value.is_number());
}

TEST(CoalescingStudy, SkipsWithoutAThroughputModel) {
  const StudyResult result = run_on(kTiny, "coalescing");
  EXPECT_EQ(result.status, "skipped");
  EXPECT_NE(result.reason.find("throughput"), std::string::npos);
}

// hopper-like with a rate for its constant caches: what a description needs for constant rows.
constexpr double kConstantL1BytesPerCycle = 64;
std::string hopper_like_with_constant_rate() {
  std::ifstream file(kHopperLike);
  std::stringstream text;
  text << file.rdbuf();
  nlohmann::json description = nlohmann::json::parse(text.str());
  description["throughput"]["cache_bytes_per_cycle"]["constant L1"] = kConstantL1BytesPerCycle;
  description["throughput"]["cache_bytes_per_cycle"]["constant L1.5"] = kConstantL1BytesPerCycle;
  return description.dump();
}

TEST(StridedRequests, ConstantPassesAreDistinctAddressesAndLocalWordsInterleave) {
  const sim::SimDescription description = sim::load_description_file(kHopperLike);
  for (std::uint32_t element : {4u, 8u, 16u}) {
    EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::constant, element, 0), description).units, 1u);
    EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::constant, element, 1), description).units,
              32u);
    EXPECT_EQ(sim::request_cost(spec_of(AccessSpace::constant, element, 64), description).units,
              32u);
  }
  // Local memory: the same index in every thread is 32 words side by side (4 sectors of 32 B);
  // lane l at index l is in a 128-byte row of its own.
  StridedAccessSpec local = spec_of(AccessSpace::local, 4, 0);
  local.footprint_bytes = 8 * 1024;
  EXPECT_EQ(units_touched(interleaved_local_words(local, 0), kLocalWordBytes, 32), 4u);
  local.stride_elements = 1;
  EXPECT_EQ(units_touched(interleaved_local_words(local, 0), kLocalWordBytes, 32), 32u);
  local.element_bytes = 16;  // 4 words per lane, each in a row of its own
  local.footprint_bytes = 32 * 1024;
  EXPECT_EQ(units_touched(interleaved_local_words(local, 0), kLocalWordBytes, 32), 128u);
}

TEST(StrideStudy, ConstantRowsSerialiseDistinctAddressesWhereTheConstantCacheHasARate) {
  auto backend = make_sim_backend_from_text(hopper_like_with_constant_rate(), "constant-rate");
  const StudyResult result = run_with(*backend, "stride");
  ASSERT_EQ(result.status, "ok") << result.reason;
  const Table& constant = table_named(result, "stride_const");
  const std::size_t stride = constant.column("stride_elements");
  const std::size_t throughput = constant.column("throughput");
  ASSERT_EQ(constant.rows[0][stride].value, 0);
  ASSERT_EQ(constant.rows[1][stride].value, 1);
  // Stride 1 (32 addresses) takes 32 passes of the constant cache's rate, on every SM.
  const sim::SimDescription description = sim::load_description_file(kHopperLike);
  const double at_stride_1 =
      kConstantL1BytesPerCycle / 32 * description.sm_count * description.clock_khz * 1e3;
  EXPECT_NEAR(constant.rows[1][throughput].value.get<double>(), at_stride_1, 0.02 * at_stride_1);
  EXPECT_NEAR(constant.rows[0][throughput].value.get<double>() / at_stride_1, 32, 32 * 0.02);
  int constant_findings = 0;
  for (const Finding& finding : result.findings) {
    if (finding.table != "stride_const") continue;
    ++constant_findings;
    EXPECT_EQ(finding.at["stride_elements"], 0);
    ASSERT_TRUE(finding.confidence.has_value());
    EXPECT_GT(*finding.confidence, 0.9) << finding.what;
  }
  EXPECT_EQ(constant_findings, 3);
}

TEST(StrideStudy, ConstantAndLocalRowsSayWhyTheSimCannotMeasureThem) {
  const StudyResult result = run_on(kHopperLike, "stride");
  ASSERT_EQ(result.status, "ok") << result.reason;
  // No rate for the constant caches: latency only, the throughput cell says which cache.
  const Table& constant = table_named(result, "stride_const");
  const Cell& no_rate = constant.rows[1][constant.column("throughput")];
  EXPECT_TRUE(no_rate.value.is_null());
  EXPECT_NE(no_rate.note.find("constant L1 no rate"), std::string::npos) << no_rate.note;
  EXPECT_TRUE(constant.rows[1][constant.column("latency")].value.is_number());
  // Local memory is not modelled: every cell says so, and a note repeats it.
  const Table& local = table_named(result, "stride_local");
  ASSERT_EQ(local.rows.size(), 3u * 8);  // strides 0 to 64, three element sizes
  for (const auto& row : local.rows) {
    EXPECT_TRUE(row[local.column("throughput")].value.is_null());
    EXPECT_NE(row[local.column("latency")].note.find("does not model local memory"),
              std::string::npos);
  }
  bool noted = false;
  for (const std::string& note : result.notes) noted = noted || note.starts_with("local: ");
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace memtopo::study
