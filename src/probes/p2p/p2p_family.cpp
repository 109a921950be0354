#include "probes/p2p/p2p_family.hpp"

#include <algorithm>
#include <exception>

#include "probes/core/findings.hpp"
#include "probes/p2p/p2p_values.hpp"
#include "probes/p2p/transfer_plan.hpp"
#include "run/clock.hpp"
#include "run/phase.hpp"

namespace memtopo {
namespace {

static_assert(kHostColumn == kHostMemory, "the model's host column is the backend's host memory");

// The latency chain spans this many times the larger L2 (and at least kMinChaseFootprint), so
// that nearly every load misses both GPUs' L2 and answers from the remote memory.
constexpr std::uint64_t kChaseFootprintPerL2 = 2;
constexpr std::uint64_t kMinChaseFootprint = std::uint64_t{64} << 20;
// Elements on distinct 128-byte lines and sectors; 512 B also spreads them over DRAM channels.
constexpr std::uint32_t kChaseStrideBytes = 512;
// From every SM in turn (RemoteChaseSpec::every_sm), 4 samples of 64 dependent loads after a
// warm group of 64: ~0.3 ms per SM at ~1 us per remote load, 40 ms for 132 SMs.
constexpr std::uint32_t kChaseLoadsPerSample = 64;
constexpr std::uint32_t kChaseSamples = 4;
// The chase inside one page: 2 MiB (the GPUs' large page, and nvbandwidth's latency buffer),
// 256 elements; the first SM's loads visit every one before the later SMs' timed ones.
constexpr std::uint64_t kOnePageBytes = std::uint64_t{2} << 20;
constexpr std::uint32_t kOnePageElements = 256;
constexpr std::uint32_t kOnePageStrideBytes =
    static_cast<std::uint32_t>(kOnePageBytes / kOnePageElements);
// The first transfer's buffer: beyond both L2s, so that an SM's passes over it reach the memory;
// its rate sizes the timed transfers (transfer_plan.hpp).
constexpr std::uint64_t kPeerTransferBytes = std::uint64_t{256} << 20;
// The host link is ~10x slower: half the bytes still take several milliseconds.
constexpr std::uint64_t kHostTransferBytes = std::uint64_t{128} << 20;
// The first transfer: one warm-up (the mapping's first touch), one timed repetition.
constexpr std::uint32_t kSizingWarmups = 1;
constexpr std::uint32_t kSizingRepetitions = 1;
// Timed repetitions (transfer_plan.hpp: 25 ms an SM launch, 10 ms of copies), queued after a
// one-pass warm-up so that they run back to back.
constexpr std::uint32_t kTransferWarmups = 1;
constexpr std::uint32_t kTransferRepetitions = 5;
// A copy's buffers (one in each memory) take at most this share of the smaller GPU's memory;
// a host buffer at most this share of the acting GPU's (pinned host memory is taken from the
// operating system, so it stays as small as the device side's).
constexpr std::uint64_t kMemoryShare = 16;

const char* memory_text(int memory) {
  return memory == kHostMemory ? "the host" : "GPU";
}

std::string pair_text(const P2pDevice& actor, int memory, const std::vector<P2pDevice>& devices) {
  std::string text = "GPU " + std::to_string(actor.cuda_index) + " -> ";
  if (memory == kHostMemory) return text + memory_text(memory);
  return text + memory_text(memory) + " " + std::to_string(devices[memory].cuda_index);
}

// What one probe does for one pair; throws PeerExperimentError for a pair it cannot measure.
using PairStep = std::function<void(P2pPair& pair)>;

class FamilyRun {
 public:
  FamilyRun(const RunContext& context, const std::vector<P2pDevice>& devices,
            const std::vector<P2pMemorySizes>& sizes)
      : context_(context), devices_(devices), sizes_(sizes) {
    for (const P2pDevice& actor : devices_) {
      for (const P2pDevice& memory : devices_) {
        if (memory.position != actor.position) add_pair(actor.position, memory.position);
      }
      add_pair(actor.position, kHostMemory);
    }
  }

  // Runs `step` on every pair as probe `id`: one phase and one outcome in the report.
  void probe(const char* id, const PairStep& step) {
    if (stopped_ || context_.interrupted()) {
      stopped_ = true;
      report_.probes.push_back({id, "not_run", "interrupted"});
      return;
    }
    context_.progress(std::string("running ") + id);
    probe_id_ = id;
    std::size_t failures = 0;
    std::string failure;
    PhaseTiming phase(id);  // between devices: no one SM clock to read
    time_phase(phase, nullptr, [&] {
      for (P2pPair& pair : report_.pairs) {
        try {
          context_.check_interrupted();
          step(pair);
        } catch (const Interrupted&) {
          stopped_ = true;
          break;
        } catch (const std::exception& error) {
          ++failures;
          failure = pair_text(devices_[pair.actor], pair.memory, devices_) + ": " + error.what();
          report_.warnings.push_back(std::string(id) + ": " + failure);
        }
      }
    });
    report_.phases.push_back(phase);
    if (stopped_) {
      report_.probes.push_back({id, "not_run", "interrupted"});
    } else if (failures > 0 && failures == report_.pairs.size()) {
      report_.probes.push_back({id, "failed", failure});
    } else {
      report_.probes.push_back({id, "ok", ""});
    }
  }

  // The engine's experiments, labelled with the running probe's id.
  RemoteChaseResult remote_chase(const RemoteChaseSpec& spec) const {
    return context_.run_remote_chase(spec, probe_id_);
  }
  TransferResult transfer(const TransferSpec& spec) const {
    return context_.run_transfer(spec, probe_id_);
  }
  bool accessible(const P2pPair& pair) const {
    const Property* access = pair.find(p2p_property::kPeerAccess);
    return access && access->value.is_boolean() && access->value.get<bool>();
  }
  std::uint64_t chase_footprint(const P2pPair& pair) const {
    std::uint64_t l2 = size_of(pair.actor).l2_bytes;
    if (pair.memory != kHostMemory) l2 = std::max(l2, size_of(pair.memory).l2_bytes);
    return std::max(kMinChaseFootprint, kChaseFootprintPerL2 * l2);
  }
  // The largest copy buffer the pair's memories can spare (kMemoryShare).
  std::uint64_t buffer_limit(const P2pPair& pair) const {
    std::uint64_t memory = size_of(pair.actor).memory_bytes;
    if (pair.memory != kHostMemory) memory = std::min(memory, size_of(pair.memory).memory_bytes);
    return memory / kMemoryShare;
  }
  std::uint64_t next_seed() { return context_.seed + seeds_used_++; }
  P2pReport take() { return std::move(report_); }

 private:
  void add_pair(int actor, int memory) { report_.pairs.push_back(P2pPair{actor, memory, {}}); }
  const P2pMemorySizes& size_of(int device) const {
    return sizes_.at(static_cast<std::size_t>(device));
  }

  const RunContext& context_;
  const std::vector<P2pDevice>& devices_;
  const std::vector<P2pMemorySizes>& sizes_;
  P2pReport report_;
  std::string probe_id_;
  bool stopped_ = false;
  std::uint64_t seeds_used_ = 0;
};

const char* kNoAccess = "no peer access: the acting GPU's SMs cannot address this memory";

// Two latencies: across pages beyond both L2s (what a random access sees), and inside one page
// that the memory's L2 holds (what nvbandwidth reports; an H200 pair read 933 against its 829 ns
// from one SM). Each from every SM of the reader in turn: an H200's SMs reach a peer's page in
// one of two times, 794-807 or 845-858 ns, half of them each; nvbandwidth's 827 is their mean.
void measure_latency(FamilyRun& run, P2pPair& pair) {
  const RemoteChaseSpec across{pair.actor,        pair.memory,          run.chase_footprint(pair),
                               kChaseStrideBytes, kChaseLoadsPerSample, kChaseSamples,
                               run.next_seed(),   /*every_sm=*/true};
  const RemoteChaseSpec one_page{pair.actor,          pair.memory,          kOnePageBytes,
                                 kOnePageStrideBytes, kChaseLoadsPerSample, kChaseSamples,
                                 run.next_seed(),     /*every_sm=*/true};
  for (const auto& [name, spec] : {std::pair{p2p_property::kLatency, across},
                                   std::pair{p2p_property::kLatencyOnePage, one_page}}) {
    if (!run.accessible(pair)) {
      pair.set(inconclusive_property(name, "cycles", "dependent pointer chase", kNoAccess));
      continue;
    }
    pair.set(latency_property(name, spec, run.remote_chase(spec)));
  }
}

// A bandwidth property's value, 0 where it is inconclusive.
double rate_of(const Property& property) {
  return property.value.is_number() ? property.value.get<double>() : 0.0;
}

// The first transfer's rate (bytes per second), or 0 when it took no measurable time.
double first_rate(const TransferResult& result) {
  if (result.seconds.empty() || !(result.seconds.front() > 0)) return 0;
  return static_cast<double>(result.bytes) / result.seconds.front();
}

// The launch shape search of an SM read: every SmReadShape timed, the fastest kept; the others'
// rates in its evidence (`read_shapes`), the fastest of them also as `other_read_shape`.
Property fastest_read_shape(FamilyRun& run, const char* name, TransferSpec spec,
                            double sizing_rate) {
  struct Timed {
    SmReadShape shape;
    Property property;
  };
  std::vector<Timed> timed;
  for (const SmReadShape shape : kSmReadShapes) {
    spec.read_shape = shape;
    timed.push_back({shape, bandwidth_property(name, spec, run.transfer(spec), sizing_rate)});
  }
  std::stable_sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
    return rate_of(a.property) > rate_of(b.property);
  });
  Property kept = std::move(timed.front().property);
  nlohmann::json shapes = nlohmann::json::object();
  shapes[to_string(timed.front().shape)] = kept.value;
  for (std::size_t i = 1; i < timed.size(); ++i) {
    shapes[to_string(timed[i].shape)] = timed[i].property.value;
  }
  kept.evidence["other_read_shape"] = to_string(timed[1].shape);
  kept.evidence["other_read_shape_rate"] = timed[1].property.value;
  kept.evidence["read_shapes"] = std::move(shapes);
  return kept;
}

void measure_transfers(FamilyRun& run, P2pPair& pair, TransferEngine engine) {
  const bool sm = engine == TransferEngine::sm;
  for (const TransferDirection direction : {TransferDirection::read, TransferDirection::write}) {
    const bool read = direction == TransferDirection::read;
    const char* name = sm ? (read ? p2p_property::kSmRead : p2p_property::kSmWrite)
                          : (read ? p2p_property::kCopyRead : p2p_property::kCopyWrite);
    if (sm && !run.accessible(pair)) {
      pair.set(inconclusive_property(name, "bytes/second", "SM loads and stores", kNoAccess));
      continue;
    }
    const std::uint64_t base = pair.memory == kHostMemory ? kHostTransferBytes : kPeerTransferBytes;
    const TransferSpec sizing{pair.actor,     pair.memory,       engine, direction, base,
                              kSizingWarmups, kSizingRepetitions};
    const double sizing_rate = first_rate(run.transfer(sizing));
    const TransferPlan plan = plan_transfer(engine, base, sizing_rate, run.buffer_limit(pair));
    TransferSpec spec{pair.actor,       pair.memory,          engine,     direction, plan.bytes,
                      kTransferWarmups, kTransferRepetitions, plan.passes};
    if (sm && read) {
      pair.set(fastest_read_shape(run, name, spec, sizing_rate));
      continue;
    }
    pair.set(bandwidth_property(name, spec, run.transfer(spec), sizing_rate));
  }
}

}  // namespace

P2pReport run_p2p(const RunContext& context, const P2pSelection& selection,
                  const std::vector<P2pDevice>& devices, const std::vector<P2pMemorySizes>& sizes) {
  const auto start = Clock::now();
  PeerDevices& peers = context.peers();
  FamilyRun run(context, devices, sizes);
  const std::string_view kind = peers.kind();
  if (selection.peer_access) {
    run.probe("p2p.peer_access", [&](P2pPair& pair) {
      const bool host = pair.memory == kHostMemory;
      pair.set(peer_access_property(peers.can_access(pair.actor, pair.memory), host, kind));
    });
  }
  if (selection.link) {
    run.probe("p2p.link", [&](P2pPair& pair) {
      const bool host = pair.memory == kHostMemory;
      pair.set(link_property(peers.link(pair.actor, pair.memory), host, kind));
    });
  }
  if (selection.latency) {
    run.probe("p2p.latency", [&](P2pPair& pair) { measure_latency(run, pair); });
  }
  if (selection.sm_bandwidth) {
    run.probe("p2p.sm_bandwidth",
              [&](P2pPair& pair) { measure_transfers(run, pair, TransferEngine::sm); });
  }
  if (selection.copy_bandwidth) {
    run.probe("p2p.copy_bandwidth",
              [&](P2pPair& pair) { measure_transfers(run, pair, TransferEngine::copy_engine); });
  }
  P2pReport report = run.take();
  report.devices = devices;
  report.duration_seconds = seconds_since(start);
  return report;
}

}  // namespace memtopo
