#pragma once
// The optional "multi_gpu" part of a simulated device description (docs/sim-format.md): several
// GPUs, each the device the rest of the description describes, their links to each other and to
// the host. The p2p probe family runs on it (sim_peer_backend.hpp) against this ground truth.
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "backend/p2p.hpp"

namespace memtopo::sim {

namespace limits {
inline constexpr std::uint64_t kMaxGpus = 64;
// No link answers in more than a millisecond, nor moves more than 100 TB/s.
inline constexpr double kMaxLinkLatencyNs = 1e6;
inline constexpr double kMaxLinkBytesPerSecond = 1e14;
inline constexpr std::uint64_t kMaxNvLinks = 64;
inline constexpr std::uint64_t kMaxPcieGeneration = 16;
inline constexpr std::uint64_t kMaxPcieWidth = 64;
inline constexpr double kMaxRelativeJitter = 0.5;
}  // namespace limits

// A remote chase over at most this many bytes is one page's, held in the memory's L2.
inline constexpr std::uint64_t kOnePageChainBytes = std::uint64_t{2} << 20;

// How fast one direction of a link (or the host link) answers and moves data.
struct LinkRates {
  double latency_ns = 0;  // a dependent load's round trip, remote memory included
  // The same inside one 2 MiB page the remote L2 holds (a chain of at most kOnePageChainBytes);
  // latency_ns where the description gives none.
  double latency_one_page_ns = 0;
  double sm_read_bytes_per_second = 0;     // the actor's SMs loading the remote memory
  // What each SM read shape reads of sm_read_bytes_per_second (indexed by SmReadShape; 1: all of
  // it): on a real link the shapes differ by tenths of a percent, and the search keeps the fastest.
  double sm_read_shape_factors[std::size(kSmReadShapes)] = {1, 1, 1};
  double sm_write_bytes_per_second = 0;    // the actor's SMs storing to it
  double copy_read_bytes_per_second = 0;   // a copy engine copying remote -> actor
  double copy_write_bytes_per_second = 0;  // actor -> remote
  // Fixed costs that a short transfer pays in full: an SM launch's ramp-up and drain (once per
  // launch, however many passes it makes), and a copy's setup (once per copy). 0: none.
  double sm_launch_overhead_ns = 0;
  double copy_overhead_ns = 0;
  // Added to both latencies from the far SMs, every other pair of SMs (SMs 2-3, 6-7, ...): where
  // an SM sits decides how far its loads travel. 0: every SM alike.
  double far_sms_extra_ns = 0;
};

// A link between two GPUs; it serves both directions alike.
struct GpuLinkDescription {
  int first = 0;
  int second = 0;
  LinkKind kind = LinkKind::nvlink;
  std::uint32_t nvlink_count = 0;
  std::uint32_t nvlink_version = 0;
  bool peer_access = true;  // false: the GPUs cannot map each other's memory (copies staged)
  LinkRates rates;
};

struct HostLinkDescription {
  std::uint32_t pcie_generation = 0;
  std::uint32_t pcie_width = 0;
  LinkRates rates;
};

struct MultiGpuDescription {
  std::uint32_t gpus = 1;
  std::optional<HostLinkDescription> host;
  std::vector<GpuLinkDescription> links;
  // Relative spread of every simulated sample (0.02: uniform within +-2 %).
  double relative_jitter = 0.02;

  // The link between GPUs a and b (either order), or nullptr.
  const GpuLinkDescription* link_between(int a, int b) const;
};

}  // namespace memtopo::sim
