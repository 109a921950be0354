// constant_l1.line and constant_l15.line end to end on simulated devices: one cold 4 B-stride
// ld.const chase after the constant staircase. Every expectation comes from the description file.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/probe.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kIds = {"constant_l1.size", "constant_l1.line"};
// Each run here stays well under the suite's per-test budget.
constexpr double kMaxSeconds = 0.5;

double line_of(const SimTruth& truth, const std::string& cache) {
  return truth.cache(cache).at("line_bytes").get<double>();
}

void expect_line(const ProbeRun& run, const std::string& element, double truth_bytes) {
  SCOPED_TRACE(element);
  const Property& line = property(run, element, "line");
  ASSERT_TRUE(line.value.is_number()) << line.note;
  EXPECT_FALSE(line.inconclusive);
  EXPECT_EQ(line.value.get<double>(), truth_bytes);
  ASSERT_TRUE(line.confidence.has_value());
  EXPECT_GT(*line.confidence, 0.9);
  EXPECT_EQ(line.evidence.at("confidence_factors").at(0).at("rule"), "share");
}

class ConstantLineOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(ConstantLineOnSim, BothLinesFromOneColdChase) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), kIds);
  EXPECT_TRUE(run.skipped.empty());
  expect_line(run, "constant_l1", line_of(truth, "constant L1"));
  expect_line(run, "constant_l15", line_of(truth, "constant L1.5"));
  const Property& line = property(run, "constant_l1", "line");
  EXPECT_EQ(line.evidence.at("stride_bytes"), 4);
  EXPECT_LT(run.seconds, kMaxSeconds);
}

INSTANTIATE_TEST_SUITE_P(Descriptions, ConstantLineOnSim,
                         ::testing::Values("sims/hopper-like.json",
                                           "tests/probes/sims/maxwell-like.json"),
                         [](const ::testing::TestParamInfo<std::string>& description) {
                           return sim_file_test_name(description.param);
                         });

TEST(ConstantLine, SkipsWithoutTheConstantStaircase) {
  const ProbeRun run = run_on_sim("sims/hopper-like.json", {"constant_l1.line"});
  ASSERT_EQ(run.skipped.count("constant_l1.line"), 1u);
  EXPECT_NE(run.skipped.at("constant_l1.line").find("constant_l1.size"), std::string::npos);
}

// A simulated device with another constant bank, and (optionally) constant chases that arrive
// warm whatever they ask: what a GPU whose bank was not cold would show.
class AlteredBackend : public Backend {
 public:
  AlteredBackend(Backend& inner, std::uint64_t bank_bytes, bool warm_constant)
      : inner_(inner), bank_bytes_(bank_bytes), warm_constant_(warm_constant) {}
  std::string_view kind() const override { return inner_.kind(); }
  const DeviceFacts& facts() const override { return inner_.facts(); }
  BackendLimits limits() const override {
    BackendLimits limits = inner_.limits();
    limits.max_constant_footprint_bytes = bank_bytes_;
    return limits;
  }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    std::vector<ChaseSpec> specs(batch.begin(), batch.end());
    for (ChaseSpec& spec : specs) {
      if (spec.path != LoadPath::constant) continue;
      largest_constant_footprint = std::max(largest_constant_footprint, spec.footprint_bytes);
      if (warm_constant_) spec.warm_passes = std::max(spec.warm_passes, 1u);
    }
    return inner_.run(specs);
  }
  double current_sm_clock_khz() override { return inner_.current_sm_clock_khz(); }

  std::uint64_t largest_constant_footprint = 0;

 private:
  Backend& inner_;
  std::uint64_t bank_bytes_;
  bool warm_constant_;
};

// Runs the staircase and the line probe on hopper-like through an AlteredBackend.
Topology run_altered(AlteredBackend& backend) {
  Topology topology;
  topology.device = backend.facts();
  ProbeContext ctx{backend, topology, [](const std::string&) {}, [] { return false; }, 1, nullptr};
  for (const auto& probe : all_probes()) {
    if (std::find(kIds.begin(), kIds.end(), probe->id()) != kIds.end()) probe->run(ctx);
  }
  return topology;
}

TEST(ConstantLine, FootprintKeepsToASmallerBank) {
  // 8 KiB: four constant L1s, half the footprint the probe would plan, still 32 L1.5 lines.
  constexpr std::uint64_t kBankBytes = 8192;
  const SimTruth truth = read_truth("sims/hopper-like.json");
  auto sim = make_sim_backend_from_file(source_path("sims/hopper-like.json"));
  AlteredBackend backend(*sim, kBankBytes, false);
  const Topology topology = run_altered(backend);
  EXPECT_LE(backend.largest_constant_footprint, kBankBytes);
  const Property* l1 = topology.find("constant_l1")->find("line");
  const Property* l15 = topology.find("constant_l15")->find("line");
  ASSERT_TRUE(l1 && l15);
  EXPECT_EQ(l1->evidence.at("footprint_bytes"), kBankBytes);
  ASSERT_TRUE(l1->value.is_number()) << l1->note;
  ASSERT_TRUE(l15->value.is_number()) << l15->note;
  EXPECT_EQ(l1->value.get<double>(), line_of(truth, "constant L1"));
  EXPECT_EQ(l15->value.get<double>(), line_of(truth, "constant L1.5"));
}

TEST(ConstantLine, WarmBankBeyondL1IsInconclusiveNotGuessed) {
  // A warm pass over 16 KiB leaves every line in hopper-like's 32 KiB L1.5: the timed pass has
  // no access beyond it, so its line cannot be read; L1 (2 KiB) still misses once per line.
  const SimTruth truth = read_truth("sims/hopper-like.json");
  auto sim = make_sim_backend_from_file(source_path("sims/hopper-like.json"));
  AlteredBackend backend(*sim, sim->limits().max_constant_footprint_bytes, true);
  const Topology topology = run_altered(backend);
  const Property* l1 = topology.find("constant_l1")->find("line");
  const Property* l15 = topology.find("constant_l15")->find("line");
  ASSERT_TRUE(l1 && l15);
  ASSERT_TRUE(l1->value.is_number()) << l1->note;
  EXPECT_EQ(l1->value.get<double>(), line_of(truth, "constant L1"));
  EXPECT_TRUE(l15->inconclusive);
  EXPECT_TRUE(l15->value.is_null());
  EXPECT_NE(l15->note.find("not cold"), std::string::npos) << l15->note;
}

}  // namespace
}  // namespace memtopo::testing
