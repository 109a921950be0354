#pragma once
// What the p2p probe family found: for every ordered pair of an acting GPU and a memory (another
// GPU's, or the host's pinned memory), whether the GPU can access it, the link, the latency of a
// dependent load and the bandwidth of SM loads/stores and of copy engines. Reporters read this;
// the JSON form is p2p_to_json (docs/multi-gpu.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"

namespace memtopo {

// The memory column of the host's pinned memory (backend/p2p.hpp's kHostMemory).
inline constexpr int kHostColumn = -1;

// Stable property names of a pair (JSON keys, matrix names).
namespace p2p_property {
inline constexpr const char* kPeerAccess = "peer_access";
inline constexpr const char* kLink = "link";
// A chase across pages beyond both L2s (the latency a random access sees), and one inside a
// single 2 MiB page that the memory's own L2 holds after a warm pass (what nvbandwidth's
// latency test measures).
inline constexpr const char* kLatency = "latency";
inline constexpr const char* kLatencyOnePage = "latency_one_page";
inline constexpr const char* kSmRead = "sm_read_bandwidth";
inline constexpr const char* kSmWrite = "sm_write_bandwidth";
inline constexpr const char* kCopyRead = "copy_read_bandwidth";
inline constexpr const char* kCopyWrite = "copy_write_bandwidth";
// Whether `name` is one of the latencies (reported in seconds, from seconds_value).
inline bool is_latency(const std::string& name) {
  return name == kLatency || name == kLatencyOnePage;
}
}  // namespace p2p_property

struct P2pDevice {
  int position = 0;    // row and column of the matrices
  int cuda_index = 0;  // the index --device takes
  std::string name;
  std::string uuid;
};

// GPU `actor` working on the memory of GPU `memory` (or kHostColumn).
struct P2pPair {
  int actor = 0;
  int memory = 0;
  std::vector<Property> properties;

  const Property* find(const std::string& name) const;
  Property& set(Property property);  // adds or replaces by name
};

struct P2pReport {
  std::vector<P2pDevice> devices;
  std::vector<P2pPair> pairs;        // actor-major, memory GPUs in order, then the host
  std::vector<ProbeOutcome> probes;  // p2p.peer_access, p2p.link, ...
  std::vector<PhaseTiming> phases;   // per probe
  double duration_seconds = 0;
  std::vector<std::string> warnings;

  const P2pPair* find(int actor, int memory) const;
};

// {"devices": [...], "pairs": [...], "matrices": {...}, "probes": [...], ...}: every pair's
// properties in the form of a topology's, and one matrix per property (rows: acting GPUs,
// columns: memory GPUs then "host"; null where nothing was measured).
nlohmann::ordered_json p2p_to_json(const P2pReport& report);
// Reads p2p_to_json's form back (the matrices are derived, so not read); a missing or mistyped
// key is a TopologyJsonError naming `origin` (p2p_read.cpp).
P2pReport p2p_from_json(const nlohmann::ordered_json& json, const std::string& origin);

// The number a matrix shows for a property (a latency's seconds, a bandwidth's bytes/second,
// peer access's true/false, the link's text); nullopt (JSON null) when there is none.
nlohmann::ordered_json matrix_value(const Property& property);

}  // namespace memtopo
