// icache_l0.size end to end on a fake device whose instruction fetch is a known staircase of
// cycles per instruction (the simulated device has no Hopper experiments): clean levels are
// found and conclusive; a step that shows in one code layout only, and a level whose plateau is
// not flat, stay in the findings as inconclusive with the evidence that failed.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/hopper_experiments.hpp"
#include "backend/sim/sim_backend.hpp"
#include "probes/core/probe.hpp"
#include "probes/hopper/icache_probe.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// What the fake device answers: cycles per instruction of `code_bytes` of code in `layout`
// (without jitter; the backend adds 0.2 % per iteration, seeded).
using CodeFetchModel = std::function<double(std::uint64_t code_bytes, std::uint32_t layout)>;

// A staircase: code up to a level's bytes runs at its cycles per instruction (the first level
// that holds it answers; the last holds everything).
struct CodeLevel {
  std::uint64_t bytes;
  double cpi;
};
CodeFetchModel staircase(std::vector<CodeLevel> levels) {
  return [levels](std::uint64_t code_bytes, std::uint32_t) {
    for (const CodeLevel& level : levels) {
      if (code_bytes <= level.bytes) return level.cpi;
    }
    return levels.back().cpi;
  };
}

// The per-size medians an H200 recorded at 2c1f551 (docs/results/nvidia-h200/2026-11-28_2c1f551/
// default.json.gz, icache_l0.size's evidence), as it read in every run since: a step to 1.21 at
// 24 KiB, then 1.30 falling to 1.26 by 31 KiB, a ramp to 2.39, 2.73 over 114-130 KiB and 5.73
// from 147 KiB. A size between two recorded ones answers as the nearest smaller one.
const std::vector<std::pair<std::uint64_t, double>> kH200Medians = {
    {2048, 1.1094}, {3072, 1.0990}, {4096, 1.0938}, {5120, 1.0906}, {6144, 1.1198}, {7168, 1.1138}, {9216, 1.1059}, {11264, 1.1009}, {13312, 1.0974}, {15360, 1.0948}, {19456, 1.0913}, {22528, 1.0895}, {23552, 1.0890}, {24576, 1.2077}, {25600, 1.3025}, {26624, 1.2939}, {31744, 1.2591}, {33792, 1.4489}, {35840, 1.7737}, {37888, 2.0646}, {38912, 2.2307}, {39936, 2.3878}, {41984, 2.4002}, {44032, 2.3961}, {46080, 2.4017}, {48128, 2.3969}, {50176, 2.3935}, {52224, 2.3986}, {54272, 2.3945}, {64512, 2.3941}, {77824, 2.3869}, {92160, 2.3884}, {98304, 2.3875}, {104448, 2.3868}, {109568, 2.3846}, {110592, 2.3861}, {116736, 2.7364}, {122880, 2.7161}, {129024, 2.7020}, {130048, 2.7274}, {135168, 3.6178}, {141312, 4.8846}, {147456, 5.7643}, {153600, 5.7611}, {155648, 5.7604}, {185344, 5.7538}, {220160, 5.7347}, {261120, 5.7245}, {311296, 5.7275}, {370688, 5.7331}, {440320, 5.7333}, {523264, 5.7294}, {524288, 5.7192}};
CodeFetchModel recorded(const std::vector<std::pair<std::uint64_t, double>>& medians) {
  return [medians](std::uint64_t code_bytes, std::uint32_t) {
    double cpi = medians.front().second;
    for (const auto& [bytes, value] : medians) {
      if (bytes <= code_bytes) cpi = value;
    }
    return cpi;
  };
}

// A backend with the simulated device's facts and limits and a code-fetch experiment answered
// by the model; every other Hopper experiment is out of reach (the probe under test never asks).
class FakeCodeFetchBackend final : public Backend, public HopperExperiments {
 public:
  explicit FakeCodeFetchBackend(CodeFetchModel model)
      : sim_(make_sim_backend_from_file(source_path("tests/sims/tiny.json"))),
        model_(std::move(model)) {}

  std::string_view kind() const override { return "fake"; }
  const DeviceFacts& facts() const override { return sim_->facts(); }
  BackendLimits limits() const override { return sim_->limits(); }
  std::vector<Trace> run(std::span<const ChaseSpec>) override {
    throw std::logic_error("the instruction-cache probe runs no chase");
  }

  HopperExperiments* hopper() override { return this; }
  std::string hopper_unsupported_reason() const override { return ""; }
  ClusterLaunchCheck check_cluster_launch(std::uint32_t) override { unreachable(); }
  std::uint32_t occupancy_max_cluster_size() override { unreachable(); }
  ClusterLatencyResult run_cluster_latency(const ClusterLatencySpec&) override { unreachable(); }
  ClusterBandwidthResult run_cluster_bandwidth(const ClusterBandwidthSpec&) override {
    unreachable();
  }
  TileCopyLatencyResult run_tile_copy_latency(const TileCopySpec&) override { unreachable(); }
  TileCopyThroughputResult run_tile_copy_throughput(const TileCopySpec&) override {
    unreachable();
  }

  CodeFetchLayout code_fetch_layout() const override {
    return CodeFetchLayout{1024, 64, 512 * 1024, 2};
  }
  CodeFetchResult run_code_fetch(const CodeFetchSpec& spec) override {
    std::normal_distribution<double> jitter(0, 0.002);
    CodeFetchResult result;
    const double cpi = model_(spec.code_bytes, spec.layout);
    for (std::uint32_t i = 0; i < spec.timed_iterations; ++i) {
      result.cycles_per_instruction.push_back(cpi * (1 + jitter(rng_)));
    }
    layouts_run.insert(spec.layout);
    return result;
  }

  std::set<std::uint32_t> layouts_run;

 private:
  [[noreturn]] static void unreachable() {
    throw std::logic_error("not an instruction-fetch experiment");
  }
  std::unique_ptr<Backend> sim_;
  CodeFetchModel model_;
  std::mt19937 rng_{11};
};

Topology discover_icaches(const CodeFetchModel& model, std::set<std::uint32_t>* layouts = nullptr) {
  FakeCodeFetchBackend backend(model);
  Topology topology;
  topology.device = backend.facts();
  ProbeContext ctx{.backend = backend, .topology = topology};
  make_icache_probe()->run(ctx);
  if (layouts) *layouts = backend.layouts_run;
  return topology;
}

const Property& level(const Topology& topology, const std::string& element,
                      const std::string& name) {
  const Element* e = topology.find(element);
  if (!e || !e->find(name)) throw std::runtime_error("no " + element + "." + name);
  return *e->find(name);
}

const std::vector<CodeLevel> kThreeLevels = {
    {12 * 1024, 1.05}, {48 * 1024, 1.6}, {128 * 1024, 3.2}, {512 * 1024, 6.0}};

TEST(IcacheProbe, CleanLevelsRepeatInBothLayoutsAndAreConclusive) {
  std::set<std::uint32_t> layouts;
  const Topology topology = discover_icaches(staircase(kThreeLevels), &layouts);
  EXPECT_EQ(layouts, (std::set<std::uint32_t>{0, 1}));
  const std::uint64_t expected[] = {12 * 1024, 48 * 1024, 128 * 1024};
  const char* elements[] = {"icache_l0", "icache_l1", "icache_l15"};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(elements[i]);
    const Property& size = level(topology, elements[i], "size");
    EXPECT_FALSE(size.inconclusive) << size.note;
    // The largest code measured at the level's speed: the level's size, or the size before it
    // (the sweep's sizes are rounded down to whole blocks).
    EXPECT_LE(size.value.get<std::uint64_t>(), expected[i]);
    EXPECT_GE(size.value.get<std::uint64_t>(), expected[i] - 2048);
    // One SM (no partition map) in two layouts: two repetitions, both showing the step.
    const nlohmann::json& verdict = size.evidence.at("verdict");
    EXPECT_TRUE(verdict.at("plateau").at("flat").get<bool>());
    ASSERT_EQ(verdict.at("repeated_in").size(), 2u);
    for (const nlohmann::json& r : verdict.at("repeated_in")) {
      EXPECT_EQ(r.at("size_bytes"), size.value) << r.dump();
    }
    // The transition's edge times agreement 2 of 2 (0.75): two repetitions are all it has.
    ASSERT_TRUE(size.confidence.has_value());
    EXPECT_NEAR(*size.confidence, 0.75, 0.01);
    EXPECT_FALSE(level(topology, elements[i], "miss_penalty").inconclusive);
    EXPECT_FALSE(level(topology, elements[i], "cycles_per_instruction").inconclusive);
  }
}

// A step at 96 KiB that only layout 1 shows (where its code crosses something, not a capacity):
// the pooled series has it, but it does not repeat, so that level is inconclusive and says so.
TEST(IcacheProbe, AStepOnlyOneCodeLayoutShowsIsInconclusive) {
  const CodeFetchModel clean = staircase(kThreeLevels);
  const CodeFetchModel model = [clean](std::uint64_t code_bytes, std::uint32_t layout) {
    // Layout 1 alone: 1.6 more from 96 KiB (4.8 against 3.2); pooled, half-way.
    return clean(code_bytes, layout) + (layout == 1 && code_bytes >= 96 * 1024 ? 1.6 : 0.0);
  };
  const Topology topology = discover_icaches(model);
  const Property& l0 = level(topology, "icache_l0", "size");
  const Property& l1 = level(topology, "icache_l1", "size");
  EXPECT_FALSE(l0.inconclusive) << l0.note;
  EXPECT_FALSE(l1.inconclusive) << l1.note;
  const Property& artefact = level(topology, "icache_l15", "size");
  ASSERT_TRUE(artefact.inconclusive);
  EXPECT_FALSE(artefact.confidence.has_value());
  EXPECT_NE(artefact.note.find("showed in 1 of 2 repetitions"), std::string::npos)
      << artefact.note;
  EXPECT_NE(artefact.note.find("layout 0"), std::string::npos) << artefact.note;
  EXPECT_TRUE(level(topology, "icache_l15", "miss_penalty").inconclusive);
}

// The H200's series: its "L1" (24-31 KiB) sits on a plateau that reads 1.21-1.30 around 1.28,
// beyond the +-0.05 a flat one may deviate: inconclusive, with the plateau's range as evidence.
// The 23 KiB and 108 KiB levels are flat and repeat.
TEST(IcacheProbe, TheH200sMiddleLevelIsNotFlatAndInconclusive) {
  const Topology topology = discover_icaches(recorded(kH200Medians));
  const Property& middle = level(topology, "icache_l1", "size");
  ASSERT_TRUE(middle.inconclusive);
  EXPECT_EQ(middle.value.get<std::uint64_t>(), 31744u);
  EXPECT_NE(middle.note.find("not flat"), std::string::npos) << middle.note;
  const nlohmann::json& plateau = middle.evidence.at("verdict").at("plateau");
  EXPECT_FALSE(plateau.at("flat").get<bool>());
  EXPECT_NEAR(plateau.at("lowest").get<double>(), 1.21, 0.01);
  EXPECT_NEAR(plateau.at("highest").get<double>(), 1.30, 0.01);
  EXPECT_TRUE(level(topology, "icache_l1", "cycles_per_instruction").inconclusive);
  EXPECT_TRUE(level(topology, "icache_l1", "miss_penalty").inconclusive);
  for (const auto& [element, bytes] : {std::pair{"icache_l0", 23552u}, {"icache_l15", 110592u}}) {
    SCOPED_TRACE(element);
    const Property& size = level(topology, element, "size");
    EXPECT_FALSE(size.inconclusive) << size.note;
    EXPECT_EQ(size.value.get<std::uint64_t>(), bytes);
  }
}

}  // namespace
}  // namespace memtopo::testing
