// Barrier kernels of the `sync` study. Each block waits at one barrier so that all start
// together, then thread 0 reads clock64 and %globaltimer around a loop of barriers, unrolled
// kBarrierUnroll times so that the loop's own branch is small beside them. A barrier is a
// side effect the compiler keeps (scripts/checks/check-study-sass counts them in the loop).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cuda/cluster_launch.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/sync_kernels.hpp"

namespace memtopo {

namespace {

namespace cg = cooperative_groups;
namespace sr = special_registers;

// The cluster barrier exists from sm_90 on; below that the kernel is an empty shell the host
// never launches (it checks the compute capability first).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MEMTOPO_HAS_CLUSTER_BARRIER 1
#else
#define MEMTOPO_HAS_CLUSTER_BARRIER 0
#endif

template <BarrierKind kKind>
__device__ __forceinline__ void pass_barrier() {
  if constexpr (kKind == BarrierKind::block) {
    __syncthreads();
  } else if constexpr (kKind == BarrierKind::warp) {
    __syncwarp();
  } else if constexpr (kKind == BarrierKind::grid) {
    cg::this_grid().sync();
  } else {
#if MEMTOPO_HAS_CLUSTER_BARRIER
    cg::this_cluster().sync();
#endif
  }
}

template <BarrierKind kKind>
__global__ void barrier_loop_kernel(std::uint32_t trips, StudyTiming* timings) {
  pass_barrier<kKind>();
  const std::uint64_t cycles_before = sr::clock64_now();
  const std::uint64_t ns_before = sr::globaltimer_ns();
  for (std::uint32_t trip = 0; trip < trips; ++trip) {
#pragma unroll
    for (std::uint32_t i = 0; i < kBarrierUnroll; ++i) pass_barrier<kKind>();
  }
  const std::uint64_t cycles_after = sr::clock64_now();
  const std::uint64_t ns_after = sr::globaltimer_ns();
  if (threadIdx.x == 0) {
    timings[blockIdx.x] =
        StudyTiming{cycles_after - cycles_before, ns_after - ns_before, sr::sm_id(), 0};
  }
}

using BarrierKernel = void (*)(std::uint32_t, StudyTiming*);

BarrierKernel kernel_for(BarrierKind kind) {
  switch (kind) {
    case BarrierKind::block:
      return barrier_loop_kernel<BarrierKind::block>;
    case BarrierKind::warp:
      return barrier_loop_kernel<BarrierKind::warp>;
    case BarrierKind::grid:
      return barrier_loop_kernel<BarrierKind::grid>;
    case BarrierKind::cluster:
      return barrier_loop_kernel<BarrierKind::cluster>;
  }
  return nullptr;
}

// Sizes past the portable maximum need the cluster kernel's opt-in. A device without
// non-portable sizes refuses it: then the occupancy query says 0 clusters and a launch fails with
// its own error, so the refusal itself is not an error.
void allow_cluster_size(std::uint32_t cluster_size) {
  if (cluster_size > kPortableClusterSize &&
      cudaFuncSetAttribute(kernel_for(BarrierKind::cluster),
                           cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
    (void)cudaGetLastError();
  }
}

}  // namespace

std::vector<StudyTiming> launch_barrier_loop(BarrierKind kind, std::uint32_t threads_per_block,
                                             std::uint32_t blocks, std::uint32_t cluster_size,
                                             std::uint32_t barriers) {
  DeviceBuffer<StudyTiming> timings(blocks);
  std::uint32_t trips = barriers / kBarrierUnroll;
  StudyTiming* records = timings.data();
  const BarrierKernel kernel = kernel_for(kind);
  if (kind == BarrierKind::grid) {
    void* arguments[] = {&trips, &records};
    CUDA_CALL(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks),
                                          dim3(threads_per_block), arguments, 0, nullptr));
  } else if (kind == BarrierKind::cluster) {
    allow_cluster_size(cluster_size);
    const ClusterLaunch launch(blocks, threads_per_block, 0, cluster_size);
    CUDA_CALL(cudaLaunchKernelEx(&launch.config(), kernel, trips, records));
  } else {
    kernel<<<blocks, threads_per_block>>>(trips, records);
    CUDA_CHECK_LAUNCH("barrier_loop_kernel");
  }
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<StudyTiming> host(blocks);
  timings.download(host);
  return host;
}

std::uint32_t barrier_blocks_per_sm(BarrierKind kind, std::uint32_t threads_per_block) {
  int blocks = 0;
  CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(kind),
                                                          static_cast<int>(threads_per_block), 0));
  return static_cast<std::uint32_t>(std::max(blocks, 0));
}

std::uint32_t barrier_active_clusters(std::uint32_t cluster_size, std::uint32_t threads_per_block) {
  allow_cluster_size(cluster_size);
  const ClusterLaunch launch(cluster_size, threads_per_block, 0, cluster_size);
  int clusters = 0;
  // A size the device cannot launch is an error here, not a count of 0: say 0.
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel_for(BarrierKind::cluster),
                                     &launch.config()) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return static_cast<std::uint32_t>(std::max(clusters, 0));
}

}  // namespace memtopo
