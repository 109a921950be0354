// Distributed shared memory (thesis 004, 6.3.2): thread-block clusters whose blocks read each
// other's shared memory. A latency kernel (one block of the cluster chases a ring in its own
// and in every other block's shared memory) and a bandwidth kernel (every block streams its
// neighbour's or its own shared memory), both launched with cudaLaunchKernelEx and a cluster
// dimension. The PTX needs sm_90; built for an older architecture the kernels do nothing.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cluster_launch.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/hopper_kernels.hpp"
#include "backend/cuda/hopper_ptx.cuh"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

namespace cg = cooperative_groups;
using hopper_ptx::cluster_address;
using special_registers::clock64_now;
using special_registers::globaltimer_ns;
using special_registers::shared_address;
using special_registers::sm_id;

// One warp per block for the latency kernel: lane 0 of rank 0 chases, the others build rings.
constexpr std::uint32_t kLatencyThreads = 32;
constexpr std::uint32_t kStreamMaxThreads = 1024;
constexpr std::uint32_t kVectorBytes = 16;
// The largest cluster the CUDA programming model allows with the non-portable opt-in; a size
// beyond it is rejected by the launch itself.
constexpr std::uint32_t kClusterDimLimit = 32;

struct LatencyArgs {
  std::uint32_t ring_elements;
  std::uint32_t stride_words;
  std::uint32_t warm_loads;
  std::uint32_t loads_per_sample;
  std::uint32_t samples;
  unsigned long long* sample_cycles;  // [rank][sample]
  std::uint32_t* rank_sm;             // [rank]
};

struct StreamArgs {
  std::uint32_t vectors;  // 16-byte words of each block's buffer
  std::uint32_t passes;
  std::uint32_t remote;
  unsigned long long* block_cycles;  // [block]
  unsigned long long* block_ns;      // [block]: %globaltimer over the same loop
  std::uint32_t* block_sm;           // [block]
  std::uint32_t* sink;
};

// Lane 0 of rank 0: warm, then time `samples` runs of dependent loads through `target`'s ring.
__device__ void time_rank(const LatencyArgs& a, const std::uint32_t* ring, std::uint32_t target,
                          std::uint32_t sink) {
  std::uint32_t p = cluster_address(shared_address(ring), target);
#pragma unroll 1
  for (std::uint32_t k = 0; k < a.warm_loads; ++k) p = hopper_ptx::load_cluster(p);
#pragma unroll 1
  for (std::uint32_t s = 0; s < a.samples; ++s) {
    const std::uint64_t start = clock64_now();
#pragma unroll 4
    for (std::uint32_t k = 0; k < a.loads_per_sample; ++k) p = hopper_ptx::load_cluster(p);
    hopper_ptx::store_shared(sink, p);  // the clock below waits for the last load
    const std::uint64_t end = clock64_now();
    __stcg(a.sample_cycles + target * a.samples + s, end - start);
  }
}

__global__ void __launch_bounds__(kLatencyThreads) cluster_latency_kernel(const LatencyArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) std::uint32_t ring[];
  __shared__ std::uint32_t sink;
  cg::cluster_group cluster = cg::this_cluster();
  const std::uint32_t rank = cluster.block_rank();
  // Each element holds the shared::cluster address of the next one in this block's memory.
  for (std::uint32_t i = threadIdx.x; i < a.ring_elements; i += blockDim.x) {
    const std::uint32_t next = (i + 1) % a.ring_elements;
    ring[i * a.stride_words] = cluster_address(shared_address(ring + next * a.stride_words), rank);
  }
  if (threadIdx.x == 0) __stcg(a.rank_sm + rank, sm_id());
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    for (std::uint32_t target = 0; target < cluster.num_blocks(); ++target)
      time_rank(a, ring, target, shared_address(&sink));
  }
  cluster.sync();  // every ring stays until rank 0 is done with it
#endif
}

__global__ void __launch_bounds__(kStreamMaxThreads) cluster_stream_kernel(const StreamArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) uint4 buffer[];
  cg::cluster_group cluster = cg::this_cluster();
  for (std::uint32_t i = threadIdx.x; i < a.vectors; i += blockDim.x)
    buffer[i] = make_uint4(i, i + 1, i + 2, i + 3);
  cluster.sync();
  const std::uint32_t rank = cluster.block_rank();
  const std::uint32_t target = a.remote ? (rank + 1) % cluster.num_blocks() : rank;
  const std::uint32_t base = cluster_address(shared_address(buffer), target);
  const std::uint64_t ns_start = globaltimer_ns();
  const std::uint64_t start = clock64_now();
  std::uint32_t folded = 0;
#pragma unroll 1
  for (std::uint32_t pass = 0; pass < a.passes; ++pass) {
#pragma unroll 4
    for (std::uint32_t i = threadIdx.x; i < a.vectors; i += blockDim.x)
      folded += hopper_ptx::load_cluster_v4(base + i * kVectorBytes);
  }
  __syncthreads();
  const std::uint64_t end = clock64_now();
  const std::uint64_t ns_end = globaltimer_ns();
  if (folded == 0xFFFFFFFFu) __stcg(a.sink, folded);  // keeps every load live
  if (threadIdx.x == 0) {
    __stcg(a.block_cycles + blockIdx.x, static_cast<unsigned long long>(end - start));
    __stcg(a.block_ns + blockIdx.x, static_cast<unsigned long long>(ns_end - ns_start));
    __stcg(a.block_sm + blockIdx.x, sm_id());
  }
  cluster.sync();  // this block's buffer stays until its neighbour is done with it
#endif
}

template <typename Args>
cudaError_t launch_clustered(void (*kernel)(Args), std::uint32_t cluster_size,
                             std::uint32_t clusters, std::uint32_t threads, std::size_t shared,
                             const Args& args) {
  const ClusterLaunch launch(cluster_size * clusters, threads, shared, cluster_size);
  return cudaLaunchKernelEx(&launch.config(), kernel, args);
}

// Sets what a launch of `kernel` in clusters of `cluster_size` with `shared` bytes needs: the
// non-portable opt-in above the portable size, the dynamic shared memory limit.
template <typename Args>
void allow_clusters(void (*kernel)(Args), std::uint32_t cluster_size, std::size_t shared) {
  if (cluster_size > kPortableClusterSize) {
    CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared)));
}

// Clusters of `cluster_size` blocks of `kernel` that fit on the device at once (0: none), with
// the non-portable opt-in set where the size needs it. Errors come back as the reason.
template <typename Args>
std::uint32_t max_active_clusters(void (*kernel)(Args), std::uint32_t cluster_size,
                                  std::uint32_t threads, std::size_t shared, std::string& reason) {
  allow_clusters(kernel, cluster_size, shared);
  const ClusterLaunch launch(cluster_size, threads, shared, cluster_size);
  int clusters = 0;
  const cudaError_t status = cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it for the next call
    reason = std::string("cudaOccupancyMaxActiveClusters: ") + cudaGetErrorName(status) + " (" +
             cudaGetErrorString(status) + ")";
    return 0;
  }
  if (clusters == 0) reason = "cudaOccupancyMaxActiveClusters: no cluster of this size fits";
  return static_cast<std::uint32_t>(clusters);
}

constexpr ClusterLatencySpec kDefaultLatencyShape{};

}  // namespace

ClusterLaunchCheck cluster_launch_check(std::uint32_t cluster_size) {
  ClusterLaunchCheck check;
  check.cluster_size = cluster_size;
  check.non_portable = cluster_size > kPortableClusterSize;
  if (cluster_size == 0 || cluster_size > kClusterDimLimit) {
    check.reason =
        "outside the cluster sizes CUDA accepts (1.." + std::to_string(kClusterDimLimit) + ")";
    return check;
  }
  check.max_active_clusters =
      max_active_clusters(cluster_latency_kernel, cluster_size, kLatencyThreads,
                          kDefaultLatencyShape.ring_bytes, check.reason);
  check.launchable = check.max_active_clusters > 0;
  return check;
}

std::uint32_t cluster_max_potential_size() {
  CUDA_CALL(cudaFuncSetAttribute(cluster_latency_kernel,
                                 cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kClusterDimLimit);
  config.blockDim = dim3(kLatencyThreads);
  config.dynamicSmemBytes = kDefaultLatencyShape.ring_bytes;
  int size = 0;
  CUDA_CALL(cudaOccupancyMaxPotentialClusterSize(&size, cluster_latency_kernel, &config));
  return static_cast<std::uint32_t>(size);
}

ClusterLatencyResult cluster_latency(const ClusterLatencySpec& spec) {
  if (spec.stride_bytes < 4 || spec.stride_bytes % 4 != 0 ||
      spec.ring_bytes < 2 * spec.stride_bytes || spec.samples == 0 || spec.loads_per_sample == 0) {
    throw ExperimentError(
        "cluster latency: the stride must be a multiple of 4 B, the ring hold "
        "at least two elements, samples and loads at least one");
  }
  const std::uint32_t size = spec.cluster_size;
  DeviceBuffer<unsigned long long> cycles(std::size_t{size} * spec.samples);
  DeviceBuffer<std::uint32_t> rank_sm(size);
  const LatencyArgs args{spec.ring_bytes / spec.stride_bytes,
                         spec.stride_bytes / 4,
                         spec.warm_loads,
                         spec.loads_per_sample,
                         spec.samples,
                         cycles.data(),
                         rank_sm.data()};
  // Launch success decides (dsmem.max_cluster_size): no occupancy query first.
  allow_clusters(cluster_latency_kernel, size, spec.ring_bytes);
  const cudaError_t status =
      launch_clustered(cluster_latency_kernel, size, 1, kLatencyThreads, spec.ring_bytes, args);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw ExperimentError("a cluster of " + std::to_string(size) +
                          " blocks did not launch: " + cudaGetErrorName(status));
  }
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<unsigned long long> host_cycles(cycles.size());
  std::vector<std::uint32_t> host_sm(size);
  cycles.download(host_cycles);
  rank_sm.download(host_sm);
  ClusterLatencyResult result;
  result.cluster_size = size;
  for (std::uint32_t rank = 0; rank < size; ++rank) {
    RankLatency r;
    r.rank = rank;
    r.sm_id = host_sm[rank];
    for (std::uint32_t s = 0; s < spec.samples; ++s)
      r.cycles_per_load.push_back(static_cast<double>(host_cycles[rank * spec.samples + s]) /
                                  spec.loads_per_sample);
    result.ranks.push_back(std::move(r));
  }
  return result;
}

ClusterBandwidthResult cluster_bandwidth(const ClusterBandwidthSpec& spec) {
  if (spec.bytes_per_block % kVectorBytes != 0 || spec.threads == 0 ||
      spec.threads > kStreamMaxThreads || spec.timed_launches == 0) {
    throw ExperimentError(
        "cluster bandwidth: bytes per block must be a multiple of 16, threads "
        "1..1024, at least one timed launch");
  }
  std::string reason;
  const std::uint32_t clusters = max_active_clusters(cluster_stream_kernel, spec.cluster_size,
                                                     spec.threads, spec.bytes_per_block, reason);
  if (clusters == 0) {
    throw ExperimentError("a cluster of " + std::to_string(spec.cluster_size) +
                          " blocks: " + reason);
  }
  ClusterBandwidthResult result;
  result.clusters = clusters;
  result.blocks = clusters * spec.cluster_size;
  const double bytes_per_block = static_cast<double>(spec.bytes_per_block) * spec.passes;
  result.bytes_per_launch = static_cast<std::uint64_t>(bytes_per_block) * result.blocks;
  DeviceBuffer<unsigned long long> block_cycles(result.blocks);
  DeviceBuffer<unsigned long long> block_ns(result.blocks);
  DeviceBuffer<std::uint32_t> block_sm(result.blocks);
  DeviceBuffer<std::uint32_t> sink(1);
  const StreamArgs args{spec.bytes_per_block / kVectorBytes,
                        spec.passes,
                        spec.remote ? 1u : 0u,
                        block_cycles.data(),
                        block_ns.data(),
                        block_sm.data(),
                        sink.data()};
  std::vector<unsigned long long> host_cycles(result.blocks);
  std::vector<unsigned long long> host_ns(result.blocks);
  std::vector<std::uint32_t> host_sm(result.blocks);
  EventTimer timer;
  for (std::uint32_t launch = 0; launch < spec.warm_launches + spec.timed_launches; ++launch) {
    timer.start();
    CUDA_CALL(launch_clustered(cluster_stream_kernel, spec.cluster_size, clusters, spec.threads,
                               spec.bytes_per_block, args));
    timer.stop();
    const double seconds = timer.seconds();
    if (launch < spec.warm_launches) continue;
    block_cycles.download(host_cycles);
    block_ns.download(host_ns);
    block_sm.download(host_sm);
    result.bytes_per_second.push_back(static_cast<double>(result.bytes_per_launch) / seconds);
    result.sm_clock_khz.push_back(median_sm_clock_khz(host_cycles, host_ns));
    result.bytes_per_cycle_per_sm.push_back(
        median_bytes_per_cycle_per_sm(host_sm, host_cycles, bytes_per_block));
    std::vector<std::uint32_t> distinct(host_sm);
    std::sort(distinct.begin(), distinct.end());
    result.sms_used = static_cast<std::uint32_t>(std::unique(distinct.begin(), distinct.end()) -
                                                 distinct.begin());
  }
  return result;
}

}  // namespace memtopo
