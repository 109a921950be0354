// Kernels around the chase: which %smid values exist, evicting the L2, writing sparse chains.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/support_kernels.hpp"

namespace memtopo {

namespace {

// Upper bound on %smid values we record; Hopper parts have well under 256 SMs.
constexpr std::uint32_t kMaxSmIds = 1024;
// The scatter's grid: enough blocks to keep every SM busy, grid-striding over the rest.
constexpr unsigned kScatterThreads = 256;
constexpr std::size_t kMaxScatterBlocks = 1024;

__global__ void survey_sm_ids_kernel(std::uint32_t* seen) {
  // The dynamic shared memory is not used: it only keeps a second block off the SM.
  if (threadIdx.x != 0) return;
  std::uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (smid < kMaxSmIds) seen[smid] = 1;
  // Stay a few microseconds, so that each SM holds its block while the rest are dispatched.
  std::uint64_t begin, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(begin));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - begin < 20000);
}

__global__ void evict_l2_kernel(const uint4* scratch, std::size_t vectors, std::uint32_t* sink) {
  std::uint32_t folded = 0;
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < vectors; i += step) {
    const uint4 v = __ldcg(scratch + i);
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // A store the compiler cannot prove dead keeps every load; it practically never happens.
  if (folded == 0x9E3779B9u) *sink = folded;
}

__global__ void scatter_links_kernel(std::uint32_t* words, const ChainLink* links,
                                     std::size_t count) {
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
    const ChainLink link = links[i];
    words[link.index] = link.next;
  }
}

__global__ void scatter_wide_links_kernel(std::uint32_t* words, const WideChainLink* links,
                                          std::size_t count) {
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
    const WideChainLink link = links[i];
    *reinterpret_cast<std::uint64_t*>(words + link.index) = link.next;
  }
}

// Blocks for a scatter of `count` links.
unsigned scatter_blocks(std::size_t count) {
  return static_cast<unsigned>(
      std::min(kMaxScatterBlocks, (count + kScatterThreads - 1) / kScatterThreads));
}

}  // namespace

std::vector<std::uint32_t> survey_sm_ids(std::uint32_t sm_count, int launches,
                                         std::size_t block_shared_bytes) {
  CUDA_CALL(cudaFuncSetAttribute(survey_sm_ids_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(block_shared_bytes)));
  DeviceBuffer<std::uint32_t> seen(kMaxSmIds);
  seen.fill_zero();
  std::vector<std::uint32_t> flags(kMaxSmIds);
  std::vector<std::uint32_t> ids;
  for (int attempt = 0; attempt < launches; ++attempt) {
    survey_sm_ids_kernel<<<4 * std::max(sm_count, 1u), 32, block_shared_bytes>>>(seen.data());
    CUDA_CHECK_LAUNCH("survey_sm_ids_kernel");
    CUDA_CALL(cudaDeviceSynchronize());
    seen.download(flags);
    ids.clear();
    for (std::uint32_t id = 0; id < kMaxSmIds; ++id) {
      if (flags[id] != 0) ids.push_back(id);
    }
    if (ids.size() >= sm_count) break;
  }
  return ids;
}

void evict_l2(const void* scratch, std::size_t bytes, std::uint32_t* sink) {
  const std::size_t vectors = bytes / sizeof(uint4);
  if (vectors == 0) return;
  evict_l2_kernel<<<1024, 256>>>(static_cast<const uint4*>(scratch), vectors, sink);
  CUDA_CHECK_LAUNCH("evict_l2_kernel");
  CUDA_CALL(cudaDeviceSynchronize());
}

void scatter_chain_links(std::uint32_t* words, const ChainLink* links, std::size_t count) {
  if (count == 0) return;
  scatter_links_kernel<<<scatter_blocks(count), kScatterThreads>>>(words, links, count);
  CUDA_CHECK_LAUNCH("scatter_links_kernel");
}

void scatter_wide_chain_links(std::uint32_t* words, const WideChainLink* links, std::size_t count) {
  if (count == 0) return;
  scatter_wide_links_kernel<<<scatter_blocks(count), kScatterThreads>>>(words, links, count);
  CUDA_CHECK_LAUNCH("scatter_wide_links_kernel");
}

}  // namespace memtopo
