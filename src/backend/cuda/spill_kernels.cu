// The spilling kernel of the `spilling` study (study 001, 3.4.4): every thread keeps
// kSpillLiveWords 4-byte words live across a loop and updates all of them each iteration in a
// scrambled order, each from itself and another word, so no word can be dropped, recomputed
// or kept in fewer registers. Built once per register limit (__maxnreg__): under a limit below
// the working set ptxas spills words to local memory, and each iteration then loads and stores
// them. Lane 0 of every warp reads clock64 and %globaltimer around the loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/spill_kernels.hpp"
#include "backend/study_kernels.hpp"

namespace memtopo {

namespace {

namespace sr = special_registers;

constexpr std::uint32_t kWarpSize = 32;
// Word `step` of an iteration updates word (step * kTargetStride + kTargetOffset) mod
// kSpillLiveWords from word (step * kSourceStride + kSourceOffset) mod kSpillLiveWords: odd
// strides make both permutations of all words, so the order jumps around the working set.
constexpr std::uint32_t kTargetStride = 37;
constexpr std::uint32_t kTargetOffset = 11;
constexpr std::uint32_t kSourceStride = 23;
constexpr std::uint32_t kSourceOffset = 5;
constexpr std::uint32_t kMixMultiplier = 3;
constexpr std::uint32_t kSeedMultiplier = 0x9E3779B9u;
// The fold of all words is stored only when it equals this: practically never, but the
// compiler cannot know, so every word must be computed.
constexpr std::uint32_t kSinkKey = 0x5EED5EEDu;

// The register limits, most first. 255 is the architectural maximum (no limit in practice).
constexpr std::array<std::uint32_t, 8> kRegisterLimits = {255, 80, 72, 64, 56, 48, 40, 32};

template <std::uint32_t kMaxRegisters>
__global__ void __maxnreg__(kMaxRegisters)
    spill_loop_kernel(std::uint32_t iterations, std::uint32_t seed, StudyTiming* timings,
                      std::uint32_t* sink) {
  std::uint32_t live[kSpillLiveWords];
#pragma unroll
  for (std::uint32_t i = 0; i < kSpillLiveWords; ++i) {
    live[i] = (seed + i * kSeedMultiplier) ^ threadIdx.x;
  }
  const std::uint64_t cycles_before = sr::clock64_now();
  const std::uint64_t ns_before = sr::globaltimer_ns();
  for (std::uint32_t iteration = 0; iteration < iterations; ++iteration) {
#pragma unroll
    for (std::uint32_t step = 0; step < kSpillLiveWords; ++step) {
      const std::uint32_t target = (step * kTargetStride + kTargetOffset) % kSpillLiveWords;
      const std::uint32_t source = (step * kSourceStride + kSourceOffset) % kSpillLiveWords;
      live[target] = live[target] * kMixMultiplier + (live[source] ^ iteration);
    }
  }
  const std::uint64_t cycles_after = sr::clock64_now();
  const std::uint64_t ns_after = sr::globaltimer_ns();
  std::uint32_t fold = 0;
#pragma unroll
  for (std::uint32_t i = 0; i < kSpillLiveWords; ++i) fold ^= live[i];
  if (fold == kSinkKey) *sink = fold;
  if (threadIdx.x % kWarpSize == 0) {
    const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
    timings[warp] = StudyTiming{cycles_after - cycles_before, ns_after - ns_before, sr::sm_id(), 0};
  }
}

using SpillKernel = void (*)(std::uint32_t, std::uint32_t, StudyTiming*, std::uint32_t*);

template <std::size_t... kIndex>
constexpr std::array<SpillKernel, sizeof...(kIndex)> make_spill_kernels(
    std::index_sequence<kIndex...>) {
  return {spill_loop_kernel<kRegisterLimits[kIndex]>...};
}

SpillKernel spill_kernel(std::size_t limit_index) {
  static const auto kernels =
      make_spill_kernels(std::make_index_sequence<kRegisterLimits.size()>{});
  if (limit_index >= kernels.size()) {
    throw StudyExperimentError("spilling kernel build " + std::to_string(limit_index) +
                               " does not exist (" + std::to_string(kernels.size()) + " builds)");
  }
  return kernels[limit_index];
}

}  // namespace

std::span<const std::uint32_t> spill_register_limits() {
  return kRegisterLimits;
}

SpillBuildAttributes spill_build_attributes(std::size_t limit_index) {
  cudaFuncAttributes attributes{};
  CUDA_CALL(cudaFuncGetAttributes(&attributes, spill_kernel(limit_index)));
  return {static_cast<std::uint32_t>(attributes.numRegs),
          static_cast<std::uint32_t>(attributes.localSizeBytes)};
}

std::uint32_t spill_blocks_per_sm(std::size_t limit_index, std::uint32_t threads_per_block) {
  int blocks = 0;
  CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, spill_kernel(limit_index),
                                                          static_cast<int>(threads_per_block), 0));
  return static_cast<std::uint32_t>(std::max(blocks, 0));
}

std::vector<StudyTiming> launch_spill_loop(std::size_t limit_index, std::uint32_t threads_per_block,
                                           std::uint32_t blocks, std::uint32_t iterations,
                                           int carveout_percent) {
  const std::size_t warps = std::size_t{blocks} * threads_per_block / kWarpSize;
  DeviceBuffer<StudyTiming> timings(warps);
  DeviceBuffer<std::uint32_t> sink(1);
  const SpillKernel kernel = spill_kernel(limit_index);
  // Set on every launch, the default included, so one configuration never leaks into the next.
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 carveout_percent));
  kernel<<<blocks, threads_per_block>>>(iterations, static_cast<std::uint32_t>(limit_index),
                                        timings.data(), sink.data());
  CUDA_CHECK_LAUNCH("spill_loop_kernel");
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<StudyTiming> host(warps);
  timings.download(host);
  return host;
}

}  // namespace memtopo
