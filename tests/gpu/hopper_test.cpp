// The Hopper probes on the GPU (probes/hopper): distributed shared memory, TMA tile copies and
// the instruction caches. Skipped without a GPU, and with the reason on a device before compute
// capability 9.0. Values are printed for the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "backend/hopper_experiments.hpp"
#include "gpu_fixture.hpp"
#include "probes/core/probe.hpp"

namespace memtopo::testing {
namespace {

class Hopper : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    HopperExperiments* hx = backend().hopper();
    ASSERT_NE(hx, nullptr) << "the CUDA backend implements HopperExperiments";
    if (const std::string why = hx->hopper_unsupported_reason(); !why.empty()) GTEST_SKIP() << why;
  }
  // Runs the probes whose ids are given (in registry order) into `topology`.
  void run_probes(Topology& topology, std::initializer_list<std::string> ids) {
    ProbeContext ctx{backend(), topology, [](const std::string&) {}, [] { return false; },
                     1,         nullptr};
    for (const auto& probe : all_probes()) {
      if (std::find(ids.begin(), ids.end(), probe->id()) != ids.end()) probe->run(ctx);
    }
  }
};

TEST_F(Hopper, RemoteSharedMemoryIsSlowerThanOwnAndEveryBlockHasItsSm) {
  Topology topology;
  run_probes(topology, {"dsmem.latency", "dsmem.bandwidth"});
  const Element* dsmem = topology.find("dsmem");
  ASSERT_NE(dsmem, nullptr);
  const Property* local = dsmem->find("latency_local");
  const Property* remote = dsmem->find("latency_remote");
  const Property* largest = dsmem->find("max_cluster_size");
  ASSERT_TRUE(local && remote && largest);
  std::cout << "[ dsmem ] local " << local->value << " cycles, remote " << remote->value
            << " cycles, max cluster " << largest->value << " (" << largest->evidence.dump()
            << ")\n";
  EXPECT_GT(local->value.get<double>(), 0);
  EXPECT_GT(remote->value.get<double>(), local->value.get<double>());
  EXPECT_GE(largest->value.get<double>(), 8);  // the portable size launches on every Hopper
  const Property* placement = dsmem->find("placement");
  ASSERT_NE(placement, nullptr);
  EXPECT_GE(placement->confidence.value_or(0), kLowConfidence) << placement->value.dump();
  for (const char* name : {"bandwidth_local", "bandwidth_remote"}) {
    const Property* p = dsmem->find(name);
    ASSERT_NE(p, nullptr) << name;
    std::cout << "[ dsmem ] " << name << " " << p->value << " B/s, "
              << p->evidence.at("bytes_per_cycle_per_sm").value("p50", -1.0) << " B/clk/SM\n";
    EXPECT_GT(p->value.get<double>(), 1e9) << name;
  }
}

TEST_F(Hopper, EveryTileCopyCompletes) {
  Topology topology;
  run_probes(topology, {"tma.copy_latency", "tma.copy_throughput"});
  const Element* tma = topology.find("tma");
  ASSERT_NE(tma, nullptr);
  for (const char* name : {"copy_latency", "copy_throughput"}) {
    const Property* p = tma->find(name);
    ASSERT_NE(p, nullptr) << name;
    for (const auto& row : p->value) {
      std::cout << "[ tma ] " << name << " " << row.dump() << "\n";
      ASSERT_FALSE(row.contains("skipped")) << row.dump();
      EXPECT_GT(row.at("p50").get<double>(), 0) << row.dump();
    }
  }
}

TEST_F(Hopper, CodeFetchRunsOnTheSmItIsPinnedTo) {
  HopperExperiments& hx = *backend().hopper();
  const std::vector<std::uint32_t>& ids = backend().limits().sm_ids;
  const std::uint32_t last = ids.empty() ? backend().facts().sm_count - 1 : ids.back();
  CodeFetchSpec spec;
  spec.code_bytes = hx.code_fetch_layout().block_bytes * 4;
  spec.timed_iterations = 8;
  for (const std::uint32_t sm : {ids.empty() ? 0u : ids.front(), last}) {
    spec.sm_id = sm;
    const CodeFetchResult result = hx.run_code_fetch(spec);
    EXPECT_EQ(result.sm_id, sm);
    ASSERT_EQ(result.cycles_per_instruction.size(), 8u);
    EXPECT_GT(result.cycles_per_instruction.front(), 0.5);  // one FFMA per cycle, at best
  }
  spec.sm_id.reset();
  EXPECT_EQ(hx.run_code_fetch(spec).cycles_per_instruction.size(), 8u);
}

// Both code layouts run, and 4 KiB of code (inside any L0) costs the same in each: the second
// copy's never-run pad in front of the body is never run.
TEST_F(Hopper, CodeFetchRunsInEveryLayoutAtTheSameSpeedInsideTheL0) {
  HopperExperiments& hx = *backend().hopper();
  const CodeFetchLayout layout = hx.code_fetch_layout();
  ASSERT_EQ(layout.layouts, 2u);
  CodeFetchSpec spec;
  spec.code_bytes = layout.block_bytes * 4;
  spec.timed_iterations = 16;
  std::vector<double> medians;
  for (std::uint32_t l = 0; l < layout.layouts; ++l) {
    spec.layout = l;
    std::vector<double> cpi = hx.run_code_fetch(spec).cycles_per_instruction;
    ASSERT_EQ(cpi.size(), 16u);
    std::sort(cpi.begin(), cpi.end());
    medians.push_back(cpi[cpi.size() / 2]);
  }
  EXPECT_NEAR(medians[0], medians[1], 0.02 * medians[0]);
  spec.layout = layout.layouts;
  EXPECT_THROW(hx.run_code_fetch(spec), ExperimentError);
}

TEST_F(Hopper, InstructionCacheStepOrInconclusiveWithEvidence) {
  Topology topology;
  run_probes(topology, {"icache_l0.size"});
  const Element* l0 = topology.find("icache_l0");
  ASSERT_NE(l0, nullptr);
  const Property* size = l0->find("size");
  ASSERT_NE(size, nullptr);
  std::cout << "[ icache ] l0 " << size->value << " (inconclusive " << size->inconclusive
            << ") series " << size->evidence.at("series").dump() << "\n";
  ASSERT_FALSE(size->evidence.at("series").empty());
  if (size->inconclusive) return;
  EXPECT_GE(size->value.get<double>(), 1024);
  const Property* penalty = l0->find("miss_penalty");
  ASSERT_NE(penalty, nullptr);
  EXPECT_GT(penalty->value.get<double>(), 0);
  // Its spread: every sample behind minus every one in front, around the value.
  ASSERT_TRUE(penalty->spread.has_value());
  EXPECT_LE(penalty->spread->p5, penalty->value.get<double>());
  EXPECT_GE(penalty->spread->p95, penalty->value.get<double>());
  if (const Element* l1 = topology.find("icache_l1")) {
    EXPECT_GT(l1->find("size")->value.get<double>(), size->value.get<double>());
  }
}

}  // namespace
}  // namespace memtopo::testing
