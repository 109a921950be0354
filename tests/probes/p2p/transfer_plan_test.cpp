// A p2p transfer's buffer and passes (probes/p2p/transfer_plan.hpp) on known rates, and the
// family on simulated GPUs whose launches and copies cost a fixed time
// (tests/sims/multi-gpu/two-gpus-h200-like.json): the timed transfers recover the link's
// rate, where one short launch or copy per repetition would read it low; and the latency chased
// from every SM of that description, whose far SMs give a second mode.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_peer_backend.hpp"
#include "model/p2p.hpp"
#include "probes/p2p/p2p_family.hpp"
#include "probes/p2p/p2p_selection.hpp"
#include "probes/p2p/transfer_plan.hpp"
#include "run/context.hpp"

namespace memtopo {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(TransferPlan, AnSmTransferKeepsItsBufferAndPassesOverItForARepetitionsWorth) {
  // 370 GB/s over 256 MiB: 0.73 ms a pass, 35 passes make 25 ms.
  const TransferPlan plan = plan_transfer(TransferEngine::sm, 256 * kMiB, 3.7e11, 8 * kGiB);
  EXPECT_EQ(plan.bytes, 256 * kMiB);
  EXPECT_EQ(plan.passes, 35u);
  EXPECT_GE(static_cast<double>(plan.bytes * plan.passes) / 3.7e11, kSmRepetitionSeconds);
}

TEST(TransferPlan, ACopyGrowsItsBufferToACopysWorthThenMakesPasses) {
  // 390 GB/s: a 5 ms copy is 1.95e9 bytes, 930 pages of 2 MiB; two copies make 10 ms.
  const TransferPlan plan =
      plan_transfer(TransferEngine::copy_engine, 256 * kMiB, 3.9e11, 8 * kGiB);
  EXPECT_EQ(plan.bytes, 930 * kBufferGranule);
  EXPECT_EQ(plan.passes, 2u);
}

TEST(TransferPlan, ACopyBufferStaysWithinWhatTheMemoriesCanSpare) {
  const TransferPlan plan = plan_transfer(TransferEngine::copy_engine, 256 * kMiB, 3.9e11, kGiB);
  EXPECT_EQ(plan.bytes, kGiB);
  EXPECT_EQ(plan.passes, 4u);  // 3.9e9 bytes in 10 ms: four copies of 1 GiB
  // A limit below the first buffer never shrinks it.
  EXPECT_EQ(plan_transfer(TransferEngine::copy_engine, 256 * kMiB, 3.9e11, 0).bytes, 256 * kMiB);
}

TEST(TransferPlan, ASlowLinkMakesOnePassOfTheFirstBuffer) {
  // PCIe gen3 x4 at 4 GB/s: 128 MiB takes 34 ms already.
  for (const TransferEngine engine : {TransferEngine::sm, TransferEngine::copy_engine}) {
    const TransferPlan plan = plan_transfer(engine, 128 * kMiB, 4e9, kGiB);
    EXPECT_EQ(plan.bytes, 128 * kMiB);
    EXPECT_EQ(plan.passes, 1u);
  }
}

TEST(TransferPlan, ARateThatIsNoNumberPlansTheFirstTransferUnchanged) {
  for (const double rate : std::vector<double>{0.0, -1.0, std::nan(""), INFINITY}) {
    const TransferPlan plan = plan_transfer(TransferEngine::sm, 256 * kMiB, rate, kGiB);
    EXPECT_EQ(plan.bytes, 256 * kMiB) << rate;
    EXPECT_EQ(plan.passes, 1u) << rate;
  }
  // An absurd rate is bounded.
  EXPECT_EQ(plan_transfer(TransferEngine::sm, 16, 1e30, kGiB).passes, kMaxPasses);
}

const std::string kCostlySim =
    std::string(MEMTOPO_SOURCE_DIR) + "/tests/sims/multi-gpu/two-gpus-h200-like.json";

P2pReport run_costly_pairs() {
  const auto first_gpu = make_sim_backend_from_file(kCostlySim);
  const auto peers = make_sim_peer_backend_from_file(kCostlySim);
  const sim::SimDescription description = sim::load_description_file(kCostlySim);
  Topology topology;
  RunContext context{.backend = *first_gpu, .topology = topology, .peer_backend = peers.get()};
  std::vector<P2pDevice> devices;
  std::vector<P2pMemorySizes> sizes;
  for (int i = 0; i < peers->device_count(); ++i) {
    devices.push_back({i, i, "sim", ""});
    sizes.push_back({std::uint64_t{256} << 10, description.global_memory_bytes});
  }
  return run_p2p(context, P2pSelection::all(), devices, sizes);
}

TEST(P2pTransfersWithLaunchCosts, TheTimedTransfersRecoverTheLinksRate) {
  const P2pReport report = run_costly_pairs();
  const sim::MultiGpuDescription multi = *sim::load_description_file(kCostlySim).multi_gpu;
  const sim::LinkRates& nvlink = multi.link_between(0, 1)->rates;
  const auto rate = [&](int actor, int memory, const char* name) {
    const Property* property = report.find(actor, memory)->find(name);
    EXPECT_NE(property, nullptr) << name;
    return property ? property->value.get<double>() : 0.0;
  };
  // One 256 MiB launch at 376 GB/s lasts 714 us; its 13 us cost reads 1.8 % low. An SM launch
  // of 25 ms pays 0.05 %, 10 ms of copies at most 0.13 %; the description's jitter is 0.1 %.
  for (const int actor : {0, 1}) {
    EXPECT_NEAR(rate(actor, 1 - actor, p2p_property::kSmRead), nvlink.sm_read_bytes_per_second,
                nvlink.sm_read_bytes_per_second * 0.003);
    EXPECT_NEAR(rate(actor, 1 - actor, p2p_property::kSmWrite), nvlink.sm_write_bytes_per_second,
                nvlink.sm_write_bytes_per_second * 0.003);
    // The 16 GiB GPUs spare 1 GiB per copy buffer: a 2.7 ms copy pays 0.5 % for its 13.5 us
    // setup (a 256 MiB one would pay 2 %).
    EXPECT_NEAR(rate(actor, 1 - actor, p2p_property::kCopyRead), nvlink.copy_read_bytes_per_second,
                nvlink.copy_read_bytes_per_second * 0.007);
    EXPECT_NEAR(rate(actor, 1 - actor, p2p_property::kCopyWrite),
                nvlink.copy_write_bytes_per_second, nvlink.copy_write_bytes_per_second * 0.007);
  }
}

TEST(P2pTransfersWithLaunchCosts, TheEvidenceNamesTheBufferPassesAndFirstRate) {
  const P2pReport report = run_costly_pairs();
  const Property& sm = *report.find(0, 1)->find(p2p_property::kSmRead);
  EXPECT_EQ(sm.evidence.at("buffer_bytes"), 256 * kMiB);
  EXPECT_GE(sm.evidence.at("passes").get<std::uint32_t>(), 35u);
  // The first, single-pass launch read the link 1.8 % low: that is what the passes are for.
  EXPECT_LT(sm.evidence.at("sizing_rate").get<double>(), 3.76e11 * 0.99);
  EXPECT_NE(sm.method.find("passes in one launch"), std::string::npos) << sm.method;
  // Every read shape was timed; the fastest (the description's nvbandwidth-like copy in, 0.2 %
  // ahead of the others: twice its jitter) is kept, the others' rates beside it.
  EXPECT_EQ(sm.evidence.at("read_shape"), "actor_memory_deep");
  EXPECT_NE(sm.method.find("12 loads in flight"), std::string::npos) << sm.method;
  const nlohmann::json& shapes = sm.evidence.at("read_shapes");
  ASSERT_EQ(shapes.size(), std::size(kSmReadShapes)) << shapes.dump();
  for (const auto& [shape, rate] : shapes.items()) {
    EXPECT_LE(rate.get<double>(), sm.value.get<double>()) << shape;
  }
  EXPECT_NE(sm.evidence.at("read_shape"), sm.evidence.at("other_read_shape"));
  const std::string other = sm.evidence.at("other_read_shape").get<std::string>();
  EXPECT_EQ(sm.evidence.at("other_read_shape_rate"), shapes.at(other));
  // 16 GiB GPUs spare 1 GiB per copy buffer, below the 2 GB a 5 ms copy would move.
  const Property& copy = *report.find(0, 1)->find(p2p_property::kCopyRead);
  EXPECT_EQ(copy.evidence.at("buffer_bytes"), kGiB);
  EXPECT_EQ(copy.evidence.at("passes"), 4u);
  EXPECT_NE(copy.method.find("4 copies back to back"), std::string::npos) << copy.method;
  // The slow host link: its first 128 MiB copy lasted 10 ms already, one pass.
  const Property& host = *report.find(0, kHostColumn)->find(p2p_property::kCopyRead);
  EXPECT_EQ(host.evidence.at("passes"), 1u);
  EXPECT_EQ(host.evidence.at("buffer_bytes"), 128 * kMiB);
}

// The far SMs (every other pair of the description's 32) reach the peer's page 52 ns later: the
// chase from every SM finds both modes, the near one the headline, as an H200's did (797 / 849).
TEST(P2pLatencyFromEverySm, TwoModesOfSmsAreBothReported) {
  const P2pReport report = run_costly_pairs();
  const sim::MultiGpuDescription multi = *sim::load_description_file(kCostlySim).multi_gpu;
  const sim::LinkRates& nvlink = multi.link_between(0, 1)->rates;
  const Property& one_page = *report.find(0, 1)->find(p2p_property::kLatencyOnePage);
  ASSERT_TRUE(one_page.seconds_value);
  EXPECT_NEAR(*one_page.seconds_value * 1e9, nvlink.latency_one_page_ns,
              nvlink.latency_one_page_ns * 0.005);
  ASSERT_EQ(one_page.modes.size(), 2u);
  EXPECT_EQ(one_page.modes[0].name, "near");
  EXPECT_NEAR(one_page.modes[0].share, 0.5, 1e-9);  // 16 of 32 SMs
  const double ns_per_cycle = *one_page.seconds_value / one_page.value.get<double>() * 1e9;
  EXPECT_NEAR(one_page.modes[1].value * ns_per_cycle,
              nvlink.latency_one_page_ns + nvlink.far_sms_extra_ns,
              (nvlink.latency_one_page_ns + nvlink.far_sms_extra_ns) * 0.005);
  EXPECT_EQ(one_page.evidence.at("sms"), 32u);
  // The mean over the SMs: nvbandwidth's figure, halfway between the modes.
  EXPECT_NEAR(one_page.evidence.at("mean_over_sms_ns").get<double>(),
              nvlink.latency_one_page_ns + nvlink.far_sms_extra_ns / 2, 2.0);
  ASSERT_TRUE(one_page.confidence);
  EXPECT_GT(*one_page.confidence, 0.5);
  // The host link describes no far SMs: one mode.
  EXPECT_TRUE(report.find(0, kHostColumn)->find(p2p_property::kLatencyOnePage)->modes.empty());
}

}  // namespace
}  // namespace memtopo
