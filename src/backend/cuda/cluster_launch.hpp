#pragma once
// A launch configuration for thread-block clusters (cudaLaunchKernelEx and the cluster
// occupancy query): one place for the cluster attribute, shared by the DSMEM probe's kernels and
// the sync study's cluster barrier.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memtopo {

// Clusters of up to this many blocks launch without the non-portable opt-in (CUDA guide).
inline constexpr std::uint32_t kPortableClusterSize = 8;

// `blocks` blocks of `threads` threads in 1-D clusters of `cluster_size`, with `shared` bytes of
// dynamic shared memory. Holds the attribute its configuration points at, so it is not copied.
class ClusterLaunch {
 public:
  ClusterLaunch(std::uint32_t blocks, std::uint32_t threads, std::size_t shared,
                std::uint32_t cluster_size) {
    attribute_.id = cudaLaunchAttributeClusterDimension;
    attribute_.val.clusterDim.x = cluster_size;
    attribute_.val.clusterDim.y = 1;
    attribute_.val.clusterDim.z = 1;
    config_.gridDim = dim3(blocks);
    config_.blockDim = dim3(threads);
    config_.dynamicSmemBytes = shared;
    config_.attrs = &attribute_;
    config_.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  const cudaLaunchConfig_t& config() const { return config_; }

 private:
  cudaLaunchAttribute attribute_{};
  cudaLaunchConfig_t config_{};
};

}  // namespace memtopo
