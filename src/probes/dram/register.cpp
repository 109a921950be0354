// dram/'s probes: the latency of every L1 / L2 / DRAM and TLB hit-miss combination, planned from
// the TLB levels.
#include "probes/core/registry.hpp"
#include "probes/dram/latency_patterns_probe.hpp"

namespace memtopo {

void register_dram_probes(ProbeList& probes) {
  probes.push_back(std::make_unique<LatencyPatternsProbe>());
}

}  // namespace memtopo
