#include "backend/sim/sim_peer_backend.hpp"

#include <algorithm>
#include <cmath>

#include "backend/chain.hpp"
#include "backend/sim/description_loader.hpp"
#include "backend/sim/random_streams.hpp"

namespace memtopo {
namespace {

using sim::LinkRates;
using sim::MultiGpuDescription;

// Cycles = ns x kHz / (ns per ms).
constexpr double kNsPerMillisecond = 1e6;
constexpr double kNsPerSecond = 1e9;
// Separates the p2p family's noise from the chases' and streams' under one seed.
constexpr std::uint64_t kPeerNoiseSalt = 0x5032504E4F495345ull;  // "P2PNOISE"

constexpr const char* kStagedNote = "staged through the host: no peer access";

// A copy between two GPUs without peer access goes through the host: device -> host, then
// host -> device, one after the other, so its time is the sum of the two copies'.
double staged_rate(double first, double second) {
  return 1 / (1 / first + 1 / second);
}

class SimPeerBackend final : public PeerBackend {
 public:
  explicit SimPeerBackend(sim::SimDescription description)
      : clock_khz_(static_cast<double>(description.clock_khz)),
        sm_count_(std::max<std::uint32_t>(description.sm_count, 1)),
        multi_(description.multi_gpu.value_or(MultiGpuDescription{})),
        rng_(sim::derive_seed(description.noise.seed ^ kPeerNoiseSalt, 0)) {}

  std::string_view kind() const override { return "sim"; }
  int device_count() const override { return static_cast<int>(multi_.gpus); }

  bool can_access(int actor, int memory) override {
    check_pair(actor, memory);
    return accessible(actor, memory);
  }

  PeerLink link(int a, int b) override {
    check_pair(a, b);
    PeerLink link;
    if (b == kHostMemory) {
      if (!multi_.host) {
        link.kind = LinkKind::none;
        link.note = "no host link described";
        return link;
      }
      link.kind = LinkKind::pcie;
      link.pcie_generation = multi_.host->pcie_generation;
      link.pcie_width = multi_.host->pcie_width;
      return link;
    }
    const sim::GpuLinkDescription* described = multi_.link_between(a, b);
    if (described == nullptr) {
      link.kind = LinkKind::none;
      link.note = "no link described between the two GPUs";
      return link;
    }
    link.kind = described->kind;
    link.nvlink_count = described->nvlink_count;
    link.nvlink_version = described->nvlink_version;
    return link;
  }

  RemoteChaseResult run_remote_chase(const RemoteChaseSpec& spec) override {
    if (!can_access(spec.reader, spec.memory)) throw no_access(spec.reader, spec.memory);
    const LinkRates* link = rates(spec.reader, spec.memory);
    const double latency_ns = spec.footprint_bytes <= sim::kOnePageChainBytes
                                  ? link->latency_one_page_ns
                                  : link->latency_ns;
    RemoteChaseResult result;
    result.sm_clock_khz = clock_khz_;
    const std::uint32_t sms = spec.every_sm ? sm_count_ : 1;
    for (std::uint32_t sm = 0; sm < sms; ++sm) {
      // One SM alone is SM 0, a near one; every other pair of SMs is far.
      const double extra = (sm / 2) % 2 == 1 ? link->far_sms_extra_ns : 0;
      for (std::uint32_t i = 0; i < spec.samples; ++i) {
        const double ns = jittered(latency_ns + extra);
        result.ns_per_load.push_back(ns);
        result.cycles_per_load.push_back(ns * clock_khz_ / kNsPerMillisecond);
        if (spec.every_sm) result.sm_of_sample.push_back(sm);
      }
    }
    return result;
  }

  TransferResult run_transfer(const TransferSpec& spec) override {
    check_transfer(spec);
    check_pair(spec.actor, spec.memory);
    if (spec.memory == spec.actor) throw PeerExperimentError("a transfer needs two endpoints");
    TransferResult result;
    result.bytes = spec.bytes * spec.passes;
    const double moved = static_cast<double>(result.bytes);
    double seconds = 0;
    if (spec.engine == TransferEngine::sm) {
      if (!can_access(spec.actor, spec.memory)) throw no_access(spec.actor, spec.memory);
      const LinkRates* link = rates(spec.actor, spec.memory);
      const double rate =
          spec.direction == TransferDirection::read
              ? link->sm_read_bytes_per_second *
                    link->sm_read_shape_factors[static_cast<std::size_t>(spec.read_shape)]
              : link->sm_write_bytes_per_second;
      seconds = link->sm_launch_overhead_ns / kNsPerSecond + moved / rate;  // one launch
    } else {
      const CopyPath path = copy_path(spec, result.note);
      seconds = spec.passes * path.overhead_ns / kNsPerSecond + moved / path.rate;  // a copy a pass
    }
    for (std::uint32_t i = 0; i < spec.repetitions; ++i)
      result.seconds.push_back(jittered(seconds));
    return result;
  }

 private:
  void check_pair(int a, int b) const {
    const auto valid = [this](int device) { return device >= 0 && device < device_count(); };
    if (!valid(a) || (!valid(b) && b != kHostMemory)) {
      throw PeerExperimentError("no simulated GPU " + std::to_string(valid(a) ? b : a) +
                                " (the description has " + std::to_string(device_count()) + ")");
    }
  }

  bool accessible(int actor, int memory) const {
    if (memory == kHostMemory) return multi_.host.has_value();
    const sim::GpuLinkDescription* link = multi_.link_between(actor, memory);
    return link != nullptr && link->peer_access;
  }

  static PeerExperimentError no_access(int actor, int memory) {
    return PeerExperimentError(
        "GPU " + std::to_string(actor) + " cannot access the memory of " +
        (memory == kHostMemory ? std::string("the host") : "GPU " + std::to_string(memory)));
  }

  // The described rates of the path from `actor` to `memory`, or nullptr when none is described.
  const LinkRates* rates(int actor, int memory) const {
    if (memory == kHostMemory) return multi_.host ? &multi_.host->rates : nullptr;
    const sim::GpuLinkDescription* link = multi_.link_between(actor, memory);
    return link ? &link->rates : nullptr;
  }

  // A copy's rate and fixed cost on the path from `actor` to `memory`.
  struct CopyPath {
    double rate = 0;
    double overhead_ns = 0;
  };
  CopyPath copy_path(const TransferSpec& spec, std::string& note) const {
    const bool read = spec.direction == TransferDirection::read;
    const auto pick = [read](const LinkRates& rates) {
      return CopyPath{read ? rates.copy_read_bytes_per_second : rates.copy_write_bytes_per_second,
                      rates.copy_overhead_ns};
    };
    if (spec.memory == kHostMemory) {
      if (!multi_.host) throw PeerExperimentError("no host link described");
      return pick(multi_.host->rates);
    }
    if (const sim::GpuLinkDescription* link = multi_.link_between(spec.actor, spec.memory)) {
      if (!link->peer_access) note = kStagedNote;
      return pick(link->rates);
    }
    if (!multi_.host) {
      throw PeerExperimentError("GPUs " + std::to_string(spec.actor) + " and " +
                                std::to_string(spec.memory) +
                                " share no link and no host link is described");
    }
    note = kStagedNote;
    const LinkRates& host = multi_.host->rates;
    // Out of one GPU (its write to the host), into the other (its read from the host).
    return CopyPath{staged_rate(host.copy_write_bytes_per_second, host.copy_read_bytes_per_second),
                    2 * host.copy_overhead_ns};
  }

  // `value` times a uniform factor in [1 - jitter, 1 + jitter].
  double jittered(double value) {
    const double factor = 1 + multi_.relative_jitter * (2 * rng_.uniform() - 1);
    return value * factor;
  }

  double clock_khz_;
  std::uint32_t sm_count_;
  MultiGpuDescription multi_;
  SplitMix64 rng_;
};

}  // namespace

std::unique_ptr<PeerBackend> make_sim_peer_backend_from_file(const std::string& path) {
  return std::make_unique<SimPeerBackend>(sim::load_description_file(path));
}

std::unique_ptr<PeerBackend> make_sim_peer_backend_from_text(const std::string& json_text,
                                                             const std::string& origin) {
  return std::make_unique<SimPeerBackend>(sim::parse_description(json_text, origin));
}

}  // namespace memtopo
