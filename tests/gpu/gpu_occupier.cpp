// Another process on the GPU, for scripts/device/device-check: it creates a context on a device and,
// for the given time, copies between two device buffers (memory traffic through the L2 and
// DRAM, as a training job would make), or only holds its context with --idle.
//   memtopo_gpu_occupier [--seconds N] [--device N] [--idle]
// It prints "ready <pid>" once it is on the GPU, then works until the time is up.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

constexpr std::size_t kBufferBytes = std::size_t{256} << 20;
constexpr double kDefaultSeconds = 30;

bool check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "gpu_occupier: %s failed: %s\n", what, cudaGetErrorString(status));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = kDefaultSeconds;
  int device = 0;
  bool idle = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      device = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--idle")) {
      idle = true;
    } else {
      std::fprintf(stderr, "usage: %s [--seconds N] [--device N] [--idle]\n", argv[0]);
      return 2;
    }
  }
  void* from = nullptr;
  void* to = nullptr;
  if (!check(cudaSetDevice(device), "cudaSetDevice") ||
      !check(cudaMalloc(&from, kBufferBytes), "cudaMalloc") ||
      !check(cudaMalloc(&to, kBufferBytes), "cudaMalloc")) {
    return 1;
  }
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (idle) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (!check(cudaMemcpy(to, from, kBufferBytes, cudaMemcpyDeviceToDevice), "cudaMemcpy")) {
      return 1;
    }
  }
  cudaFree(from);
  cudaFree(to);
  return 0;
}
