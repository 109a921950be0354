#pragma once
// What the console says about the GPU's state: a banner when it was shared, MIG, MPS and the
// lock in the device header, and one summary of the conditions under the phases table. Each
// function returns whole lines (ending in a newline), or "" when there is nothing to say.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// "SHARED GPU: ..." above the header of a run measured beside other processes.
std::string shared_gpu_banner(const RunInfo& run);

// "  GPU-...; MIG disabled; MPS inactive; lock /tmp/memtopo-GPU-....lock" (what is known).
std::string gpu_sharing_header(const Topology& topology);

// The device's conditions over the phases (ranges of clocks, temperature and power, the
// slowdowns NVML reported), the phases repeated or marked, and the timing overhead's range.
std::string conditions_summary(const RunInfo& run);

}  // namespace memtopo
