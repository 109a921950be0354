// Kernels of the p2p family: a single-thread dependent chase over another GPU's (or the host's)
// memory, and SM loads/stores streaming over it.
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/p2p_kernels.hpp"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

// Two blocks of 1024 threads per SM fill an H100/H200 SM (2048 threads), keeping enough loads
// in flight to cover a microsecond of link latency.
constexpr int kStreamThreads = 1024;
constexpr int kStreamBlocksPerSm = 2;
// Independent 16-byte loads per thread and iteration: more loads in flight per thread.
constexpr int kStreamUnroll = 4;
// The deep copy in (nvbandwidth's SM copy shape): one block of 512 threads per SM, 12 loads in
// flight per thread.
constexpr int kDeepCopyThreads = 512;
constexpr int kDeepCopyUnroll = 12;
// A waiting block looks whose turn it is every 4 us: 130 waiting SMs make ~30 loads per us.
constexpr unsigned kTurnWaitNs = 4000;

__global__ void remote_chase_kernel(const std::uint32_t* chain, std::uint32_t loads_per_sample,
                                    std::uint32_t samples, std::uint64_t* cycles, std::uint64_t* ns,
                                    std::uint32_t* sink) {
  // The dependent use of the last load before the clock is read: a store of its value to shared
  // memory cannot issue before the load has returned.
  __shared__ std::uint32_t last;
  std::uint32_t index = 0;
  for (std::uint32_t sample = 0; sample <= samples; ++sample) {
    const std::uint64_t cycles_start = special_registers::clock64_now();
    const std::uint64_t ns_start = special_registers::globaltimer_ns();
    for (std::uint32_t i = 0; i < loads_per_sample; ++i) index = __ldcg(chain + index);
    last = index;
    __syncwarp();
    const std::uint64_t cycles_end = special_registers::clock64_now();
    const std::uint64_t ns_end = special_registers::globaltimer_ns();
    if (sample > 0) {  // sample 0 warms the TLBs and the path
      cycles[sample - 1] = cycles_end - cycles_start;
      ns[sample - 1] = ns_end - ns_start;
    }
  }
  *sink = last;
}

// remote_chase_kernel from every SM in turn: the first block on each %smid claims it and draws a
// ticket; tickets run one after another, each continuing the chain from `turns->position`.
// Blocks that wait sleep between looks at whose turn it is, so that they barely load the memory
// system the chase crosses.
__global__ void remote_chase_every_sm_kernel(const std::uint32_t* chain,
                                             std::uint32_t loads_per_sample, std::uint32_t samples,
                                             RemoteChaseTurns* turns, std::uint64_t* cycles,
                                             std::uint64_t* ns, std::uint32_t* sm_of_turn) {
  __shared__ std::uint32_t last;
  if (threadIdx.x != 0) return;
  const std::uint32_t smid = special_registers::sm_id();
  if (smid >= kRemoteChaseMaxSms || atomicCAS(&turns->claimed[smid], 0u, 1u) != 0u) return;
  const std::uint32_t ticket = atomicAdd(&turns->tickets, 1u);
  while (*static_cast<volatile std::uint32_t*>(&turns->serving) != ticket) __nanosleep(kTurnWaitNs);
  __threadfence();
  std::uint32_t index = *static_cast<volatile std::uint32_t*>(&turns->position);
  for (std::uint32_t sample = 0; sample <= samples; ++sample) {
    const std::uint64_t cycles_start = special_registers::clock64_now();
    const std::uint64_t ns_start = special_registers::globaltimer_ns();
    for (std::uint32_t i = 0; i < loads_per_sample; ++i) index = __ldcg(chain + index);
    last = index;
    __syncwarp(1u);
    const std::uint64_t cycles_end = special_registers::clock64_now();
    const std::uint64_t ns_end = special_registers::globaltimer_ns();
    if (sample > 0) {  // each SM's sample 0 warms its TLBs and path
      const std::size_t slot = static_cast<std::size_t>(ticket) * samples + sample - 1;
      cycles[slot] = cycles_end - cycles_start;
      ns[slot] = ns_end - ns_start;
    }
  }
  sm_of_turn[ticket] = smid;
  *static_cast<volatile std::uint32_t*>(&turns->position) = last;
  __threadfence();
  atomicAdd(&turns->serving, 1u);
}

__global__ void remote_read_kernel(const uint4* data, std::size_t count, std::uint32_t passes,
                                   uint4* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kStreamUnroll - 1) * stride < count; i += kStreamUnroll * stride) {
      uint4 v[kStreamUnroll];
#pragma unroll
      for (int u = 0; u < kStreamUnroll; ++u) v[u] = __ldcg(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < kStreamUnroll; ++u) {
        acc.x ^= v[u].x;
        acc.y ^= v[u].y;
        acc.z ^= v[u].z;
        acc.w ^= v[u].w;
      }
    }
    for (; i < count; i += stride) {
      const uint4 v = __ldcg(data + i);
      acc.x ^= v.x;
      acc.y ^= v.y;
      acc.z ^= v.z;
      acc.w ^= v.w;
    }
  }
  // Never true for the zero-filled buffers, but the compiler cannot know: the loads stay.
  if ((acc.x & acc.y & acc.z & acc.w) == 0xFFFFFFFFu) *sink = acc;
}

// One 16-byte load of a copy in: ld.global.cg (past L1) or a plain ld.global (nvbandwidth's).
template <bool kBypassL1>
__device__ __forceinline__ uint4 copy_in_load(const uint4* address) {
  if constexpr (kBypassL1) return __ldcg(address);
  return *address;
}

// The read of remote_read_kernel, each vector stored into `copy` (the acting GPU's memory),
// `kUnroll` loads in flight per thread.
template <int kUnroll, bool kBypassL1>
__global__ void remote_copy_in_kernel(const uint4* data, std::size_t count, std::uint32_t passes,
                                      uint4* copy) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v[u] = copy_in_load<kBypassL1>(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) copy[i + u * stride] = v[u];
    }
    for (; i < count; i += stride) copy[i] = copy_in_load<kBypassL1>(data + i);
  }
}

__global__ void remote_write_kernel(uint4* data, std::size_t count, std::uint32_t passes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const uint4 value = make_uint4(threadIdx.x, blockIdx.x, 0, 0);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
      __stcg(data + i, value);
    }
  }
}

}  // namespace

void launch_remote_chase(const std::uint32_t* chain, std::uint32_t loads_per_sample,
                         std::uint32_t samples, std::uint64_t* cycles, std::uint64_t* ns,
                         std::uint32_t* sink, cudaStream_t stream) {
  remote_chase_kernel<<<1, 1, 0, stream>>>(chain, loads_per_sample, samples, cycles, ns, sink);
  CUDA_CHECK_LAUNCH("remote_chase_kernel");
}

void launch_remote_chase_every_sm(const std::uint32_t* chain, std::uint32_t loads_per_sample,
                                  std::uint32_t samples, int sm_count, RemoteChaseTurns* turns,
                                  std::uint64_t* cycles, std::uint64_t* ns,
                                  std::uint32_t* sm_of_turn, cudaStream_t stream) {
  // Twice as many one-warp blocks as SMs, all resident at once: every SM gets one to claim it.
  remote_chase_every_sm_kernel<<<2 * sm_count, 32, 0, stream>>>(chain, loads_per_sample, samples,
                                                                turns, cycles, ns, sm_of_turn);
  CUDA_CHECK_LAUNCH("remote_chase_every_sm_kernel");
}

void launch_remote_stream(void* data, std::size_t bytes, std::uint32_t passes, bool write,
                          int sm_count, void* sink, cudaStream_t stream, void* copy, bool deep) {
  const std::size_t count = bytes / sizeof(uint4);
  const int blocks = sm_count * kStreamBlocksPerSm;
  if (copy != nullptr && deep) {
    remote_copy_in_kernel<kDeepCopyUnroll, false><<<sm_count, kDeepCopyThreads, 0, stream>>>(
        static_cast<const uint4*>(data), count, passes, static_cast<uint4*>(copy));
    CUDA_CHECK_LAUNCH("remote_copy_in_kernel (deep)");
    return;
  }
  if (copy != nullptr) {
    remote_copy_in_kernel<kStreamUnroll, true><<<blocks, kStreamThreads, 0, stream>>>(
        static_cast<const uint4*>(data), count, passes, static_cast<uint4*>(copy));
    CUDA_CHECK_LAUNCH("remote_copy_in_kernel");
    return;
  }
  if (write) {
    remote_write_kernel<<<blocks, kStreamThreads, 0, stream>>>(static_cast<uint4*>(data), count,
                                                               passes);
    CUDA_CHECK_LAUNCH("remote_write_kernel");
  } else {
    remote_read_kernel<<<blocks, kStreamThreads, 0, stream>>>(
        static_cast<const uint4*>(data), count, passes, static_cast<uint4*>(sink));
    CUDA_CHECK_LAUNCH("remote_read_kernel");
  }
}

}  // namespace memtopo
