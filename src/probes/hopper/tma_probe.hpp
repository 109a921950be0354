#pragma once
// TMA (thesis 004, 6.3.2): tma.copy_latency and tma.copy_throughput of tiles global -> shared
// by 1D bulk copies, 2D tensor copies and plain loads.
#include <memory>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

std::vector<std::unique_ptr<Probe>> tma_probes();

}  // namespace memtopo
