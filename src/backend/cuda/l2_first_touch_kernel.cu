// The L2 first-touch experiment (backend/l2_first_touch.hpp): one block per SM, two launches.
// In the first, the block on the writer SM writes every block's lines of this round. In the
// second, the block on the warmer SM loads them all, then raises a flag; every other block
// then takes a ticket and, one at a time, times its first and its second load of each of its
// own lines with only thread 0, while the others wait (so no reader's loads queue behind
// another's).
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/l2_first_touch_kernels.hpp"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

namespace sr = special_registers;

constexpr std::uint64_t kWaitLimitNs = 1'000'000'000;
constexpr std::uint32_t kWarmerThreads = 256;
constexpr unsigned kPollSleepNs = 200;

__device__ __forceinline__ std::uint64_t load_cg(const char* address) {
  std::uint64_t value;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
  return value;
}

// Waits until `*word` reaches `value`; false after kWaitLimitNs.
__device__ bool wait_for(const std::uint32_t* word, std::uint32_t value) {
  const std::uint64_t start = sr::globaltimer_ns();
  while (*reinterpret_cast<const volatile std::uint32_t*>(word) < value) {
    if (sr::globaltimer_ns() - start > kWaitLimitNs) return false;
    __nanosleep(kPollSleepNs);
  }
  return true;
}

__device__ const char* line_of(const FirstTouchLaunch& launch, std::uint32_t block,
                               std::uint32_t line) {
  return launch.base + block * launch.region_bytes + line * kFirstTouchLineSpacing +
         launch.round * kFirstTouchRoundStride;
}

__device__ __forceinline__ void store_cg(const char* address, std::uint64_t value) {
  asm volatile("st.global.cg.u64 [%0], %1;" ::"l"(address), "l"(value) : "memory");
}

// The first launch: only the writer's block writes. Lines that another SM only loaded answer
// every SM near on an H200 (c5a2a91); lines only written answer ~700 cycles (partial sectors
// merged from DRAM); written, then loaded by the warmer, they split the readers by side.
__global__ void l2_first_touch_write_kernel(FirstTouchLaunch launch) {
  extern __shared__ char keep_one_block_per_sm[];
  (void)keep_one_block_per_sm;
  if (sr::sm_id() != launch.writer_sm) return;
  const std::uint32_t lines = gridDim.x * launch.lines;
  for (std::uint32_t k = threadIdx.x; k < lines; k += blockDim.x) {
    store_cg(line_of(launch, k / launch.lines, k % launch.lines), k);
  }
}

__device__ void warm(const FirstTouchLaunch& launch, std::uint64_t& sink) {
  const std::uint32_t lines = gridDim.x * launch.lines;
  for (std::uint32_t k = threadIdx.x; k < lines; k += blockDim.x) {
    sink ^= load_cg(line_of(launch, k / launch.lines, k % launch.lines));
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  __threadfence();
  launch.clock_window[0] = sr::clock64_now();
  launch.clock_window[2] = sr::globaltimer_ns();
  atomicExch(&launch.sync[0], 1u);
  // Held until every reader is done: the window below gives the SM clock of the launch.
  const bool done = wait_for(&launch.sync[2], gridDim.x - 1);
  launch.clock_window[1] = sr::clock64_now();
  launch.clock_window[3] = sr::globaltimer_ns();
  launch.status[blockIdx.x] = done ? kFirstTouchDone : kFirstTouchTimedOut;
}

__device__ void read_own_lines(const FirstTouchLaunch& launch, std::uint64_t& sink) {
  __shared__ volatile std::uint64_t landed;
  std::uint32_t* first = launch.first + blockIdx.x * launch.lines;
  std::uint32_t* second = launch.second + blockIdx.x * launch.lines;
  for (std::uint32_t i = 0; i < kFirstTouchOverheadSamples; ++i) {
    const std::uint64_t begin = sr::clock64_now();
    landed = sink;
    launch.overhead[blockIdx.x * kFirstTouchOverheadSamples + i] =
        static_cast<std::uint32_t>(sr::clock64_now() - begin);
  }
  std::uint64_t value = 0;
  for (std::uint32_t pass = 0; pass < 2; ++pass) {
    std::uint32_t* records = pass == 0 ? first : second;
    for (std::uint32_t i = 0; i < launch.lines; ++i) {
      // value & zero is 0 at run time, but the address waits for the previous load.
      const char* address = line_of(launch, blockIdx.x, i) + (value & launch.zero);
      const std::uint64_t begin = sr::clock64_now();
      value = load_cg(address);
      landed = value;  // the store needs the value: the clock below reads after it arrived
      records[i] = static_cast<std::uint32_t>(sr::clock64_now() - begin);
    }
  }
  sink ^= value;
}

__global__ void l2_first_touch_kernel(FirstTouchLaunch launch) {
  extern __shared__ char keep_one_block_per_sm[];
  (void)keep_one_block_per_sm;
  const std::uint32_t sm = sr::sm_id();
  std::uint64_t sink = 0;
  // Every block touches the TLB line of every region: each SM then has every page translated.
  for (std::uint32_t b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    sink ^= load_cg(launch.base + b * launch.region_bytes + kFirstTouchWarmOffset);
  }
  __syncthreads();
  if (sm == launch.warmer_sm) {
    if (threadIdx.x == 0) {
      launch.sm_of_block[blockIdx.x] = sm;
      launch.order_of_block[blockIdx.x] = UINT32_MAX;
    }
    warm(launch, sink);
  } else if (threadIdx.x == 0) {
    launch.sm_of_block[blockIdx.x] = sm;
    if (!wait_for(&launch.sync[0], 1)) {
      launch.status[blockIdx.x] = kFirstTouchTimedOut;
      return;
    }
    const std::uint32_t turn = atomicAdd(&launch.sync[1], 1u);
    launch.order_of_block[blockIdx.x] = turn;
    if (!wait_for(&launch.sync[2], turn)) {
      launch.status[blockIdx.x] = kFirstTouchTimedOut;
      atomicAdd(&launch.sync[2], 1u);
      return;
    }
    read_own_lines(launch, sink);
    __threadfence();
    atomicAdd(&launch.sync[2], 1u);
    launch.status[blockIdx.x] = kFirstTouchDone;
  }
  // Never true (the sink of loads is no address): keeps every load above.
  if (sink == 1 && launch.zero == 1) launch.status[blockIdx.x] = 0;
}

}  // namespace

std::size_t first_touch_dynamic_shared_bytes(std::size_t shared_per_sm, std::size_t max_per_block) {
  const std::size_t more_than_half = shared_per_sm / 2 + 1024;
  return more_than_half < max_per_block ? more_than_half : max_per_block;
}

void launch_first_touch(const FirstTouchLaunch& launch, std::uint32_t blocks,
                        std::size_t dynamic_shared_bytes) {
  CUDA_CALL(cudaFuncSetAttribute(l2_first_touch_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_shared_bytes)));
  CUDA_CALL(cudaFuncSetAttribute(l2_first_touch_write_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_shared_bytes)));
  FirstTouchLaunch argument = launch;
  void* arguments[] = {&argument};
  for (const void* kernel : {reinterpret_cast<const void*>(l2_first_touch_write_kernel),
                             reinterpret_cast<const void*>(l2_first_touch_kernel)}) {
    CUDA_CALL(cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(kWarmerThreads), arguments,
                                          dynamic_shared_bytes, nullptr));
    CUDA_CALL(cudaDeviceSynchronize());
  }
}

}  // namespace memtopo
