// tlb/'s probes: the TLB row (reach, entries, page, ways, sets and miss penalty of every level,
// DRAM latency under TLB misses).
#include "probes/core/registry.hpp"
#include "probes/core/staircase_probe.hpp"

namespace memtopo {

void register_tlb_probes(ProbeList& probes) {
  probes.push_back(staircase_probe("tlb_l1.reach"));
}

}  // namespace memtopo
