#pragma once
// How probes register and in which order they run. Each folder defines its own
// register_<folder>_probes (in <folder>/register.cpp), which adds the probes defined there;
// registry.cpp calls every folder's function once (an explicit call, not a static initializer:
// a static library drops objects nothing references, and with them such initializers) and
// hands the list to run_order. A new probe is added by its folder's function; needs() places it.
#include <memory>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

using ProbeList = std::vector<std::unique_ptr<Probe>>;

// Every probe after every probe it needs(), and otherwise in registration order: a topological
// sort (Kahn's) that takes, each time, the earliest-registered probe whose needs have all run.
// A registration order that already respects needs() comes back unchanged. A need that no probe
// of the list provides is left to the runner (--only may leave it out); a cycle throws
// std::logic_error naming the probes on it.
ProbeList run_order(ProbeList registered);

// Every folder's probes in registration order, before run_order: what probe_registered
// (core/sm_caches) reads, since some needs() ask it and all_probes() calls needs().
ProbeList registered_probes();

// The folders' registration functions, called in this order (registry.cpp); the order is only
// the tie-break among probes whose needs allow either: an SM-local cache's questions first, the
// device-wide ones, then the experiments of their own (banks, Hopper), the TLB row last (its
// chains take most of device memory; on a simulated device its chases draw their noise after
// every other probe's) and what is planned from it.
void register_size_probes(ProbeList& probes);       // size/: l1, tex, ro
void register_line_probes(ProbeList& probes);       // line/: sector and line of every cache
void register_latency_probes(ProbeList& probes);    // latency/: latencies, miss penalties
void register_constant_probes(ProbeList& probes);   // constant/: the constant caches
void register_l2_probes(ProbeList& probes);         // l2/: size, partitions, map, segments
void register_geometry_probes(ProbeList& probes);   // geometry/: ways, sets, bits, policy
void register_sharing_probes(ProbeList& probes);    // sharing/: shared_with, count, carveout
void register_bandwidth_probes(ProbeList& probes);  // bandwidth/
void register_shared_probes(ProbeList& probes);     // shared/: banks
void register_hopper_probes(ProbeList& probes);     // hopper/: clusters, TMA, icache
void register_tlb_probes(ProbeList& probes);        // tlb/: the TLB row
void register_dram_probes(ProbeList& probes);       // dram/: latency patterns

}  // namespace memtopo
