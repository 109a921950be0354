// The p2p family on a simulated set of GPUs (tests/sims/multi-gpu/three-gpus.json: GPUs 0-1 on
// NVLink, 1-2 on PCIe with peer access, 0-2 unlinked, a host link): every value against the
// description's ground truth.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_peer_backend.hpp"
#include "model/p2p.hpp"
#include "probes/core/runner.hpp"
#include "probes/p2p/p2p_family.hpp"
#include "probes/p2p/p2p_selection.hpp"

namespace memtopo {
namespace {

const std::string kSim = std::string(MEMTOPO_SOURCE_DIR) + "/tests/sims/multi-gpu/three-gpus.json";
// The description's relative jitter is 2 %: medians land well within 3 %.
constexpr double kTolerance = 0.03;

struct Fixture {
  sim::SimDescription description = sim::load_description_file(kSim);
  std::unique_ptr<PeerBackend> backend = make_sim_peer_backend_from_file(kSim);
  P2pReport report;

  explicit Fixture(const P2pSelection& selection = P2pSelection::all()) {
    std::vector<P2pDevice> devices;
    std::vector<std::uint64_t> l2;
    for (int i = 0; i < backend->device_count(); ++i) {
      devices.push_back({i, i, "sim", ""});
      l2.push_back(std::uint64_t{256} << 10);
    }
    report = run_p2p(*backend, selection, devices, l2, P2pContext{});
  }
  const Property& property(int actor, int memory, const char* name) const {
    const P2pPair* pair = report.find(actor, memory);
    EXPECT_NE(pair, nullptr);
    const Property* found = pair->find(name);
    EXPECT_NE(found, nullptr) << name;
    return *found;
  }
  const sim::MultiGpuDescription& multi() const { return *description.multi_gpu; }
};

double number(const Property& property) {
  return property.value.get<double>();
}

TEST(P2pFamily, EveryOrderedPairAndTheHostIsMeasured) {
  Fixture f;
  EXPECT_EQ(f.report.pairs.size(), 3u * 2 + 3);  // n (n - 1) pairs and n GPU-host pairs
  for (const ProbeOutcome& outcome : f.report.probes)
    EXPECT_EQ(outcome.status, "ok") << outcome.probe_id;
  EXPECT_EQ(f.report.probes.size(), std::size(kP2pProbes));
}

TEST(P2pFamily, LatencyRecoversTheDescribedLinkLatency) {
  Fixture f;
  const double nvlink_ns = f.multi().link_between(0, 1)->rates.latency_ns;
  const double pcie_ns = f.multi().link_between(1, 2)->rates.latency_ns;
  const double host_ns = f.multi().host->rates.latency_ns;
  const double clock_khz = static_cast<double>(f.description.clock_khz);
  for (const auto& [actor, memory, ns] : {std::tuple{0, 1, nvlink_ns},
                                          {1, 0, nvlink_ns},
                                          {1, 2, pcie_ns},
                                          {2, 1, pcie_ns},
                                          {0, kHostColumn, host_ns}}) {
    const Property& latency = f.property(actor, memory, p2p_property::kLatency);
    ASSERT_TRUE(latency.seconds_value);
    EXPECT_NEAR(*latency.seconds_value * 1e9, ns, ns * kTolerance) << actor << "->" << memory;
    EXPECT_EQ(latency.unit, "cycles");
    EXPECT_NEAR(number(latency), ns * clock_khz / 1e6, ns * clock_khz / 1e6 * kTolerance);
    ASSERT_TRUE(latency.spread);
    EXPECT_EQ(latency.spread->samples, 32u);
    ASSERT_TRUE(latency.confidence);
    EXPECT_GT(*latency.confidence, 0.9);  // every sample within 10 % of the median
    EXPECT_TRUE(latency.evidence.contains("confidence_factors"));
  }
}

TEST(P2pFamily, BandwidthsRecoverTheDescribedRates) {
  Fixture f;
  const sim::LinkRates& nvlink = f.multi().link_between(0, 1)->rates;
  const sim::LinkRates& host = f.multi().host->rates;
  const auto expect_rate = [&](int actor, int memory, const char* name, double expected) {
    const Property& rate = f.property(actor, memory, name);
    EXPECT_EQ(rate.unit, "bytes/second");
    EXPECT_NEAR(number(rate), expected, expected * kTolerance) << name << " " << actor;
    ASSERT_TRUE(rate.confidence);
  };
  expect_rate(0, 1, p2p_property::kSmRead, nvlink.sm_read_bytes_per_second);
  expect_rate(1, 0, p2p_property::kSmWrite, nvlink.sm_write_bytes_per_second);
  expect_rate(0, 1, p2p_property::kCopyRead, nvlink.copy_read_bytes_per_second);
  expect_rate(1, 0, p2p_property::kCopyWrite, nvlink.copy_write_bytes_per_second);
  expect_rate(2, kHostColumn, p2p_property::kSmRead, host.sm_read_bytes_per_second);
  expect_rate(2, kHostColumn, p2p_property::kCopyRead, host.copy_read_bytes_per_second);
  expect_rate(2, kHostColumn, p2p_property::kCopyWrite, host.copy_write_bytes_per_second);
}

TEST(P2pFamily, APairWithoutPeerAccessIsReportedAsSuch) {
  Fixture f;
  EXPECT_FALSE(f.property(0, 2, p2p_property::kPeerAccess).value.get<bool>());
  EXPECT_TRUE(f.property(0, 1, p2p_property::kPeerAccess).value.get<bool>());
  EXPECT_EQ(f.property(0, 2, p2p_property::kLink).value, "none");
  EXPECT_EQ(f.property(0, 1, p2p_property::kLink).value, "NVLink x18 (v4)");
  for (const char* name : {p2p_property::kLatency, p2p_property::kSmRead, p2p_property::kSmWrite}) {
    const Property& property = f.property(2, 0, name);
    EXPECT_TRUE(property.inconclusive) << name;
    EXPECT_TRUE(property.value.is_null());
    EXPECT_FALSE(property.confidence);  // no conclusion, no confidence
    EXPECT_NE(property.note.find("no peer access"), std::string::npos);
  }
  // Copies still run, staged through the host: device -> host, then host -> device.
  const sim::LinkRates& host = f.multi().host->rates;
  const double staged =
      1 / (1 / host.copy_write_bytes_per_second + 1 / host.copy_read_bytes_per_second);
  const Property& copy = f.property(0, 2, p2p_property::kCopyRead);
  EXPECT_NEAR(number(copy), staged, staged * kTolerance);
  EXPECT_NE(copy.note.find("staged"), std::string::npos);
}

TEST(P2pFamily, TheMatricesHoldEveryPairAsData) {
  Fixture f;
  const nlohmann::ordered_json json = p2p_to_json(f.report);
  const auto& latency = json["matrices"]["latency"];
  EXPECT_EQ(latency["unit"], "seconds");
  EXPECT_EQ(latency["columns"].size(), 4u);        // GPUs 0-2 and the host
  EXPECT_TRUE(latency["values"][0][0].is_null());  // the diagonal
  EXPECT_TRUE(latency["values"][0][2].is_null());  // no peer access
  EXPECT_NEAR(latency["values"][0][1].get<double>(), 800e-9, 800e-9 * kTolerance);
  EXPECT_EQ(json["matrices"]["peer_access"]["values"][2][0], false);
  EXPECT_EQ(json["pairs"].size(), 9u);
  EXPECT_EQ(json["pairs"][2]["memory"], "host");
}

TEST(P2pFamily, OnlyTheSelectedProbesRun) {
  P2pSelection selection;
  selection.link = true;
  Fixture f(selection);
  ASSERT_EQ(f.report.probes.size(), 1u);
  EXPECT_EQ(f.report.probes[0].probe_id, "p2p.link");
  EXPECT_EQ(f.report.find(0, 1)->find(p2p_property::kLatency), nullptr);
}

TEST(P2pSelection, SplitsP2pIdsFromThePerGpuProbes) {
  SplitSelection all = split_selection({});
  EXPECT_TRUE(all.run_device_probes);
  EXPECT_TRUE(all.p2p.copy_bandwidth && all.p2p.latency);

  SplitSelection only_p2p = split_selection({"p2p"});
  EXPECT_FALSE(only_p2p.run_device_probes);
  EXPECT_TRUE(only_p2p.p2p.link);

  SplitSelection mixed = split_selection({"l1.size", "p2p.latency"});
  EXPECT_TRUE(mixed.run_device_probes);
  EXPECT_EQ(mixed.device_ids, std::vector<std::string>{"l1.size"});
  EXPECT_TRUE(mixed.p2p.latency);
  EXPECT_TRUE(mixed.p2p.peer_access);  // what latency needs
  EXPECT_FALSE(mixed.p2p.copy_bandwidth);

  EXPECT_THROW(split_selection({"p2p.bogus"}), SelectionError);
}

}  // namespace
}  // namespace memtopo
