// Strided requests and the stride/coalescing studies on simulated devices, against the
// description's ground truth (sector size, banks).
#include <gtest/gtest.h>

#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/strided_model.hpp"
#include "study/study.hpp"

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

StudyResult run_on(const std::string& sim, const std::string& id) {
  auto backend = make_sim_backend_from_file(sim);
  PhaseTimer phases(*backend);
  StudyContext context{.backend = *backend,
                       .phases = phases,
                       .progress = [](const std::string&) {},
                       .interrupted = [] { return false; }};
  return run_study(*find_study(id), context);
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

}  // namespace
}  // namespace memtopo::study
