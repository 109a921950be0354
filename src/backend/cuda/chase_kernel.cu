// The fine-grained pointer chase (thesis 004, 4.2; concurrency after 4.7.2): one kernel
// template over LoadPath. Every block reads %smid and runs the job the host placed on that
// SM, if no other block has claimed it yet; all other blocks leave at once.
#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <stdexcept>

#include "backend/cuda/chase_kernels.hpp"
#include "backend/cuda/chase_paths.cuh"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/special_registers.cuh"

// The chase array of the constant path. A module may use 64 KiB of constant bank for its
// __constant__ variables; this module has no other (kernel parameters live in a separate
// bank), so the chain gets all of it, and ptxas fails the build if that stops being true.
// Global namespace and C++ linkage keep the PTX name unmangled, so inline PTX can name it.
inline constexpr std::uint32_t kConstantChainWords = 64 * 1024 / 4;
__constant__ std::uint32_t memtopo_constant_chain[kConstantChainWords];

namespace memtopo {

namespace {

using special_registers::clock64_now;
using special_registers::globaltimer_ns;
using special_registers::shared_address;
using special_registers::sm_id;

__device__ __forceinline__ std::uint64_t constant_chain_address() {
  std::uint64_t address;
  asm("mov.u64 %0, memtopo_constant_chain;" : "=l"(address));
  return address;
}

// Control data is read and written with .cg (L2 only) so that bookkeeping never allocates
// a line in the L1 under test.
__device__ ChaseJob load_job(const ChaseJob* job) {
  ChaseJob copy;
  const uint4* from = reinterpret_cast<const uint4*>(job);
  uint4* to = reinterpret_cast<uint4*>(&copy);
#pragma unroll
  for (unsigned i = 0; i < sizeof(ChaseJob) / sizeof(uint4); ++i) to[i] = __ldcg(from + i);
  return copy;
}

// Thread 0 of every block: the job for this SM if this block is the first to claim it.
__device__ std::int32_t claim_job(const ChaseLaunch& launch, std::uint32_t smid) {
  std::int32_t job = kNoJob;
  if (smid < launch.job_of_sm_count) {
    job = __ldcg(launch.job_of_sm + smid);
    if (job != kNoJob && atomicCAS(launch.claims + job, 0u, 1u) != 0u) job = kNoJob;
  }
  atomicAdd(launch.arrived, 1u);
  return job;
}

// Waits until every block of the launch has looked for its job (the idle ones then leave
// within a few instructions), so that they do not share the SM with the timed chase. Bounded:
// blocks that cannot become resident before the chase ends must not stall it.
__device__ void wait_for_idle_blocks(const ChaseLaunch& launch) {
  const std::uint64_t begin = globaltimer_ns();
  while (*static_cast<volatile std::uint32_t*>(launch.arrived) < gridDim.x &&
         globaltimer_ns() - begin < launch.quiesce_timeout_ns) {
    __nanosleep(1000);
  }
}

// The shared path chases a copy of the array in this block's shared memory.
__device__ void copy_chain_to_shared(const ChaseJob& job, std::uint32_t* s_chain) {
  for (std::uint32_t i = threadIdx.x; i < job.chain_words; i += blockDim.x) {
    s_chain[i] = __ldcg(job.chain + i);
  }
}

// The first way a block's chase went wrong (a ChaseStatus), and the offending value.
struct StrayReport {
  std::uint32_t status;  // 0 until a chaser goes wrong
  std::uint32_t index;   // the stray index (kChaseBadSweepPath: the path)
};

__device__ void report_stray(StrayReport* stray, ChaseStatus status, std::uint32_t index) {
  if (atomicCAS(&stray->status, 0u, std::uint32_t{status}) == 0u) stray->index = index;
}

// A store that must not disturb the L1 under test: L1::no_allocate keeps the line out of L1
// (on an H200, plain .cg stores of the records evicted chase lines between two timed passes).
__device__ __forceinline__ void store_no_l1(std::uint32_t* address, std::uint32_t value) {
  asm volatile("st.global.L1::no_allocate.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}
__device__ __forceinline__ void store_no_l1(std::uint64_t* address, std::uint64_t value) {
  asm volatile("st.global.L1::no_allocate.u64 [%0], %1;" ::"l"(address), "l"(value) : "memory");
}

// Copies `count` shared records to global memory, outside any timed window. Record s holds
// the value load s returned, which is the index load s+1 read; `first_index` is the index
// the chunk's first load read. So every exported index but the first of a chase comes from
// a value the device loaded: evidence that the chain was followed.
// Index: std::uint32_t (word indices), or std::uint64_t for a wide chain.
template <typename Index>
__device__ void flush_records(const Index* loaded, const std::uint32_t* cycles, std::uint32_t count,
                              Index first_index, std::uint32_t* out_cycles, Index* out_indices) {
  for (std::uint32_t s = 0; s < count; ++s) {
    store_no_l1(out_indices + s, s == 0 ? first_index : loaded[s - 1]);
    store_no_l1(out_cycles + s, cycles[s]);
  }
  // Give the stores time to drain, so that they do not queue in the memory pipeline ahead of
  // the next timed loads. Not __threadfence(): at GPU scope it compiles to MEMBAR.SC.GPU plus
  // CCTL.IVALL, which invalidates the whole L1 and turns every later "hit" into a miss (seen on
  // an H200: all loads after the first chunk missed). The block-scope fence leaves L1 alone.
  __threadfence_block();
  __nanosleep(kRecordDrainNanoseconds);
}

// One eviction sweep on path Q: `job.sweep_loads` untimed loads along the sweep's sequential
// chain from word 0. False when a load left the sweep's array (reported in `stray`).
template <LoadPath Q>
__device__ bool sweep_on(const ChainView& sweep, const ChaseJob& job, StrayReport* stray) {
  std::uint32_t s = 0;
#pragma unroll 1
  for (std::uint64_t n = 0; n < job.sweep_loads; ++n) {
    s = load_next<Q>(sweep, s);
    if (s >= job.sweep_words) {
      report_stray(stray, kChaseSweepLeftChain, s);
      return false;
    }
  }
  return true;
}

// The sweep's path is data, not a template argument: one chase kernel per chase path serves
// every sweep path, and the switch runs once per sweep, outside every timed window.
__device__ bool run_eviction_sweep(const ChaseJob& job, StrayReport* stray) {
  ChainView sweep;
  sweep.global = job.sweep_chain;
  sweep.texture = job.sweep_texture;
  sweep.constant = constant_chain_address();
  switch (static_cast<LoadPath>(job.sweep_path)) {
    case LoadPath::ca:
      return sweep_on<LoadPath::ca>(sweep, job, stray);
    case LoadPath::cg:
      return sweep_on<LoadPath::cg>(sweep, job, stray);
    case LoadPath::cv:
      return sweep_on<LoadPath::cv>(sweep, job, stray);
    case LoadPath::nc:
      return sweep_on<LoadPath::nc>(sweep, job, stray);
    case LoadPath::tex:
      return sweep_on<LoadPath::tex>(sweep, job, stray);
    case LoadPath::constant:
      return sweep_on<LoadPath::constant>(sweep, job, stray);
    case LoadPath::shared:  // no sweep array in shared memory: validate() rejects it
      break;
  }
  report_stray(stray, kChaseBadSweepPath, job.sweep_path);
  return false;
}

// What differs between a chase over 32-bit word indices and one over a wide chain (64-bit
// elements): where a chaser starts, how long the array is, where index records go.
template <typename Index>
struct ChainIndexing;
template <>
struct ChainIndexing<std::uint32_t> {
  static __device__ __forceinline__ std::uint32_t start(const ChaseJob& job, const ChaseLaunch&,
                                                        std::uint32_t chaser) {
    return job.start_index + chaser * job.chaser_start_step;
  }
  static __device__ __forceinline__ std::uint32_t words(const ChaseJob& job, const ChaseLaunch&) {
    return job.chain_words;
  }
  static __device__ __forceinline__ std::uint32_t* records(const ChaseLaunch& launch) {
    return launch.indices;
  }
};
template <>
struct ChainIndexing<std::uint64_t> {
  static __device__ __forceinline__ std::uint64_t start(const ChaseJob&, const ChaseLaunch& launch,
                                                        std::uint32_t) {
    return launch.wide_start_index;
  }
  static __device__ __forceinline__ std::uint64_t words(const ChaseJob&,
                                                        const ChaseLaunch& launch) {
    return launch.wide_chain_words;
  }
  static __device__ __forceinline__ std::uint64_t* records(const ChaseLaunch& launch) {
    return launch.wide_indices;
  }
};

// One chaser: warm passes, the eviction sweep if any, then timed loads recorded in chunks of
// `chunk` shared records. The sweep does not move `j`: the timed loads go on from where the
// warm passes left the chase. A stray index is reported by its low 32 bits.
template <LoadPath P, typename Index>
__device__ void run_chaser(const ChainView& chain, const ChaseJob& job, const ChaseLaunch& launch,
                           std::uint32_t chaser, Index* rec_loaded, std::uint32_t* rec_cycles,
                           std::uint32_t chunk, StrayReport* stray) {
  using Indexing = ChainIndexing<Index>;
  const Index words = Indexing::words(job, launch);
  Index j = Indexing::start(job, launch, chaser);
  for (std::uint64_t w = 0; w < job.warm_loads; ++w) {
    j = load_next<P>(chain, j);
    if (j >= words) return report_stray(stray, kChaseLeftChain, static_cast<std::uint32_t>(j));
  }
  if (job.sweep_loads > 0 && !run_eviction_sweep(job, stray)) return;

  const std::uint64_t first = job.record_offset + std::uint64_t{chaser} * job.timed_loads;
  std::uint32_t* const out_cycles = launch.cycles + first;
  Index* const out_indices = Indexing::records(launch) + first;
  const std::uint32_t record_base = shared_address(rec_loaded);
  std::uint32_t slot = 0;
  std::uint32_t chunk_begin = 0;
  Index chunk_first_index = j;
  for (std::uint32_t i = 0; i < job.timed_loads; ++i) {
    const auto t = timed_load<P>(chain, j, record_base + std::uint32_t{sizeof(Index)} * slot);
    rec_cycles[slot] = t.end - t.start;  // unsigned: correct across a wrap of the clock
    j = t.next;
    const bool left_chain = j >= words;
    if (++slot == chunk || i + 1 == job.timed_loads || left_chain) {
      flush_records(rec_loaded, rec_cycles, slot, chunk_first_index, out_cycles + chunk_begin,
                    out_indices + chunk_begin);
      chunk_begin += slot;
      chunk_first_index = j;
      slot = 0;
    }
    if (left_chain) return report_stray(stray, kChaseLeftChain, static_cast<std::uint32_t>(j));
  }
}

// The body of every chase kernel: chase_kernel<P> over 32-bit word indices, wide_chase_kernel<P>
// over a wide chain's 64-bit elements (Index std::uint64_t). A wide chase keeps half as many
// records per buffer (8 bytes of index each): the same shared memory either way.
template <LoadPath P, typename Index>
__device__ __forceinline__ void chase_body(const ChaseLaunch& launch) {
  __shared__ std::int32_t s_job;
  __shared__ StrayReport s_stray;
  // Dynamic shared memory: [chain (shared path only)][loaded indices][cycles][reserved]; the
  // two record arrays hold kRecordBufferRecords each; the reserved bytes (a launch's
  // reserved_shared_bytes) are never touched, they only shrink the L1 beside them.
  extern __shared__ __align__(16) std::uint32_t s_dynamic[];

  if (threadIdx.x == 0) {
    s_job = claim_job(launch, sm_id());
    s_stray = StrayReport{0, 0};
  }
  __syncthreads();
  const std::int32_t job_index = s_job;
  if (job_index == kNoJob) return;

  const ChaseJob job = load_job(launch.jobs + job_index);
  ChaseOutcome* const outcome = launch.outcomes + job_index;
  std::uint32_t* const s_loaded = s_dynamic + (launch.shared_chain_words + 3u) / 4u * 4u;
  std::uint32_t* const s_cycles = s_loaded + kRecordBufferRecords;
  Index* const s_records = reinterpret_cast<Index*>(s_loaded);
  constexpr std::uint32_t kRecords = kRecordBufferRecords * sizeof(std::uint32_t) / sizeof(Index);

  ChainView chain;
  if constexpr (P == LoadPath::tex) {
    chain.texture = job.texture;
  } else if constexpr (P == LoadPath::constant) {
    chain.constant = constant_chain_address();
  } else if constexpr (P == LoadPath::shared) {
    copy_chain_to_shared(job, s_dynamic);
    chain.shared = shared_address(s_dynamic);
  } else {
    chain.global = job.chain;
  }

  std::uint64_t clock_start = 0;
  std::uint64_t ns_start = 0;
  if (threadIdx.x == 0) {
    wait_for_idle_blocks(launch);
    // Not unrolled: ptxas treats inline PTX like any other code, and in an unrolled loop it
    // drops stores that a later one overwrites and merges neighbouring ones (STS.128), which
    // would leave windows without their store. One loop body = one window, as in the chase.
#pragma unroll 1
    for (std::uint32_t s = 0; s < kOverheadSamples; ++s) {
      store_no_l1(outcome->overhead + s,
                  timed_overhead(job.start_index + s, shared_address(s_loaded + s)));
    }
    clock_start = clock64_now();
    ns_start = globaltimer_ns();
  }
  __syncthreads();

  const std::uint32_t warp = threadIdx.x / 32u;
  const bool lane0 = threadIdx.x % 32u == 0;
  if (job.concurrent != 0) {
    // Each chaser gets its own slice of the record buffer.
    const std::uint32_t chunk = kRecords / job.chasers;
    if (lane0 && warp < job.chasers) {
      run_chaser<P, Index>(chain, job, launch, warp, s_records + warp * chunk,
                           s_cycles + warp * chunk, chunk, &s_stray);
    }
    __syncthreads();
  } else {
    // One chaser at a time, each with the whole record buffer; the barrier orders them.
    for (std::uint32_t k = 0; k < job.chasers; ++k) {
      if (lane0 && warp == k) {
        run_chaser<P, Index>(chain, job, launch, k, s_records, s_cycles, kRecords, &s_stray);
      }
      __syncthreads();
    }
  }

  if (threadIdx.x == 0) {
    const std::uint64_t clock_end = clock64_now();
    const std::uint64_t ns_end = globaltimer_ns();
    __stcg(&outcome->sm_id, sm_id());
    __stcg(&outcome->clock_start, clock_start);
    __stcg(&outcome->clock_end, clock_end);
    __stcg(&outcome->ns_start, ns_start);
    __stcg(&outcome->ns_end, ns_end);
    __stcg(&outcome->stray_index, s_stray.index);
    __stcg(&outcome->status, s_stray.status != 0 ? s_stray.status : std::uint32_t{kChaseDone});
  }
}

}  // namespace

template <LoadPath P>
__global__ void __launch_bounds__(1024) chase_kernel(const ChaseLaunch launch) {
  chase_body<P, std::uint32_t>(launch);
}

// Wide chains (ChaseSpec::wide_indices): ca and cg only, one job per launch.
template <LoadPath P>
__global__ void __launch_bounds__(1024) wide_chase_kernel(const ChaseLaunch launch) {
  chase_body<P, std::uint64_t>(launch);
}

namespace {

using ChaseKernel = void (*)(ChaseLaunch);

ChaseKernel wide_chase_kernel_for(LoadPath path) {
  switch (path) {
    case LoadPath::ca:
      return wide_chase_kernel<LoadPath::ca>;
    case LoadPath::cg:
      return wide_chase_kernel<LoadPath::cg>;
    default:
      throw std::invalid_argument("wide chains run on the ca and cg paths only");
  }
}

ChaseKernel chase_kernel_for(LoadPath path, bool wide = false) {
  if (wide) return wide_chase_kernel_for(path);
  switch (path) {
    case LoadPath::ca:
      return chase_kernel<LoadPath::ca>;
    case LoadPath::cg:
      return chase_kernel<LoadPath::cg>;
    case LoadPath::cv:
      return chase_kernel<LoadPath::cv>;
    case LoadPath::nc:
      return chase_kernel<LoadPath::nc>;
    case LoadPath::tex:
      return chase_kernel<LoadPath::tex>;
    case LoadPath::constant:
      return chase_kernel<LoadPath::constant>;
    case LoadPath::shared:
      return chase_kernel<LoadPath::shared>;
  }
  throw std::invalid_argument("chase_kernel_for: unknown load path");
}

}  // namespace

std::uint64_t constant_chain_capacity_bytes() {
  return sizeof(memtopo_constant_chain);
}

void upload_constant_chain(std::span<const std::uint32_t> words) {
  if (words.size_bytes() > sizeof(memtopo_constant_chain)) {
    throw std::invalid_argument("upload_constant_chain: chain larger than the constant bank");
  }
  CUDA_CALL(cudaMemcpyToSymbol(memtopo_constant_chain, words.data(), words.size_bytes()));
}

std::size_t chase_static_shared_bytes(LoadPath path, bool wide) {
  cudaFuncAttributes attributes{};
  CUDA_CALL(cudaFuncGetAttributes(&attributes, chase_kernel_for(path, wide)));
  return attributes.sharedSizeBytes;
}

std::size_t chase_dynamic_shared_bytes(std::uint32_t shared_chain_words) {
  const std::size_t chain_words = (std::size_t{shared_chain_words} + 3) / 4 * 4;
  return (chain_words + 2 * std::size_t{kRecordBufferRecords}) * sizeof(std::uint32_t);
}

void configure_chase_kernel(LoadPath path, std::size_t dynamic_shared_bytes, int carveout_percent,
                            bool wide) {
  const ChaseKernel kernel = chase_kernel_for(path, wide);
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_shared_bytes)));
  // L1 and shared memory are one array per SM; the carveout says how much of it is shared
  // memory, and the driver rounds it up to a configuration the SM supports (and further when
  // a block needs more). The caller asks for the smallest carveout that holds the block: the
  // L1 under test is then what the block's shared memory, reservation included, leaves.
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 carveout_percent));
}

int chase_blocks_per_sm(LoadPath path, unsigned block_threads, std::size_t dynamic_shared_bytes,
                        bool wide) {
  int blocks = 0;
  CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, chase_kernel_for(path, wide),
                                                          static_cast<int>(block_threads),
                                                          dynamic_shared_bytes));
  return blocks;
}

void launch_chase(LoadPath path, const ChaseLaunch& launch, unsigned grid_blocks,
                  unsigned block_threads, std::size_t dynamic_shared_bytes, bool wide) {
  chase_kernel_for(path, wide)<<<grid_blocks, block_threads, dynamic_shared_bytes>>>(launch);
  CUDA_CHECK_LAUNCH("chase_kernel");
}

}  // namespace memtopo
