// The granularity fit behind the stride and coalescing findings (study/strided/curve.hpp): on
// synthetic curves with a known granularity, and on the curves an H200 recorded
// (tests/data/h200-stride-study-3876637.json: the stride study of an H200 at 3876637), where a
// single change point did not describe the data and the findings came out with confidence 0.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "backend/strided_access.hpp"
#include "study/strided/curve.hpp"
#include "study/strided/strided_common.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kStrides[] = {1, 2, 4, 8, 16, 32, 64};

double blocks_of(std::uint32_t element, std::uint32_t stride, double granularity) {
  StridedAccessSpec spec;
  spec.space = AccessSpace::ca;
  spec.element_bytes = element;
  spec.stride_elements = stride;
  spec.footprint_bytes = 8 << 20;
  const auto offsets = lane_offsets(spec, 0);
  return units_touched(offsets, element, static_cast<std::uint32_t>(granularity));
}

std::vector<GranularityCandidate> candidates_for(std::uint32_t element,
                                                 const std::vector<CurvePoint>& curve,
                                                 const std::vector<double>& measured = {}) {
  std::vector<GranularityCandidate> candidates;
  for (double bytes : candidate_granularities(measured)) {
    GranularityCandidate candidate{bytes, {}, false};
    for (const CurvePoint& point : curve) {
      candidate.blocks.push_back(
          blocks_of(element, static_cast<std::uint32_t>(point.x), bytes));
    }
    for (double size : measured) candidate.from_topology |= size == bytes;
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

// min(cap, rate / blocks of `granularity`) at every stride, times a per-point factor.
std::vector<CurvePoint> modelled_curve(std::uint32_t element, double granularity, double cap,
                                       double rate, const std::vector<double>& factors = {}) {
  std::vector<CurvePoint> curve;
  for (std::size_t i = 0; i < std::size(kStrides); ++i) {
    const double value = std::min(cap, rate / blocks_of(element, kStrides[i], granularity));
    curve.push_back({static_cast<double>(kStrides[i]), value * (factors.empty() ? 1 : factors[i])});
  }
  return curve;
}

TEST(GranularityFit, FindsTheGranularityOfAnExactCurve) {
  for (double granularity : {32.0, 64.0, 128.0, 256.0}) {
    const auto curve = modelled_curve(4, granularity, 5e12, 40e12);
    const auto choice = choose_granularity(curve, candidates_for(4, curve));
    ASSERT_TRUE(choice);
    EXPECT_EQ(choice->best.granularity_bytes, granularity);
    EXPECT_EQ(choice->best.explained_count, curve.size());
    EXPECT_NEAR(choice->best.per_block, 40e12, 1);
  }
}

TEST(GranularityFit, NoisyPointsWithinTheBandStillFitAndAnOutlierIsNamed) {
  const std::vector<double> noise{1.05, 0.97, 1.1, 0.92, 1.0, 1.04, 0.5};  // the last: an outlier
  const auto curve = modelled_curve(8, 128, 8e12, 60e12, noise);
  const auto choice = choose_granularity(curve, candidates_for(8, curve));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->best.granularity_bytes, 128);
  EXPECT_EQ(choice->best.explained_count, 6u);
  EXPECT_FALSE(choice->best.explained.back());
}

TEST(GranularityFit, TiesGoToTheTopologysGranularityAndLowerTheConfidence) {
  // Flat: every granularity explains every point with a cap.
  std::vector<CurvePoint> flat;
  for (std::uint32_t stride : kStrides) flat.push_back({static_cast<double>(stride), 1e12});
  const auto choice = choose_granularity(flat, candidates_for(4, flat, {64}));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->best.granularity_bytes, 64);
  EXPECT_EQ(choice->tied_granularities.size(), 4u);
  const std::vector<Granularity> measured{{64, "l1.sector = 64 B (--topology)", 1, "sector"}};
  const Confidence confidence = granularity_confidence(*choice, flat.size(), measured, "strides");
  EXPECT_NEAR(confidence.value(), (8.0 / 9.0) * (1.0 / 5.0), 1e-9);
}

TEST(GranularityFit, AGranularityTheTopologyDidNotMeasureHalvesTheConfidence) {
  const auto curve = modelled_curve(4, 128, 5e12, 40e12);
  const auto choice = choose_granularity(curve, candidates_for(4, curve, {32}));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->best.granularity_bytes, 128);
  const std::vector<Granularity> sector{{32, "l1.sector = 32 B (--topology)", 1, "sector"}};
  EXPECT_NEAR(granularity_confidence(*choice, curve.size(), sector, "strides").value(),
              (8.0 / 9.0) * 0.5, 1e-9);
  const std::vector<Granularity> line{{128, "l1.line = 128 B (--topology)", 1, "line"}};
  EXPECT_NEAR(granularity_confidence(*choice, curve.size(), line, "strides").value(), 8.0 / 9.0,
              1e-9);
  EXPECT_EQ(granularity_ties(*choice, line), "l1.line = 128 B (--topology)");
}

TEST(CurveFalls, AreTheDropsBeyondTheBand) {
  const std::vector<CurvePoint> curve{{1, 100}, {2, 90}, {4, 70}, {8, 69}, {16, 30}, {32, 31}};
  EXPECT_EQ(falls(curve), (std::vector<std::size_t>{2, 4}));
  EXPECT_TRUE(falls({{1, 100}, {2, 95}, {4, 110}}).empty());
}

// The H200's recorded stride curves: table id -> element bytes -> throughput at strides 1..64.
std::map<std::string, std::map<std::uint32_t, std::vector<CurvePoint>>> recorded_stride_curves() {
  std::ifstream file(std::string(MEMTOPO_SOURCE_DIR) +
                     "/tests/data/h200-stride-study-3876637.json");
  const nlohmann::json run = nlohmann::json::parse(file);
  std::map<std::string, std::map<std::uint32_t, std::vector<CurvePoint>>> curves;
  for (const auto& table : run["study"]["tables"]) {
    for (const auto& row : table["rows"]) {
      const auto stride = row["stride_elements"].get<double>();
      if (stride < 1 || !row["throughput"]["value"].is_number()) continue;
      curves[table["id"]][row["element_bytes"].get<std::uint32_t>()].push_back(
          {stride, row["throughput"]["value"].get<double>()});
    }
  }
  return curves;
}

TEST(GranularityFit, RecordedH200StrideCurvesFollowLinesBankRowsAndL2Sectors) {
  const auto curves = recorded_stride_curves();
  // The first level's fits on the H200: ca, nc and tex by 128 B lines (the L1's sectors are 32 B
  // but a request costs one pass per line), shared by 128 B bank rows (32 banks x 4 B), cg by
  // the L2's 64 B sectors.
  const std::map<std::string, std::pair<double, std::size_t>> expected{
      {"stride_ca", {128, 7}},     {"stride_nc", {128, 7}}, {"stride_tex", {128, 6}},
      {"stride_shared", {128, 7}}, {"stride_cg", {64, 6}},
  };
  for (const auto& [table, fit] : expected) {
    for (std::uint32_t element : {4u, 8u, 16u}) {
      const auto& curve = curves.at(table).at(element);
      ASSERT_EQ(curve.size(), std::size(kStrides)) << table;
      const auto choice = choose_granularity(curve, candidates_for(element, curve));
      ASSERT_TRUE(choice) << table;
      EXPECT_EQ(choice->best.granularity_bytes, fit.first) << table << " " << element << " B";
      EXPECT_GE(choice->best.explained_count, fit.second) << table << " " << element << " B";
      EXPECT_TRUE(choice->tied_granularities.empty()) << table << " " << element << " B";
      EXPECT_FALSE(falls(curve).empty()) << table;
    }
  }
}

}  // namespace
}  // namespace memtopo::study
