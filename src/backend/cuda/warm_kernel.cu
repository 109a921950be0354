// The warm kernel: a chase's warm passes over a chain whose visiting order is a progression of
// words, issued kWarmLoadsInFlight at a time instead of one per load latency
// (warm_progression.hpp). A kernel of its own, launched just before the chase on the same
// stream, so that the chase kernel's code stays exactly as it was: adding this loop to the
// chase kernel moved other paths' measured latencies on an H200 (l1.latency 23 -> 34 cycles in
// one build, shared.latency 21 -> 13 in another), since ptxas schedules the timed loop
// differently when the function around it changes. Every block reads %smid and warms the job
// the host placed on that SM, if no other block has claimed it; the others leave at once.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "backend/cuda/chase_job.hpp"
#include "backend/cuda/chase_paths.cuh"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/warm_kernels.hpp"

namespace memtopo {
namespace {

// Warm loads issued at once, each into its own register so that none waits for another.
constexpr std::uint32_t kWarmLoadsInFlight = 16;

__device__ WarmJob load_warm_job(const WarmJob* job) {
  WarmJob copy;
  const uint4* from = reinterpret_cast<const uint4*>(job);
  uint4* to = reinterpret_cast<uint4*>(&copy);
#pragma unroll
  for (unsigned i = 0; i < sizeof(WarmJob) / sizeof(uint4); ++i) to[i] = __ldcg(from + i);
  return copy;
}

// The job's loads in visiting order, kWarmLoadsInFlight at a time; returns the fold of the
// loaded values (stored by the caller: ptxas drops a load whose value no one uses, and asm
// volatile binds only nvcc).
template <LoadPath P>
__device__ std::uint32_t warm_in_order(const WarmJob& job) {
  ChainView chain;
  chain.global = job.chain;
  std::uint32_t position = job.start_position;
  std::uint32_t fold = 0;
  for (std::uint64_t w = 0; w < job.loads; w += kWarmLoadsInFlight) {
    std::uint32_t loaded[kWarmLoadsInFlight];
#pragma unroll
    for (std::uint32_t b = 0; b < kWarmLoadsInFlight; ++b) {
      loaded[b] = 0;
      if (w + b < job.loads) {
        loaded[b] = load_next<P>(chain, job.first_word + position * job.step_words);
        position = position + 1 == job.elements ? 0 : position + 1;
      }
    }
#pragma unroll
    for (std::uint32_t b = 0; b < kWarmLoadsInFlight; ++b) fold ^= loaded[b];
  }
  return fold;
}

template <LoadPath P>
__global__ void __launch_bounds__(32) warm_kernel(const WarmLaunch launch) {
  if (threadIdx.x != 0) return;
  const std::uint32_t smid = special_registers::sm_id();
  if (smid >= launch.job_of_sm_count) return;
  const std::int32_t k = __ldcg(launch.job_of_sm + smid);
  if (k == kNoJob || atomicCAS(launch.claims + k, 0u, 1u) != 0u) return;
  const WarmJob job = load_warm_job(launch.jobs + k);
  if (job.loads == 0) return;
  __stcg(launch.warmed + k, warm_in_order<P>(job) | 1u);
}

}  // namespace

void launch_warm(LoadPath path, const WarmLaunch& launch, unsigned grid_blocks) {
  switch (path) {
    case LoadPath::cg:
      warm_kernel<LoadPath::cg><<<grid_blocks, 32>>>(launch);
      break;
    case LoadPath::cv:
      warm_kernel<LoadPath::cv><<<grid_blocks, 32>>>(launch);
      break;
    default:
      throw std::invalid_argument("the warm kernel runs on the cg and cv paths only");
  }
  CUDA_CALL(cudaGetLastError());
}

}  // namespace memtopo
