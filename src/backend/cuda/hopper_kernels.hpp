#pragma once
// Host entry points of the Hopper kernels (cluster_kernels.cu, tile_copy_kernels.cu,
// code_fetch_kernel.cu): each launches, waits and returns its result. Plain C++; the CUDA
// backend forwards HopperExperiments (backend/hopper_experiments.hpp) to them.
#include <cstdint>

#include "backend/cuda/cluster_launch.hpp"
#include "backend/hopper_experiments.hpp"

namespace memtopo {

ClusterLaunchCheck cluster_launch_check(std::uint32_t cluster_size);
std::uint32_t cluster_max_potential_size();
ClusterLatencyResult cluster_latency(const ClusterLatencySpec& spec);
ClusterBandwidthResult cluster_bandwidth(const ClusterBandwidthSpec& spec);

TileCopyLatencyResult tile_copy_latency(const TileCopySpec& spec);
TileCopyThroughputResult tile_copy_throughput(const TileCopySpec& spec, std::uint32_t sm_count);

CodeFetchLayout code_fetch_layout();
// `sm_count`: the grid of a pinned launch is twice it (see code_fetch_kernel.cu).
CodeFetchResult code_fetch(const CodeFetchSpec& spec, std::uint32_t sm_count);

}  // namespace memtopo
