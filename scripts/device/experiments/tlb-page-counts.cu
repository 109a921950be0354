// Experiment for issue 12 (Hopper TLBs), not part of memtopo: does a TLB level run out after a
// fixed number of pages whatever their spacing (entries of one page size), or after a fixed
// footprint (entries covering coalesced ranges)? One thread chases N elements spaced S bytes
// apart (N = 2..16384, S = 2..128 MiB, N x S within the free memory) through ld.global.cg, after two warm passes; the mean
// cycles per load over 4096 dependent loads say where misses begin. Each element sits at a
// different 128 B line of its page (i x 128 B), so the N lines stay in the L2 and only the
// translation can miss. Prints CSV: order,stride_mib,pages,footprint_mib,cycles_per_load.
// `--random` visits the elements in a seeded random cycle instead of in address order (a
// sequential chase lets a TLB that prefetches or groups neighbouring pages hide its misses).
// Build and run (scripts/device/experiments/run-all does both):
//   nvcc -O2 -arch=sm_90 -o tlb-page-counts tlb-page-counts.cu && ./tlb-page-counts [--random] [MiB...]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "check.cuh"

// order[k] is the k-th element the chase visits (the identity: sequential).
__global__ void build_chain(char* base, std::uint64_t stride, int pages, const int* order) {
  for (int k = 0; k < pages; ++k) {
    const int i = order[k];
    const int next = order[(k + 1) % pages];
    // Lines at different offsets in their pages (up to 512 KiB in), so that a power-of-two
    // stride does not put every line into one L2 set.
    char* here = base + std::uint64_t(i) * stride + std::uint64_t(i % 4096) * 128;
    char* there = base + std::uint64_t(next) * stride + std::uint64_t(next % 4096) * 128;
    *reinterpret_cast<char**>(here) = there;
  }
}

__global__ void chase(char* start, int warm_loads, int timed_loads, long long* cycles,
                      char** sink) {
  char* p = start;
  for (int i = 0; i < warm_loads; ++i) {
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  }
  const long long begin = clock64();
  for (int i = 0; i < timed_loads; ++i) {
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  }
  const long long end = clock64();
  *cycles = end - begin;
  *sink = p;
}

int main(int argc, char** argv) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::size_t(4) << 30;
  const std::size_t bytes = free_bytes > 2 * margin ? free_bytes - margin : free_bytes / 2;
  char* base = nullptr;
  CHECK(cudaMalloc(&base, bytes));
  long long* cycles = nullptr;
  char** sink = nullptr;
  CHECK(cudaMalloc(&cycles, sizeof(long long)));
  CHECK(cudaMalloc(&sink, sizeof(char*)));
  std::fprintf(stderr, "allocated %.1f GiB of %.1f GiB free\n", bytes / double(1 << 30),
               free_bytes / double(1 << 30));
  const int timed = 4096;
  int* order = nullptr;
  CHECK(cudaMalloc(&order, 16384 * sizeof(int)));
  bool random = false;
  std::vector<std::uint64_t> strides{2, 4, 8, 16, 32, 64, 128};
  std::vector<std::uint64_t> given;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--random") == 0) random = true;
    else given.push_back(std::strtoull(argv[i], nullptr, 10));
  }
  if (!given.empty()) strides = given;
  std::printf("order,stride_mib,pages,footprint_mib,cycles_per_load\n");
  const std::uint64_t mib = 1 << 20;
  for (std::uint64_t stride_mib : strides) {
    for (int pages : {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32, 40, 48, 56, 64, 80, 96,
                      112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 270, 320, 384, 448, 512,
                      768, 1024, 1536, 2048, 2560, 3072, 4096, 6144, 8192, 12288, 16384}) {
      const std::uint64_t stride = stride_mib * mib;
      if (std::uint64_t(pages) * stride > bytes) continue;
      std::vector<int> visit(pages);
      std::iota(visit.begin(), visit.end(), 0);
      if (random) std::shuffle(visit.begin(), visit.end(), std::mt19937(pages));
      CHECK(cudaMemcpy(order, visit.data(), pages * sizeof(int), cudaMemcpyHostToDevice));
      build_chain<<<1, 1>>>(base, stride, pages, order);
      CHECK(cudaGetLastError());
      // Timed loads: at least two rounds of the chain, so that every page is timed.
      const int loads = pages * 2 > timed ? pages * 2 : timed;
      chase<<<1, 1>>>(base, 2 * pages + 64, loads, cycles, sink);
      CHECK(cudaGetLastError());
      long long measured = 0;
      CHECK(cudaMemcpy(&measured, cycles, sizeof(measured), cudaMemcpyDeviceToHost));
      std::printf("%s,%llu,%d,%llu,%.1f\n", random ? "random" : "sequential",
                  (unsigned long long)stride_mib, pages,
                  (unsigned long long)(stride_mib * pages), double(measured) / loads);
    }
  }
  CHECK(cudaFree(base));
  return 0;
}
