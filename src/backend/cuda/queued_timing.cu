// The stream blocker of queued_timing.hpp: its kernel and the pinned flag it waits on.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/queued_timing.hpp"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

// How long the waiting thread sleeps between looks at the flag.
constexpr unsigned kBlockerSleepNs = 1000;

__global__ void stream_blocker_kernel(const volatile int* flag, std::uint64_t limit_ns) {
  const std::uint64_t begin = special_registers::globaltimer_ns();
  while (*flag == 0 && special_registers::globaltimer_ns() - begin < limit_ns) {
    __nanosleep(kBlockerSleepNs);
  }
}

}  // namespace

StreamBlocker::StreamBlocker(cudaStream_t stream) : stream_(stream) {
  CUDA_CALL(cudaHostAlloc(reinterpret_cast<void**>(&flag_), sizeof(int),
                          cudaHostAllocPortable | cudaHostAllocMapped));
  *flag_ = 0;
  int* device_flag = nullptr;
  const cudaError_t mapped =
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag), flag_, 0);
  if (mapped != cudaSuccess) {
    (void)cudaFreeHost(flag_);
    CUDA_CALL(mapped);
  }
  constexpr double kNsPerSecond = 1e9;
  stream_blocker_kernel<<<1, 1, 0, stream>>>(
      device_flag, static_cast<std::uint64_t>(kStreamBlockerLimitSeconds * kNsPerSecond));
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) {
    (void)cudaFreeHost(flag_);
    CUDA_CALL(launched);
  }
}

void StreamBlocker::release() {
  if (released_) return;
  std::atomic_thread_fence(std::memory_order_release);
  *static_cast<volatile int*>(flag_) = 1;
  released_ = true;
}

// Lets the kernel go, then waits for it before the flag's memory is freed.
StreamBlocker::~StreamBlocker() {
  release();
  (void)cudaStreamSynchronize(stream_);
  (void)cudaFreeHost(flag_);
}

}  // namespace memtopo
