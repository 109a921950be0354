// latency/'s probes: every level's latency, then the miss penalties derived from two of them.
#include "probes/core/registry.hpp"
#include "probes/latency/latency_probe.hpp"
#include "probes/latency/miss_penalty_probe.hpp"

namespace memtopo {

void register_latency_probes(ProbeList& probes) {
  for (const auto& target : latency_targets())
    probes.push_back(std::make_unique<LatencyProbe>(target));
  for (const auto& target : miss_penalty_targets())
    probes.push_back(std::make_unique<MissPenaltyProbe>(target));
}

}  // namespace memtopo
