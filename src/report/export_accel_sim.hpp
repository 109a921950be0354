#pragma once
// `--export accel-sim FILE`: a GPGPU-Sim / Accel-Sim config fragment (gpgpusim.config options)
// from a measured topology. Every option carries comment lines with its sources, their methods
// and the weakest confidence; an option whose inputs were not measured (or were inconclusive)
// is left out and listed at the end. docs/export.md describes each option's rule.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// What Accel-Sim's tested Hopper config (SM90_H100/gpgpusim.config) has for what memtopo does
// not measure: the write, allocation and set-index letters and the MSHR / queue / port fields
// after the geometry, and the number of L2 slices (-gpgpu_n_mem 40 x 2 sub-partitions per
// channel) that -gpgpu_cache:dl2 describes one of.
inline constexpr const char* kAccelSimHopperDl1Policies = "T:m:L:L";
inline constexpr const char* kAccelSimHopperDl1Rest = "A:512:64,16:0,32";
inline constexpr const char* kAccelSimHopperDl2Policies = "B:m:L:X";
inline constexpr const char* kAccelSimHopperDl2Rest = "A:384:4,32:0,32";
inline constexpr unsigned kAccelSimHopperL2Slices = 80;
// The constant cache's letters and queues after the replacement policy, as Accel-Sim's configs
// (SM7_QV100 onwards) have them: read-only, fetch on miss, no write allocate, linear set index;
// sectored MSHR of 2 entries merging 64; miss queue 4.
inline constexpr const char* kAccelSimConstRest = "R:f:N:L,S:2:64,4";

// The fragment's text: a header naming the run, the options, then "# not measured:" and what
// was left out with the reason.
std::string render_accel_sim_config(const Topology& topology);

}  // namespace memtopo
