#pragma once
// Reads of the special registers every kernel uses (the chase, stream and warp-access kernels):
// the SM a block runs on, the SM's cycle counter, the global nanosecond timer, and the shared
// address of a pointer into shared memory.
#include <cuda_runtime.h>

#include <cstdint>

namespace memtopo::special_registers {

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ std::uint64_t clock64_now() {
  std::uint64_t cycles;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(cycles)::"memory");
  return cycles;
}

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns)::"memory");
  return ns;
}

__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

}  // namespace memtopo::special_registers
