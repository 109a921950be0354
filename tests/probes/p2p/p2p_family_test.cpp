// The p2p family on a simulated set of GPUs (tests/sims/multi-gpu/three-gpus.json: GPUs 0-1 on
// NVLink, 1-2 on PCIe with peer access, 0-2 unlinked, a host link): every value against the
// description's ground truth.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_peer_backend.hpp"
#include "model/p2p.hpp"
#include "probes/core/runner.hpp"
#include "probes/p2p/p2p_family.hpp"
#include "probes/p2p/p2p_selection.hpp"
#include "run/context.hpp"
#include "run/trace_sink.hpp"

namespace memtopo {
namespace {

const std::string kSim = std::string(MEMTOPO_SOURCE_DIR) + "/tests/sims/multi-gpu/three-gpus.json";
// The description's relative jitter is 2 %: medians land well within 3 %.
constexpr double kTolerance = 0.03;

// The engine's context of a multi-device run: the first GPU's device and topology, the
// described GPUs as its peers.
struct PeerRun {
  PeerRun() = default;
  PeerRun(const PeerRun&) = delete;  // the context refers to the members
  PeerRun& operator=(const PeerRun&) = delete;

  std::unique_ptr<Backend> first_gpu = make_sim_backend_from_file(kSim);
  std::unique_ptr<PeerBackend> peers = make_sim_peer_backend_from_file(kSim);
  Topology topology;
  RunContext context{.backend = *first_gpu, .topology = topology, .peer_backend = peers.get()};

  P2pReport run(const P2pSelection& selection = P2pSelection::all()) const {
    std::vector<P2pDevice> devices;
    std::vector<P2pMemorySizes> sizes;
    for (int i = 0; i < peers->device_count(); ++i) {
      devices.push_back({i, i, "sim", ""});
      sizes.push_back({std::uint64_t{256} << 10, std::uint64_t{1} << 30});
    }
    return run_p2p(context, selection, devices, sizes);
  }
};

struct Fixture {
  sim::SimDescription description = sim::load_description_file(kSim);
  P2pReport report;

  explicit Fixture(const P2pSelection& selection = P2pSelection::all())
      : report(PeerRun{}.run(selection)) {}
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
    // From each of the description's 4 SMs in turn, 4 samples each; every SM alike here.
    EXPECT_EQ(latency.spread->samples, 16u);
    EXPECT_EQ(latency.evidence.at("sms"), 4u);
    EXPECT_TRUE(latency.modes.empty());
    ASSERT_TRUE(latency.confidence);
    EXPECT_GT(*latency.confidence, 0.9);  // every sample within 10 % of the median
    EXPECT_TRUE(latency.evidence.contains("confidence_factors"));
  }
}

// Inside one page the described one-page latency (700 ns on the NVLink); where a link describes
// none (the PCIe link, the host), the chase finds the same latency as across pages.
TEST(P2pFamily, TheOnePageLatencyIsReportedBesideTheOneAcrossPages) {
  Fixture f;
  for (const auto& [actor, memory, ns] :
       {std::tuple{0, 1, 700.0}, {1, 0, 700.0}, {1, 2, 1900.0}, {0, kHostColumn, 1500.0}}) {
    const Property& one_page = f.property(actor, memory, p2p_property::kLatencyOnePage);
    ASSERT_TRUE(one_page.seconds_value);
    EXPECT_NEAR(*one_page.seconds_value * 1e9, ns, ns * kTolerance) << actor << "->" << memory;
    EXPECT_NE(one_page.method.find("one 2 MiB page"), std::string::npos) << one_page.method;
    const Property& across = f.property(actor, memory, p2p_property::kLatency);
    EXPECT_NE(across.method.find("across pages"), std::string::npos) << across.method;
  }
  EXPECT_TRUE(f.property(0, 2, p2p_property::kLatencyOnePage).inconclusive);  // no peer access
  const nlohmann::json json = p2p_to_json(f.report);
  EXPECT_EQ(json["matrices"]["latency_one_page"]["unit"], "seconds");
  EXPECT_NEAR(json["matrices"]["latency_one_page"]["values"][0][1].get<double>(), 700e-9,
              700e-9 * kTolerance);
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

// Counts what reaches the engine's trace sink, per kind and per label.
class CountingSink : public TraceSink {
 public:
  void record_experiment(const std::string& label, const Experiment& experiment) override {
    ++total;
    if (std::holds_alternative<RemoteChaseRecord>(experiment)) ++remote_chases;
    if (std::holds_alternative<TransferRecord>(experiment)) ++transfers;
    ++per_label[label];
  }
  int total = 0;
  int remote_chases = 0;
  int transfers = 0;
  std::map<std::string, int> per_label;
};

// Every experiment of the family goes through the engine: on the three described GPUs, 7 pairs
// have peer access (0<->1, 1<->2 and each GPU with the host): 14 remote chases (across pages and
// in one page) and 14 SM transfers; copies run on all 9 pairs (staged without access): 18. Each
// transfer is two experiments, a first short one whose rate plans the timed one, and an SM read
// times three shapes (loads alone, copied in, copied in nvbandwidth's way): 2 x 7 more.
TEST(P2pFamilyThroughTheEngine, EveryExperimentReachesTheSinkAndTheClockLog) {
  PeerRun run;
  CountingSink sink;
  run.context.traces = &sink;
  const P2pReport report = run.run();
  EXPECT_EQ(sink.remote_chases, 14);
  EXPECT_EQ(sink.transfers, 2 * (14 + 18) + 2 * 7);
  EXPECT_EQ(sink.total, sink.remote_chases + sink.transfers);
  EXPECT_EQ(sink.per_label["p2p.latency"], 14);
  EXPECT_EQ(sink.per_label["p2p.sm_bandwidth"], 2 * 14 + 2 * 7);
  EXPECT_EQ(sink.per_label["p2p.copy_bandwidth"], 2 * 18);
  // Each remote chase measured its reader's SM clock (the description's).
  const std::vector<double>& clocks = run.context.sm_clocks->readings();
  ASSERT_EQ(clocks.size(), 14u);
  const double clock_khz = static_cast<double>(sim::load_description_file(kSim).clock_khz);
  for (const double khz : clocks) EXPECT_NEAR(khz, clock_khz, clock_khz * kTolerance);
  // What the sink saw is what the report holds: one measured value per chase, one per planned
  // transfer (and its read's other two shapes).
  int measured = 0;
  for (const P2pPair& pair : report.pairs) {
    for (const Property& property : pair.properties) {
      const bool experiment =
          property.name != p2p_property::kPeerAccess && property.name != p2p_property::kLink;
      measured += experiment && !property.inconclusive;
    }
  }
  EXPECT_EQ(measured, sink.remote_chases + (sink.transfers - 2 * 7) / 2);
}

TEST(P2pFamilyThroughTheEngine, AStopSignalEndsTheFamilyAtTheNextExperiment) {
  PeerRun run;
  CountingSink sink;
  run.context.traces = &sink;
  run.context.interrupted = [&sink] { return sink.total >= 3; };
  const P2pReport report = run.run();
  EXPECT_EQ(sink.total, 3);
  ASSERT_EQ(report.probes.size(), std::size(kP2pProbes));
  EXPECT_EQ(report.probes[0].status, "ok");  // access and links: no experiment
  EXPECT_EQ(report.probes[1].status, "ok");
  for (std::size_t i = 2; i < report.probes.size(); ++i) {
    EXPECT_EQ(report.probes[i].status, "not_run") << report.probes[i].probe_id;
    EXPECT_EQ(report.probes[i].reason, "interrupted");
  }
  EXPECT_TRUE(report.warnings.empty());  // a stop is not a failure of the pair
}

TEST(P2pFamilyThroughTheEngine, ARunWithoutPeerGpusIsSkipped) {
  PeerRun run;
  run.context.peer_backend = nullptr;
  EXPECT_THROW(run.run(), Skipped);
  const TransferSpec copy{0, 1, TransferEngine::copy_engine, TransferDirection::read, 4096, 0, 1};
  EXPECT_THROW(run.context.run_transfer(copy), Skipped);
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
