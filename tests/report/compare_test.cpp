// The rules of `memtopo compare` (report/compare.hpp) on hand-built properties: a difference
// within the spread is not a change, exact-valued properties differ when they differ, and
// (in)conclusiveness, presence and confidences crossing 0.5 are their own verdicts.
#include <gtest/gtest.h>

#include <cmath>

#include "model/json.hpp"
#include "report/compare.hpp"
#include "report/compare_render.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

Property latency(double p50, double stdev, double p5, double p95, double confidence = 0.9) {
  Property p;
  p.name = "latency";
  p.value = p50;
  p.unit = "cycles";
  p.confidence = confidence;
  p.spread = Spread{p50, p50, stdev, p5, p95, p5, p95, 1000};
  return p;
}

Property exact(const std::string& name, nlohmann::json value, const std::string& unit = "") {
  Property p;
  p.name = name;
  p.value = std::move(value);
  p.unit = unit;
  p.confidence = 0.9;
  return p;
}

TEST(Compare, LatencyWithinItsSpreadIsNotAChange) {
  // 274 vs 276 with p5-p95 ranges of +-22 cycles: the same measurement.
  const auto c = compare_property("l2", latency(274, 14, 252, 296), latency(276, 14, 254, 298), {});
  EXPECT_EQ(c.verdict, Verdict::within_spread);
  EXPECT_FALSE(is_difference(c.verdict));
  EXPECT_DOUBLE_EQ(*c.delta, 2);
  EXPECT_EQ(c.rule, "spread");
}

TEST(Compare, LatencyBeyondItsSpreadIsAChange) {
  const auto c = compare_property("l2", latency(274, 2, 271, 277), latency(300, 2, 297, 303), {});
  EXPECT_EQ(c.verdict, Verdict::changed);
  EXPECT_TRUE(is_difference(c.verdict));
  // The p5-p95 half-widths (3 and 3 cycles) combined.
  EXPECT_NEAR(*c.tolerance, std::sqrt(18.0), 1e-9);
}

TEST(Compare, OverlappingRangesKeepAFarMedianWithinSpread) {
  // Medians apart by far more than their standard deviations, but within the p5-p95 ranges.
  const auto c =
      compare_property("dram", latency(670, 1, 500, 1000), latency(690, 1, 520, 1010), {});
  EXPECT_EQ(c.verdict, Verdict::within_spread);
}

TEST(Compare, OutliersDoNotWidenTheTolerance) {
  // A sim's L1: 33 cycles, p5-p95 32-34, but 0.1 % of loads at +300 give a stdev of 3.4: three
  // of them (10.2 cy) called 33 vs 23 "within spread". The half-widths (1 and 0) do not.
  const auto c = compare_property("l1", latency(33, 3.4, 32, 34), latency(23, 0, 23, 23), {});
  EXPECT_EQ(c.verdict, Verdict::changed);
  EXPECT_NEAR(*c.tolerance, 1.0, 1e-9);
}

TEST(Compare, ZeroSpreadLatencyHasAOnePercentFloor) {
  EXPECT_EQ(
      compare_property("l1", latency(23, 0, 23, 23), latency(23.1, 0, 23.1, 23.1), {}).verdict,
      Verdict::within_spread);
  EXPECT_EQ(compare_property("l1", latency(23, 0, 23, 23), latency(24, 0, 24, 24), {}).verdict,
            Verdict::changed);
}

TEST(Compare, SizeSpreadOfLatenciesDoesNotJudgeTheSize) {
  // A size keeps its search's latencies as its spread (p50 23 cycles): it says nothing about the
  // size, so 32 KiB vs 48 KiB is a change however wide that spread is.
  Property a = exact("size", 32768, "bytes");
  Property b = exact("size", 49152, "bytes");
  a.spread = b.spread = Spread{23, 60, 90, 23, 280, 23, 300, 15000};
  const auto c = compare_property("l1", a, b, {});
  EXPECT_EQ(c.verdict, Verdict::changed);
  EXPECT_EQ(c.rule, "exact");
}

TEST(Compare, SizeWithinTheSearchBracketIsNotAChange) {
  Property a = exact("size", 252064, "bytes");
  Property b = exact("size", 251936, "bytes");
  a.evidence["final_bracket"] = {252032, 252160};
  b.evidence["final_bracket"] = {251904, 252032};
  EXPECT_EQ(compare_property("l1", a, b, {}).verdict, Verdict::within_spread);
  b.value = 245760;
  EXPECT_EQ(compare_property("l1", a, b, {}).verdict, Verdict::changed);
}

TEST(Compare, ExactValuedPropertiesDifferWhenTheyDiffer) {
  EXPECT_EQ(compare_property("l1", exact("ways", 4), exact("ways", 4), {}).verdict, Verdict::same);
  EXPECT_EQ(compare_property("l1", exact("ways", 4), exact("ways", 8), {}).verdict,
            Verdict::changed);
  EXPECT_EQ(compare_property("l1", exact("policy", "lru"), exact("policy", "fifo"), {}).verdict,
            Verdict::changed);
  EXPECT_EQ(compare_property("l1", exact("shared_with", nlohmann::json::array({"tex"})),
                             exact("shared_with", nlohmann::json::array()), {})
                .verdict,
            Verdict::changed);
}

TEST(Compare, ConclusivenessIsItsOwnCategory) {
  Property conclusive = exact("line", 128, "bytes");
  Property inconclusive = exact("line", 256, "bytes");
  inconclusive.inconclusive = true;
  inconclusive.confidence.reset();
  EXPECT_EQ(compare_property("l2", conclusive, inconclusive, {}).verdict,
            Verdict::became_inconclusive);
  EXPECT_EQ(compare_property("l2", inconclusive, conclusive, {}).verdict,
            Verdict::became_conclusive);
  EXPECT_EQ(compare_property("l2", inconclusive, inconclusive, {}).verdict,
            Verdict::both_inconclusive);
  EXPECT_FALSE(is_difference(Verdict::both_inconclusive));
}

TEST(Compare, ConfidenceChangesCountOnlyWhenTheyCross0_5) {
  auto c = compare_property("l1", latency(23, 0, 23, 23, 0.9), latency(23, 0, 23, 23, 0.6), {});
  EXPECT_EQ(c.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(*c.confidence_b, 0.6);
  c = compare_property("l1", latency(23, 0, 23, 23, 0.9), latency(23, 0, 23, 23, 0.4), {});
  EXPECT_EQ(c.verdict, Verdict::confidence_crossed);
  EXPECT_TRUE(is_difference(c.verdict));
}

TEST(Compare, TablesThatDifferAreNotJudged) {
  const auto table = [](int l1) {
    return nlohmann::json::array({{{"l1_bytes", l1}, {"reserved_shared_bytes", 0}}});
  };
  const auto c = compare_property("l1", exact("carveout", table(1)), exact("carveout", table(2)), {});
  EXPECT_EQ(c.verdict, Verdict::not_judged);
  EXPECT_EQ(c.table_rows_differ, "1 of 1 differ");
  EXPECT_EQ(c.table_difference_detail, "row 1 (l1_bytes)");
  // Rows within the 1 % floor agree: the table is within spread, not "not judged".
  EXPECT_EQ(compare_property("l1", exact("carveout", table(10000)), exact("carveout", table(10001)),
                             {})
                .verdict,
            Verdict::within_spread);
}

TEST(Compare, ARunComparedWithItselfHasNoDifferences) {
  const Topology topology = testing::make_sample_topology();
  const Comparison comparison = compare_topologies(topology, "a.json", topology, "a.json");
  EXPECT_FALSE(comparison.has_differences());
  EXPECT_GT(comparison.properties.size(), 5u);
  EXPECT_EQ(comparison.count(Verdict::changed), 0u);
  EXPECT_NE(render_comparison_text(comparison, false).find("agree within their spreads"),
            std::string::npos);
}

TEST(Compare, PropertiesAndProbesPresentInOneRunOnly) {
  const Topology a = testing::make_sample_topology();
  Topology b = a;
  b.elements.front().properties.pop_back();
  b.run.probes.push_back({"new.probe", "ok", ""});
  const Comparison comparison = compare_topologies(a, "a.json", b, "b.json");
  EXPECT_EQ(comparison.count(Verdict::only_in_a), 1u);
  ASSERT_EQ(comparison.probe_changes.size(), 1u);
  EXPECT_EQ(comparison.probe_changes[0].status_a, "");
  EXPECT_TRUE(comparison.has_differences());
}

// The sample's dram.latency has a near and a far mode: the far mode is judged apart, by its own
// spread, and a far mode that only one run found is a difference.
const PropertyComparison* far_mode_row(const Comparison& comparison) {
  for (const PropertyComparison& p : comparison.properties) {
    if (p.element == "dram" && p.property == "latency (far mode)") return &p;
  }
  return nullptr;
}

TEST(Compare, TheFarModeIsJudgedByItsOwnSpread) {
  const Topology a = testing::make_sample_topology();
  Topology b = a;
  Property& latency = *b.elements[3].find("latency");
  ASSERT_EQ(latency.modes.size(), 2u);
  latency.modes[1].value += 300;  // far beyond its p5..p95 of +-80 cycles
  latency.modes[1].spread.p5 += 300;
  latency.modes[1].spread.p95 += 300;
  latency.modes[1].spread.p50 += 300;
  const Comparison changed = compare_topologies(a, "a.json", b, "b.json");
  const PropertyComparison* far = far_mode_row(changed);
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->verdict, Verdict::changed);
  EXPECT_EQ(far->rule, "spread");

  latency.modes.clear();  // one mode in B
  latency.mix.reset();
  // Kept in a variable: a row of a temporary comparison dangles (ASan: heap-use-after-free).
  const Comparison one_mode = compare_topologies(a, "a.json", b, "b.json");
  const PropertyComparison* gone = far_mode_row(one_mode);
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->verdict, Verdict::only_in_a);
}

TEST(Compare, JsonHasItsSchemaAndIsNoTopology) {
  const Topology topology = testing::make_sample_topology();
  const auto document =
      comparison_to_json(compare_topologies(topology, "a.json", topology, "b.json"));
  EXPECT_EQ(document["schema"], kCompareSchema);
  EXPECT_EQ(document["differ"], false);
  std::size_t properties = 0;
  for (const Element& element : topology.elements) {
    for (const Property& property : element.properties) {
      // A row per property, and one per mode after the headline (dram.latency's far mode).
      properties += property.modes.empty() ? 1 : property.modes.size();
    }
  }
  EXPECT_EQ(document["properties"].size(), properties);
  // A comparison given back to compare is refused as not memtopo's topology.
  EXPECT_THROW(topology_from_json_text(document.dump(), "compare.json"), TopologyJsonError);
}

}  // namespace
}  // namespace memtopo
