#pragma once
// Distributed shared memory (thesis 004, 6.3.2): dsmem.latency and dsmem.bandwidth.
#include <memory>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

// dsmem.latency (also latency_remote, max_cluster_size, placement), then dsmem.bandwidth.
std::vector<std::unique_ptr<Probe>> dsmem_probes();

}  // namespace memtopo
