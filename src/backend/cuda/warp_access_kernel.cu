// A warp-wide shared-memory access, timed access by access (paper 000, 3.1; the timing of the
// chase kernel, chase_paths.cuh): every lane loads the word at its own offset, which holds
// that offset, and the next access goes to the address the load returned, so each access waits
// for the one before. One kernel template per word size: ld.shared.u32, .v2.u32, .v4.u32.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "backend/cuda/chase_paths.cuh"  // timed_overhead: the same window without the load
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/warp_access_kernels.hpp"

namespace memtopo {

namespace {

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// One access of a lane: the first 32 bits of its word (the offset of the next access) and the
// other 32-bit parts of a wider word ORed together (0 on a well-formed area). Returning those
// parts keeps them live, so that ptxas cannot narrow the vector load it was asked for.
struct WarpWord {
  std::uint32_t next;
  std::uint32_t rest;
};

struct WarpTimedAccess {
  WarpWord word;
  std::uint32_t start;  // %clock before the load
  std::uint32_t end;    // %clock after the dependent store
};

template <std::uint32_t W>
struct WarpLoads;  // specialised for 4, 8 and 16 bytes below

// Each timed sequence is one asm statement, `%clock; load; st.shared [sink], first part;
// %clock`, which the compiler cannot split or reorder (see chase_paths.cuh); the address is
// computed before the first clock read.
template <>
struct WarpLoads<4> {
  static __device__ __forceinline__ WarpWord untimed(std::uint32_t address) {
    WarpWord w{0, 0};
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w.next) : "r"(address) : "memory");
    return w;
  }
  static __device__ __forceinline__ WarpTimedAccess timed(std::uint32_t address,
                                                          std::uint32_t sink) {
    WarpTimedAccess t{{0, 0}, 0, 0};
    asm volatile(
        "mov.u32 %0, %%clock;\n\t"
        "ld.shared.u32 %1, [%3];\n\t"
        "st.shared.u32 [%4], %1;\n\t"
        "mov.u32 %2, %%clock;"
        : "=&r"(t.start), "=&r"(t.word.next), "=r"(t.end)
        : "r"(address), "r"(sink)
        : "memory");
    return t;
  }
};

template <>
struct WarpLoads<8> {
  static __device__ __forceinline__ WarpWord untimed(std::uint32_t address) {
    WarpWord w;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(w.next), "=r"(w.rest)
                 : "r"(address)
                 : "memory");
    return w;
  }
  static __device__ __forceinline__ WarpTimedAccess timed(std::uint32_t address,
                                                          std::uint32_t sink) {
    WarpTimedAccess t;
    asm volatile(
        "mov.u32 %0, %%clock;\n\t"
        "ld.shared.v2.u32 {%1, %2}, [%4];\n\t"
        "st.shared.u32 [%5], %1;\n\t"
        "mov.u32 %3, %%clock;"
        : "=&r"(t.start), "=&r"(t.word.next), "=&r"(t.word.rest), "=r"(t.end)
        : "r"(address), "r"(sink)
        : "memory");
    return t;
  }
};

template <>
struct WarpLoads<16> {
  static __device__ __forceinline__ WarpWord untimed(std::uint32_t address) {
    WarpWord w;
    std::uint32_t y, z, v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w.next), "=r"(y), "=r"(z), "=r"(v)
                 : "r"(address)
                 : "memory");
    w.rest = y | z | v;
    return w;
  }
  static __device__ __forceinline__ WarpTimedAccess timed(std::uint32_t address,
                                                          std::uint32_t sink) {
    WarpTimedAccess t;
    std::uint32_t y, z, v;
    asm volatile(
        "mov.u32 %0, %%clock;\n\t"
        "ld.shared.v4.u32 {%1, %2, %3, %4}, [%6];\n\t"
        "st.shared.u32 [%7], %1;\n\t"
        "mov.u32 %5, %%clock;"
        : "=&r"(t.start), "=&r"(t.word.next), "=&r"(y), "=&r"(z), "=&r"(v), "=r"(t.end)
        : "r"(address), "r"(sink)
        : "memory");
    t.word.rest = y | z | v;
    return t;
  }
};

using special_registers::clock64_now;
using special_registers::globaltimer_ns;
using special_registers::shared_address;
using special_registers::sm_id;

// The job's area: zero, then every lane's word holds the lane's offset in its first 32 bits.
__device__ void prepare_area(std::uint32_t* area, std::uint32_t area_words, std::uint32_t lane,
                             std::uint32_t offset) {
  for (std::uint32_t i = lane; i < area_words; i += kWarpLanes) area[i] = 0;
  __syncwarp();
  // Of the lanes sharing a word, the first writes it (no two lanes store to one address).
  const unsigned sharing = __match_any_sync(kFullWarp, offset);
  if (lane == static_cast<std::uint32_t>(__ffs(sharing) - 1)) area[offset / 4] = offset;
  __syncwarp();
}

// True (on every lane) when some lane loaded anything but its own word; lane 0 reports it.
__device__ bool left_the_area(const WarpWord& word, std::uint32_t offset, std::uint32_t lane,
                              WarpAccessOutcome* outcome) {
  const bool stray = word.next != offset || word.rest != 0;
  const unsigned strays = __ballot_sync(kFullWarp, stray);
  if (strays == 0) return false;
  const auto first = static_cast<std::uint32_t>(__ffs(strays) - 1);
  const std::uint32_t value = __shfl_sync(kFullWarp, word.next, first);
  if (lane == 0) {
    __stcg(&outcome->stray_lane, first);
    __stcg(&outcome->stray_value, value);
    __stcg(&outcome->status, std::uint32_t{kChaseLeftChain});
  }
  return true;
}

// Lane 0 copies `count` records to global memory, outside every timed window: the cycles, and
// the word index lane 0's load returned (evidence that the accesses were made as planned).
__device__ void flush_records(const std::uint32_t* sinks, const std::uint32_t* cycles,
                              std::uint32_t count, std::uint32_t lane, std::uint32_t* out_cycles,
                              std::uint32_t* out_indices) {
  __syncwarp();
  if (lane == 0) {
    for (std::uint32_t s = 0; s < count; ++s) {
      __stcg(out_indices + s, sinks[s * kWarpLanes] / 4);
      __stcg(out_cycles + s, cycles[s]);
    }
  }
  // As the chase does: let the stores drain before the next timed access.
  __threadfence_block();
  __nanosleep(kRecordDrainNanoseconds);
  __syncwarp();
}

template <std::uint32_t W>
__device__ void run_job(const WarpAccessLaunch& launch, std::uint32_t k, std::uint32_t* area,
                        std::uint32_t* sinks, std::uint32_t* cycles, std::uint32_t lane) {
  const WarpAccessJob* job = launch.jobs + k;
  WarpAccessOutcome* outcome = launch.outcomes + k;
  const std::uint32_t offset = __ldcg(job->lane_offsets + lane);
  const std::uint32_t area_words = __ldcg(&job->area_words);
  const std::uint32_t warm = __ldcg(&job->warm_accesses);
  const std::uint32_t timed = __ldcg(&job->timed_accesses);
  const std::uint64_t record_offset = __ldcg(&job->record_offset);
  prepare_area(area, area_words, lane, offset);

  // Every lane times the overhead, so that the window's store is a whole warp's, as in the
  // timed accesses; lane 0 keeps the samples. Not unrolled (see the chase kernel).
#pragma unroll 1
  for (std::uint32_t s = 0; s < kOverheadSamples; ++s) {
    const std::uint32_t overhead = timed_overhead(
        offset + s, shared_address(sinks + s % kWarpRecordSlots * kWarpLanes + lane));
    if (lane == 0) __stcg(outcome->overhead + s, overhead);
  }

  const std::uint32_t base = shared_address(area);
  std::uint32_t next = offset;
#pragma unroll 1
  for (std::uint32_t i = 0; i < warm; ++i) {
    const WarpWord word = WarpLoads<W>::untimed(base + next);
    if (left_the_area(word, offset, lane, outcome)) return;
    next = word.next;
  }
  __syncwarp();
  std::uint32_t slot = 0;
  std::uint32_t flushed = 0;
#pragma unroll 1
  for (std::uint32_t i = 0; i < timed; ++i) {
    const WarpTimedAccess t =
        WarpLoads<W>::timed(base + next, shared_address(sinks + slot * kWarpLanes + lane));
    if (lane == 0) cycles[slot] = t.end - t.start;  // unsigned: right across a clock wrap
    if (left_the_area(t.word, offset, lane, outcome)) return;
    next = t.word.next;
    if (++slot == kWarpRecordSlots || i + 1 == timed) {
      flush_records(sinks, cycles, slot, lane, launch.cycles + record_offset + flushed,
                    launch.indices + record_offset + flushed);
      flushed += slot;
      slot = 0;
    }
  }
  if (lane == 0) {
    __stcg(&outcome->sm_id, sm_id());
    __stcg(&outcome->status, std::uint32_t{kChaseDone});
  }
}

}  // namespace

template <std::uint32_t W>
__global__ void __launch_bounds__(kWarpLanes) warp_access_kernel(const WarpAccessLaunch launch) {
  // Dynamic shared memory: [area: launch.area_words][sinks: kWarpRecordSlots x kWarpLanes]
  // [cycles: kWarpRecordSlots].
  extern __shared__ __align__(16) std::uint32_t s_dynamic[];
  std::uint32_t* const area = s_dynamic;
  std::uint32_t* const sinks = area + launch.area_words;
  std::uint32_t* const cycles = sinks + kWarpRecordSlots * kWarpLanes;
  const std::uint32_t lane = threadIdx.x;

  if (lane == 0) {
    __stcg(launch.clock_window + 0, clock64_now());
    __stcg(launch.clock_window + 2, globaltimer_ns());
  }
  for (std::uint32_t k = 0; k < launch.job_count; ++k) {
    run_job<W>(launch, k, area, sinks, cycles, lane);
    __syncwarp();
  }
  if (lane == 0) {
    __stcg(launch.clock_window + 1, clock64_now());
    __stcg(launch.clock_window + 3, globaltimer_ns());
  }
}

namespace {

using WarpAccessKernel = void (*)(WarpAccessLaunch);

WarpAccessKernel warp_access_kernel_for(std::uint32_t word_bytes) {
  switch (word_bytes) {
    case 4:
      return warp_access_kernel<4>;
    case 8:
      return warp_access_kernel<8>;
    case 16:
      return warp_access_kernel<16>;
    default:
      throw std::invalid_argument("warp_access_kernel_for: word size " +
                                  std::to_string(word_bytes) + " is not 4, 8 or 16");
  }
}

}  // namespace

std::size_t warp_access_dynamic_shared_bytes(std::uint32_t area_words) {
  const std::size_t area = (std::size_t{area_words} + 3) / 4 * 4;
  return (area + std::size_t{kWarpRecordSlots} * (kWarpLanes + 1)) * sizeof(std::uint32_t);
}

void launch_warp_access(std::uint32_t word_bytes, const WarpAccessLaunch& launch,
                        std::size_t dynamic_shared_bytes) {
  const WarpAccessKernel kernel = warp_access_kernel_for(word_bytes);
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_shared_bytes)));
  kernel<<<1, kWarpLanes, dynamic_shared_bytes>>>(launch);
  CUDA_CHECK_LAUNCH("warp_access_kernel");
}

}  // namespace memtopo
