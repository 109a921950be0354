#pragma once
// The p2p probe family's ids and how --only selects them beside the per-GPU probes.
#include <string>
#include <vector>

namespace memtopo {

struct P2pProbeInfo {
  const char* id;
  const char* description;
  const char* needs;  // "" or the probe whose result it plans from
};

// In run order. The element id "p2p" selects all of them.
inline constexpr P2pProbeInfo kP2pProbes[] = {
    {"p2p.peer_access", "whether each GPU's SMs can access each other GPU's memory and the host's",
     ""},
    {"p2p.link", "the link of every pair of GPUs and of each GPU to the host (NVML)", ""},
    {"p2p.latency", "dependent-load latency of a GPU's SM on another GPU's (or host) memory",
     "p2p.peer_access"},
    {"p2p.sm_bandwidth",
     "read and write bandwidth of a GPU's SMs on another GPU's (or host) memory",
     "p2p.peer_access"},
    {"p2p.copy_bandwidth", "read and write bandwidth of copy engines (cudaMemcpyPeerAsync, pinned)",
     ""},
};
inline constexpr const char* kP2pElementId = "p2p";

struct P2pSelection {
  bool peer_access = false;
  bool link = false;
  bool latency = false;
  bool sm_bandwidth = false;
  bool copy_bandwidth = false;

  bool any() const { return peer_access || link || latency || sm_bandwidth || copy_bandwidth; }
  static P2pSelection all() { return {true, true, true, true, true}; }
};

// --only split into the per-GPU probes' ids and the p2p family's.
struct SplitSelection {
  std::vector<std::string> device_ids;  // for select_probes; empty with run_device_probes: all
  bool run_device_probes = true;        // false: --only named p2p ids only
  P2pSelection p2p;
};

// An empty `only` selects everything. An id starting with "p2p." that names no p2p probe throws
// SelectionError (probes/core/runner.hpp). Probes a selected one needs are selected too.
SplitSelection split_selection(const std::vector<std::string>& only);

}  // namespace memtopo
