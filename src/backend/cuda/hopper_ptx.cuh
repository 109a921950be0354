#pragma once
// PTX of the Hopper kernels (sm_90 and later): shared::cluster addressing, mbarriers and bulk
// copies; and the host side they share: event timing and per-SM rates.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "backend/cuda/clock_window.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/cuda_event.hpp"

namespace memtopo::hopper_ptx {

// The shared::cluster address of the shared::cta address `cta_address` in block `rank` of the
// cluster (mapa).
__device__ __forceinline__ std::uint32_t cluster_address(std::uint32_t cta_address,
                                                         std::uint32_t rank) {
  std::uint32_t address;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(address)
               : "r"(cta_address), "r"(rank));
  return address;
}

__device__ __forceinline__ std::uint32_t load_cluster(std::uint32_t address) {
  std::uint32_t value;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(address) : "memory");
  return value;
}

// One 16-byte load from distributed shared memory, folded into one word (keeps it live).
__device__ __forceinline__ std::uint32_t load_cluster_v4(std::uint32_t address) {
  std::uint32_t x, y, z, w;
  asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "r"(address)
               : "memory");
  return x ^ y ^ z ^ w;
}

__device__ __forceinline__ void store_shared(std::uint32_t address, std::uint32_t value) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(address), "r"(value) : "memory");
}

__device__ __forceinline__ void mbarrier_init(std::uint32_t barrier, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(arrivals) : "memory");
  // Make the initialised barrier visible to the async proxy that completes bulk copies.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Arrives once on the barrier and announces `bytes` of transactions still to come.
__device__ __forceinline__ void mbarrier_expect_bytes(std::uint32_t barrier, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes)
               : "memory");
}

// Waits until the barrier's phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint32_t barrier, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred complete;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, complete;\n\t}"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (done == 0);
}

// cp.async.bulk: `bytes` (a multiple of 16) from global `source` to shared `destination`,
// completing as transactions on `barrier`.
__device__ __forceinline__ void bulk_copy(std::uint32_t destination, const void* source,
                                          std::uint32_t bytes, std::uint32_t barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(destination),
      "l"(source), "r"(bytes), "r"(barrier)
      : "memory");
}

// cp.async.bulk.tensor.2d: the box at (x, y) of the tensor map at generic address `map`.
__device__ __forceinline__ void tensor_copy_2d(std::uint32_t destination, const void* map,
                                               std::int32_t x, std::int32_t y,
                                               std::uint32_t barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(destination),
      "l"(map), "r"(x), "r"(y), "r"(barrier)
      : "memory");
}

}  // namespace memtopo::hopper_ptx

namespace memtopo {

// Bytes per cycle of every SM (the sum of its blocks' bytes over their own cycles), median
// over the SMs: blocks sharing an SM share its bandwidth, so their rates add up.
inline double median_bytes_per_cycle_per_sm(std::span<const std::uint32_t> block_sm,
                                            std::span<const unsigned long long> block_cycles,
                                            double bytes_per_block) {
  std::map<std::uint32_t, double> per_sm;
  for (std::size_t b = 0; b < block_sm.size(); ++b) {
    if (block_cycles[b] > 0) per_sm[block_sm[b]] += bytes_per_block / block_cycles[b];
  }
  std::vector<double> rates;
  for (const auto& entry : per_sm) rates.push_back(entry.second);
  if (rates.empty()) return 0;
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

// The SM clock during a launch: the median over its blocks of %clock64 cycles per %globaltimer
// nanosecond around one loop (kHz, clock_khz_of; 0 when no block measured a long enough span).
inline double median_sm_clock_khz(std::span<const unsigned long long> block_cycles,
                                  std::span<const unsigned long long> block_ns) {
  std::vector<double> khz;
  for (std::size_t b = 0; b < block_cycles.size() && b < block_ns.size(); ++b) {
    const double clock = clock_khz_of(block_cycles[b], block_ns[b]);
    if (clock > 0) khz.push_back(clock);
  }
  if (khz.empty()) return 0;
  std::nth_element(khz.begin(), khz.begin() + khz.size() / 2, khz.end());
  return khz[khz.size() / 2];
}

}  // namespace memtopo
