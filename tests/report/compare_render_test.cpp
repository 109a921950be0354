// What `memtopo compare` prints: a recorded sim run against a recorded H200 run (golden), and the
// table's promises: differences first, 120 columns without cutting, tables summarised, no raw
// JSON, no "-0".
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "golden_file.hpp"
#include "model/json.hpp"
#include "report/compare.hpp"
#include "report/compare_render.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

// The bundled hopper-like sim at 9e979a1 and the H200's default discovery at 2c1f551
// (tests/data/README.md).
const fs::path kSimRun =
    fs::path(MEMTOPO_SOURCE_DIR) / "tests/data/hopper-like-sim-discovery-9e979a1.json.gz";
const fs::path kH200Run = fs::path(MEMTOPO_SOURCE_DIR) / "tests/data/h200-discovery-2c1f551.json.gz";

Topology recorded_run(const fs::path& path) {
  const std::string text = testing::recorded_text(path);
  if (text.empty()) throw std::runtime_error("cannot read " + path.string() + " (gzip?)");
  return topology_from_json_text(text, path.string());
}

const PropertyComparison& find(const Comparison& c, const std::string& element,
                               const std::string& property) {
  for (const PropertyComparison& p : c.properties)
    if (p.element == element && p.property == property) return p;
  throw std::runtime_error("no " + element + "." + property);
}

std::string lines_wider_than(const std::string& text, std::size_t width) {
  std::istringstream in(text);
  std::string wide;
  for (std::string line; std::getline(in, line);)
    if (display_width(line) > width) wide += line + "\n";
  return wide;
}

class SimVersusH200 : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = recorded_run(kSimRun);
    h200_ = recorded_run(kH200Run);
    comparison_ = compare_topologies(sim_, "hopper-like-sim.json", h200_, "h200-2c1f551.json");
  }
  Topology sim_, h200_;
  Comparison comparison_;
};

// The case: 33 vs 23 cycles with 0.1 % of the sim's loads at +300 cycles. Three standard
// deviations (10.2 cy) called it "within spread"; the p5-p95 half-widths (1 and 0) do not.
TEST_F(SimVersusH200, L1And_SharedLatenciesDiffer) {
  const PropertyComparison& l1 = find(comparison_, "l1", "latency");
  EXPECT_EQ(l1.verdict, Verdict::changed);
  EXPECT_NEAR(*l1.tolerance, 1.0, 1e-9);
  EXPECT_EQ(find(comparison_, "shared", "latency").verdict, Verdict::changed);
  // The L2 latency's H200 spread is wide (p5-p95 252-296): 260 vs 274 is within it.
  EXPECT_EQ(find(comparison_, "l2", "latency").verdict, Verdict::within_spread);
}

TEST_F(SimVersusH200, TablesSayWhichRowsDiffer) {
  const PropertyComparison& carveout = find(comparison_, "l1", "carveout");
  EXPECT_EQ(carveout.verdict, Verdict::not_judged);
  EXPECT_EQ(carveout.table_rows_differ, "4 of 5 differ");
  EXPECT_EQ(carveout.table_difference_detail.rfind("rows 2, 3, 4, 5 (l1_bytes", 0), 0u)
      << carveout.table_difference_detail;
}

TEST_F(SimVersusH200, MatchesGolden) {
  testing::expect_matches_golden(render_comparison_text(comparison_, false),
                                 "compare_sim_vs_h200.txt");
}

TEST_F(SimVersusH200, DifferencesFirstWithin120ColumnsNoRawJson) {
  for (bool all : {false, true}) {
    const std::string text = render_comparison_text(comparison_, all);
    EXPECT_EQ(lines_wider_than(text, 120), "") << "all=" << all;
    EXPECT_EQ(text.find('{'), std::string::npos) << "raw JSON in the table";
    EXPECT_EQ(text.find("…"), std::string::npos) << "a cut cell";
    EXPECT_LT(text.find("Differences ("), text.find("Within spread"));
    EXPECT_EQ(text.find("The same (36): --all lists them") != std::string::npos, !all);
  }
  // --all lists the properties that are the same too.
  EXPECT_NE(render_comparison_text(comparison_, true).find("\nl1.size "), std::string::npos);
}

TEST(CompareRender, NoNegativeZero) {
  Property a, b;
  a.name = b.name = "latency";
  a.unit = b.unit = "cycles";
  a.value = 23.0;
  b.value = 22.9996;  // shows as 23 cy; the delta as 0 cy, not -0 cy
  a.confidence = b.confidence = 0.9;
  Comparison comparison;
  comparison.properties.push_back(compare_property("l1", a, b, {}));
  const std::string text = render_comparison_text(comparison, true);
  EXPECT_EQ(text.find("-0"), std::string::npos) << text;
}

}  // namespace
}  // namespace memtopo
