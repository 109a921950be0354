// Instruction fetch (thesis 004, 6.2): one warp runs the first n blocks of a long straight-line
// body again and again; cycles per instruction against the code size executed show the
// instruction caches as steps. The body is kCodeBlocks blocks, each 62 independent FFMAs on
// eight accumulators (issue-bound, one per cycle while the code is cached) and the compare and
// branch that ends the iteration after block n; every block is 64 SASS instructions of 16 B =
// 1 KiB (checked on the sm_90 cubin: the kernel's .text grows by exactly 0x400 per block).
//
// Two code layouts: the kernel is built twice, the second with never-run code in front of the
// body (a branch the warp never takes), so that its body lies elsewhere in the kernel image and
// starts kLayoutPadBytes further from its kernel's start (not a multiple of any power of two
// above 32 B): a step that comes from a cache's capacity appears at the same code size in both,
// one that comes from where the code lies (an alignment, a boundary) moves.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/hopper_kernels.hpp"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

constexpr std::uint32_t kCodeBlocks = 512;
constexpr std::uint32_t kInstructionsPerBlock = 64;  // 62 FFMA + ISETP + BRA
constexpr std::uint32_t kInstructionBytes = 16;      // every SASS instruction since Volta
constexpr std::uint32_t kBlockBytes = kInstructionsPerBlock * kInstructionBytes;
constexpr std::uint32_t kAccumulators = 8;  // FFMA latency (4) < 8: the chain never stalls
constexpr std::uint32_t kThreads = 32;

// 62 FMAs: 7 rounds over the eight accumulators and six more. ptxas cannot fold them (fma.rn
// with operands it does not know), and asm volatile keeps them in order.
#define MEMTOPO_FMA(i) "fma.rn.f32 %" #i ", %" #i ", %8, %9;\n\t"
#define MEMTOPO_FMA_ROUND \
  MEMTOPO_FMA(0)          \
  MEMTOPO_FMA(1)          \
  MEMTOPO_FMA(2) MEMTOPO_FMA(3) MEMTOPO_FMA(4) MEMTOPO_FMA(5) MEMTOPO_FMA(6) MEMTOPO_FMA(7)

__device__ __forceinline__ void fma_block(float (&a)[kAccumulators], float y, float z) {
  asm volatile(MEMTOPO_FMA_ROUND MEMTOPO_FMA_ROUND MEMTOPO_FMA_ROUND MEMTOPO_FMA_ROUND
                   MEMTOPO_FMA_ROUND MEMTOPO_FMA_ROUND MEMTOPO_FMA_ROUND MEMTOPO_FMA(0)
                       MEMTOPO_FMA(1) MEMTOPO_FMA(2) MEMTOPO_FMA(3) MEMTOPO_FMA(4) MEMTOPO_FMA(5)
               : "+f"(a[0]), "+f"(a[1]), "+f"(a[2]), "+f"(a[3]), "+f"(a[4]), "+f"(a[5]), "+f"(a[6]),
                 "+f"(a[7])
               : "f"(y), "f"(z));
}
#undef MEMTOPO_FMA_ROUND
#undef MEMTOPO_FMA

// Blocks 0, 1, ... in a row, leaving after block `blocks` - 1 (a short-circuit fold: block K
// runs only when K < blocks).
template <std::uint32_t... K>
__device__ __forceinline__ void run_blocks(float (&a)[kAccumulators], float y, float z,
                                           std::uint32_t blocks,
                                           std::integer_sequence<std::uint32_t, K...>) {
  (void)(((fma_block(a, y, z)), K + 1 < blocks) && ...);
}

// Layout 1's never-run code: three blocks' FMAs without their compare and branch, 3 x 62 SASS
// instructions (2976 B).
constexpr std::uint32_t kLayoutPadFmaBlocks = 3;
constexpr std::uint32_t kLayouts = 2;

// A pinned launch has this many blocks per SM: every SM then almost surely gets one, and the
// first block on the wanted SM runs while all others leave at once.
constexpr std::uint32_t kPinnedBlocksPerSm = 2;
constexpr std::int64_t kAnySm = -1;

struct CodeFetchArgs {
  std::int64_t pinned_sm;  // the %smid to run on, or kAnySm
  unsigned int* claimed;   // 0 until a block claims the run
  unsigned int* ran_on;    // %smid of the block that ran
  std::uint32_t blocks;
  std::uint32_t warm_iterations;
  std::uint32_t timed_iterations;
  float multiplier;  // 1 and 0 at run time: values the compiler cannot know
  float addend;
  unsigned long long* cycles;  // per timed iteration
  float* sink;
};

template <std::uint32_t Layout>
__global__ void __launch_bounds__(kThreads) code_fetch_kernel(const CodeFetchArgs a) {
  __shared__ bool runs;
  if (threadIdx.x == 0) {
    const std::uint32_t smid = special_registers::sm_id();
    runs = (a.pinned_sm == kAnySm || smid == a.pinned_sm) && atomicCAS(a.claimed, 0u, 1u) == 0u;
    if (runs) *a.ran_on = smid;
  }
  __syncthreads();
  if (!runs) return;
  float acc[kAccumulators];
  for (std::uint32_t i = 0; i < kAccumulators; ++i) acc[i] = a.addend * static_cast<float>(i);
  if constexpr (Layout == 1) {
    // multiplier is 1 at run time: the pad is never run, it only moves the body.
    if (a.multiplier == 0.0f) {
#pragma unroll
      for (std::uint32_t k = 0; k < kLayoutPadFmaBlocks; ++k) fma_block(acc, a.addend, a.addend);
    }
  }
  const std::uint32_t total = a.warm_iterations + a.timed_iterations;
#pragma unroll 1
  for (std::uint32_t it = 0; it < total; ++it) {
    const std::uint64_t start = special_registers::clock64_now();
    run_blocks(acc, a.multiplier, a.addend, a.blocks,
               std::make_integer_sequence<std::uint32_t, kCodeBlocks>{});
    const std::uint64_t end = special_registers::clock64_now();
    if (threadIdx.x == 0 && it >= a.warm_iterations)
      __stcg(a.cycles + it - a.warm_iterations, static_cast<unsigned long long>(end - start));
  }
  float folded = 0;
  for (std::uint32_t i = 0; i < kAccumulators; ++i) folded += acc[i];
  if (folded == -1.0f) *a.sink = folded;  // keeps the FMAs live
}

}  // namespace

CodeFetchLayout code_fetch_layout() {
  return CodeFetchLayout{kBlockBytes, kInstructionsPerBlock, kCodeBlocks * kBlockBytes, kLayouts};
}

CodeFetchResult code_fetch(const CodeFetchSpec& spec, std::uint32_t sm_count) {
  const std::uint32_t blocks = spec.code_bytes / kBlockBytes;
  if (blocks == 0 || blocks > kCodeBlocks || spec.code_bytes % kBlockBytes != 0 ||
      spec.timed_iterations == 0 || spec.layout >= kLayouts) {
    throw ExperimentError("code fetch: the code size must be a multiple of 1 KiB up to " +
                          std::to_string(kCodeBlocks) +
                          " KiB, with at least one timed iteration, in layout 0 or 1");
  }
  DeviceBuffer<unsigned long long> cycles(spec.timed_iterations);
  DeviceBuffer<float> sink(1);
  DeviceBuffer<unsigned int> claim(2);  // claimed, ran_on
  claim.fill_zero();
  const CodeFetchArgs args{spec.sm_id ? static_cast<std::int64_t>(*spec.sm_id) : kAnySm,
                           claim.data(),
                           claim.data() + 1,
                           blocks,
                           spec.warm_iterations,
                           spec.timed_iterations,
                           1.0f,
                           0.0f,
                           cycles.data(),
                           sink.data()};
  const std::uint32_t grid = spec.sm_id ? kPinnedBlocksPerSm * std::max(sm_count, 1u) : 1;
  if (spec.layout == 0) {
    code_fetch_kernel<0><<<grid, kThreads>>>(args);
  } else {
    code_fetch_kernel<1><<<grid, kThreads>>>(args);
  }
  CUDA_CHECK_LAUNCH("code fetch kernel");
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<unsigned int> claimed(2);
  claim.download(claimed);
  if (claimed[0] == 0) {
    throw ExperimentError("code fetch: none of " + std::to_string(grid) +
                          " blocks was scheduled on SM " + std::to_string(*spec.sm_id));
  }
  std::vector<unsigned long long> host(spec.timed_iterations);
  cycles.download(host);
  CodeFetchResult result;
  result.sm_id = claimed[1];
  const double instructions = static_cast<double>(blocks) * kInstructionsPerBlock;
  for (const unsigned long long c : host) result.cycles_per_instruction.push_back(c / instructions);
  return result;
}

}  // namespace memtopo
