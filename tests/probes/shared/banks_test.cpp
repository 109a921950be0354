// Shared-memory bank probes end to end on simulated devices: the bank count and width each
// description configures, and a conflict table whose every degree costs the description's
// latency per pass, within its jitter. A device whose accesses never conflict gives no layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/probe.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kBankProbes = {"shared.banks", "shared.bank_width",
                                              "shared.conflict_latency"};

class BanksOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(BanksOnSim, LayoutAndConflictCostsAsConfigured) {
  const SimTruth truth = read_truth(GetParam());
  const nlohmann::json& shared = truth.description.at("shared_memory");
  const ProbeRun run = run_on_sim(GetParam(), kBankProbes);
  ASSERT_TRUE(run.skipped.empty()) << run.skipped.begin()->second;

  const Property& banks = property(run, "shared", "banks");
  const Property& width = property(run, "shared", "bank_width");
  ASSERT_FALSE(banks.inconclusive) << banks.note;
  ASSERT_FALSE(width.inconclusive) << width.note;
  EXPECT_EQ(banks.value, shared.at("banks"));
  EXPECT_EQ(width.value, shared.at("bank_width_bytes"));
  EXPECT_EQ(width.unit, "bytes");
  // Every pattern agrees, and so do the patterns that tell the layout from its closest rival:
  // two agreement factors, each from the evidence.
  for (const Property* p : {&banks, &width}) {
    ASSERT_TRUE(p->confidence);
    EXPECT_GE(*p->confidence, 0.9) << p->name;
    const auto factors = own_factors(*p);  // bank_width also inherits shared.banks'
    ASSERT_EQ(factors.size(), 2u) << p->name;
    for (const auto& factor : factors) EXPECT_EQ(factor.at("rule"), "agreement");
  }
  EXPECT_EQ(banks.evidence.at("agreeing_patterns"), banks.evidence.at("patterns"));
  EXPECT_EQ(banks.evidence.at("run").at("left_out").size(), 0u);

  const Property& conflicts = property(run, "shared", "conflict_latency");
  ASSERT_FALSE(conflicts.inconclusive) << conflicts.note;
  EXPECT_EQ(conflicts.unit, "cycles");
  ASSERT_TRUE(conflicts.value.is_array());
  ASSERT_EQ(conflicts.value.size(), 32u);
  const double per_pass = shared.at("latency").get<double>();
  for (std::size_t i = 0; i < conflicts.value.size(); ++i) {
    const nlohmann::json& row = conflicts.value[i];
    const double degree = static_cast<double>(i + 1);
    EXPECT_EQ(row.at("degree"), i + 1);
    // p50 of the records minus the p50 of the overhead samples: both jitter.
    EXPECT_NEAR(row.at("cycles").get<double>(), per_pass * degree, 2 * truth.jitter() + 0.5)
        << "degree " << degree;
    EXPECT_GE(row.at("spread").at("samples").get<int>(), 256);
    EXPECT_LE(row.at("spread").at("p5").get<double>(), row.at("cycles").get<double>());
  }
  EXPECT_NEAR(conflicts.evidence.at("per_pass_cycles").get<double>(), per_pass, 0.5);
  ASSERT_TRUE(conflicts.confidence);
  // Its degrees agree; planned from the layout, it is no surer than shared.banks and
  // shared.bank_width (the runner's factor).
  EXPECT_GE(own_confidence(conflicts), 0.9);
  EXPECT_EQ(own_factors(conflicts).size(), 1u);
  EXPECT_LE(*conflicts.confidence, std::min(*banks.confidence, *width.confidence));
}

INSTANTIATE_TEST_SUITE_P(Devices, BanksOnSim,
                         ::testing::Values("sims/hopper-like.json", "tests/sims/tiny.json",
                                           "tests/probes/sims/banks-16x4.json",
                                           "tests/probes/sims/banks-16x8.json",
                                           "tests/probes/sims/banks-32x8.json",
                                           "tests/probes/sims/banks-32x4-noisy.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// A simulated device whose warp accesses all cost the same (or that runs none at all).
class FlatSharedMemory : public Backend, public WarpAccessExperiments {
 public:
  explicit FlatSharedMemory(bool runs_warp_accesses)
      : inner_(make_sim_backend_from_file(source_path("tests/sims/tiny.json"))),
        runs_warp_accesses_(runs_warp_accesses) {}
  std::string_view kind() const override { return inner_->kind(); }
  const DeviceFacts& facts() const override { return inner_->facts(); }
  BackendLimits limits() const override {
    BackendLimits limits = inner_->limits();
    if (!runs_warp_accesses_) limits.max_warp_access_bytes = 0;
    return limits;
  }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override { return inner_->run(batch); }
  WarpAccessExperiments* warp_access() override { return this; }
  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch) override {
    std::vector<WarpAccessSpec> broadcast(batch.begin(), batch.end());
    for (WarpAccessSpec& spec : broadcast) spec.lane_offsets.fill(0);
    return inner_->warp_access()->run_warp_access(broadcast);
  }

 private:
  std::unique_ptr<Backend> inner_;
  bool runs_warp_accesses_;
};

std::map<std::string, std::string> run_bank_probes(Backend& backend, Topology& topology) {
  ProbeContext ctx{backend, topology, [](const std::string&) {}, [] { return false; }, 1, nullptr};
  std::map<std::string, std::string> skipped;
  for (const auto& probe : all_probes()) {
    if (std::find(kBankProbes.begin(), kBankProbes.end(), probe->id()) == kBankProbes.end()) {
      continue;
    }
    try {
      probe->run(ctx);
    } catch (const ProbeSkipped& skip) {
      skipped[probe->id()] = skip.what();
    }
  }
  return skipped;
}

TEST(Banks, AccessesThatNeverConflictGiveNoLayout) {
  FlatSharedMemory backend(true);
  Topology topology;
  EXPECT_TRUE(run_bank_probes(backend, topology).empty());
  const Element* shared = topology.find("shared");
  ASSERT_NE(shared, nullptr);
  for (const char* name : {"banks", "bank_width", "conflict_latency"}) {
    const Property* p = shared->find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_TRUE(p->inconclusive) << name;
    EXPECT_TRUE(p->value.is_null()) << name;
    EXPECT_FALSE(p->confidence) << name << ": an inconclusive finding carries no confidence";
    EXPECT_FALSE(p->note.empty()) << name;
  }
}

TEST(Banks, ABackendWithoutWarpAccessesSkipsTheProbes) {
  FlatSharedMemory backend(false);
  Topology topology;
  const auto skipped = run_bank_probes(backend, topology);
  EXPECT_EQ(skipped.size(), 3u);  // the sweep, and the two planned from what it did not find
  EXPECT_NE(skipped.at("shared.banks").find("no warp-wide shared-memory access"),
            std::string::npos);
  EXPECT_NE(skipped.at("shared.conflict_latency").find("needs the layout"), std::string::npos);
  EXPECT_EQ(topology.find("shared"), nullptr) << "a skipped probe writes no finding";
}

}  // namespace
}  // namespace memtopo::testing
