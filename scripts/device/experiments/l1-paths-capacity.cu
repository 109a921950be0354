// Experiment for issue 15 item 3 (ro.size inconclusive at 204-208 KiB where l1 and tex give
// 240 KiB), not part of memtopo: one thread chases footprints of 160 to 272 KiB at a 128 B
// stride, sequentially and in a shuffled order, through ld.global.ca, ld.global.nc and
// tex1Dfetch, with 2 warm passes, then times one pass per load. A load more than kMissMargin
// cycles slower than the path's p50 at the smallest footprint (all hits there) is a miss; the
// hit times differ by path (the nc and texture paths take longer). The loads are plain asm
// (not volatile): volatile made ptxas emit LDG.E.STRONG.SM for .ca. Prints CSV:
// path,order,footprint_kib,loads,misses,p50_cycles,hit_cycles.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "check.cuh"

constexpr int kMaxLoads = 272 * 1024 / 128;
constexpr unsigned kMissMargin = 80;  // L1 hits and L2 hits are 150+ cycles apart

enum Path { kCa = 0, kNc = 1, kTex = 2 };

__device__ __forceinline__ unsigned load_next(const unsigned* array, cudaTextureObject_t texture,
                                              unsigned index, int path) {
  unsigned next;
  if (path == kCa) {
    asm("ld.global.ca.u32 %0, [%1];" : "=r"(next) : "l"(array + index));
  } else if (path == kNc) {
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(next) : "l"(array + index));
  } else {
    next = tex1Dfetch<unsigned>(texture, int(index));
  }
  return next;
}

__global__ void chase(const unsigned* array, cudaTextureObject_t texture, int path, int loads,
                      unsigned* cycles) {
  // Little shared memory (4.3 KiB of 16-bit timings and one word the loads land in), so that
  // every path sees the same, largest L1.
  __shared__ unsigned short taken[kMaxLoads];
  __shared__ volatile unsigned landed;
  unsigned index = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < loads; ++i) index = load_next(array, texture, index, path);
  }
  for (int i = 0; i < loads; ++i) {
    long long begin, end;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(begin)::"memory");
    index = load_next(array, texture, index, path);
    landed = index;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(end)::"memory");
    taken[i] = (unsigned short)min(end - begin, 65535LL);
  }
  for (int i = 0; i < loads; ++i) cycles[i] = taken[i];
}

int main() {
  const std::size_t bytes = 272 * 1024;
  unsigned* array = nullptr;
  unsigned* cycles = nullptr;
  CHECK(cudaMalloc(&array, bytes));
  CHECK(cudaMalloc(&cycles, kMaxLoads * sizeof(unsigned)));
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = array;
  resource.res.linear.desc = cudaCreateChannelDesc<unsigned>();
  resource.res.linear.sizeInBytes = bytes;
  cudaTextureDesc description{};
  description.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture = 0;
  CHECK(cudaCreateTextureObject(&texture, &resource, &description, nullptr));
  // Prefer L1 over shared memory: the kernel's 2 x 8.5 KiB of shared memory is all it needs.
  CHECK(cudaFuncSetAttribute(chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  std::printf("path,order,footprint_kib,loads,misses,p50_cycles,hit_cycles\n");
  unsigned hit_cycles[3] = {0, 0, 0};  // per path: p50 at the smallest footprint
  const char* names[] = {"ca", "nc", "tex"};
  std::mt19937_64 random(1);
  for (int shuffled = 0; shuffled < 2; ++shuffled) {
    for (int kib = 160; kib <= 272; kib += 4) {
      const int loads = kib * 1024 / 128;
      std::vector<unsigned> order(loads);
      std::iota(order.begin(), order.end(), 0u);
      if (shuffled) std::shuffle(order.begin() + 1, order.end(), random);
      std::vector<unsigned> host(bytes / 4, 0);
      for (int i = 0; i < loads; ++i) {
        host[order[i] * 32] = order[(i + 1) % loads] * 32;  // word indices, 128 B apart
      }
      CHECK(cudaMemcpy(array, host.data(), bytes, cudaMemcpyHostToDevice));
      for (int path = 0; path < 3; ++path) {
        chase<<<1, 1>>>(array, texture, path, loads, cycles);
        CHECK(cudaGetLastError());
        std::vector<unsigned> measured(loads);
        CHECK(cudaMemcpy(measured.data(), cycles, loads * sizeof(unsigned),
                         cudaMemcpyDeviceToHost));
        std::vector<unsigned> sorted = measured;
        std::nth_element(sorted.begin(), sorted.begin() + loads / 2, sorted.end());
        if (kib == 160) hit_cycles[path] = sorted[loads / 2];
        const unsigned limit = hit_cycles[path] + kMissMargin;
        const int misses = int(std::count_if(measured.begin(), measured.end(),
                                             [limit](unsigned c) { return c > limit; }));
        std::printf("%s,%s,%d,%d,%d,%u,%u\n", names[path], shuffled ? "shuffled" : "sequential",
                    kib, loads, misses, sorted[loads / 2], hit_cycles[path]);
      }
    }
  }
  CHECK(cudaDestroyTextureObject(texture));
  return 0;
}
