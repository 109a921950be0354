// Experiment for issue 15 item 1 (the L2 near/far map), not part of memtopo. The first try
// (l2-near-far-map.cu: each SM chases lines it warmed itself) saw no far mode: a 2 MB set seems
// to be served near for the SM that warmed it. Here one SM warms and the others touch first:
// block 0 (on some SM W) loads every line of every block's own set of 64 lines, then raises a
// flag; every other block (one per SM, all resident: 1 thread each) waits for it and times its
// first load of each of its lines, then a second load. A first touch from an SM on W's side
// should answer near, from the other side far, if the L2 keeps a line where it was first used.
// Prints per SM: median first-touch and second-touch cycles. Two launches, W differing.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.cuh"

constexpr int kLines = 64;
constexpr std::uint64_t kSpacing = 4160;
constexpr std::uint64_t kSetBytes = kLines * kSpacing + 8192;

__device__ long long clock_now() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__global__ void first_touch(char* sets, int warmer, volatile int* flag, unsigned* first,
                            unsigned* second, int* sm_of_block) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  sm_of_block[blockIdx.x] = int(sm);
  char* mine = sets + blockIdx.x * kSetBytes;
  if (int(blockIdx.x) == warmer) {
    for (int b = 0; b < int(gridDim.x); ++b) {
      char* p = sets + b * kSetBytes;
      for (int i = 0; i < kLines; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    }
    __threadfence();
    *flag = 1;
    return;
  }
  while (*flag == 0) {
  }
  // Stagger: a few SMs at a time.
  const long long until = clock_now() + (long long)(blockIdx.x % 8) * 100000;
  while (clock_now() < until) {
  }
  __shared__ char* volatile landed[kLines];
  __shared__ unsigned taken[2][kLines];
  for (int pass = 0; pass < 2; ++pass) {
    char* p = mine;
    for (int i = 0; i < kLines; ++i) {
      const long long begin = clock_now();
      asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
      landed[i] = p;
      taken[pass][i] = unsigned(clock_now() - begin);
    }
  }
  for (int i = 0; i < kLines; ++i) {
    first[blockIdx.x * kLines + i] = taken[0][i];
    second[blockIdx.x * kLines + i] = taken[1][i];
  }
}

__global__ void build_chains(char* sets, int blocks) {
  for (int b = 0; b < blocks; ++b) {
    char* base = sets + b * kSetBytes;
    for (int i = 0; i < kLines; ++i) {
      *reinterpret_cast<char**>(base + i * kSpacing) = base + ((i + 1) % kLines) * kSpacing;
    }
  }
}

unsigned median_of(const unsigned* values) {
  std::vector<unsigned> sorted(values, values + kLines);
  std::sort(sorted.begin(), sorted.end());
  return sorted[kLines / 2];
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  char* sets = nullptr;
  unsigned *first = nullptr, *second = nullptr;
  int *sms = nullptr, *flag = nullptr;
  CHECK(cudaMalloc(&sets, kSetBytes * blocks));
  CHECK(cudaMalloc(&first, sizeof(unsigned) * blocks * kLines));
  CHECK(cudaMalloc(&second, sizeof(unsigned) * blocks * kLines));
  CHECK(cudaMalloc(&sms, sizeof(int) * blocks));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  std::vector<unsigned> f(blocks * kLines), s(blocks * kLines);
  std::vector<int> sm_of(blocks);
  for (int warmer : {0, blocks / 2, blocks - 1}) {
    // Flush the sets out of the L2 between launches: rebuild them (writes) after a large
    // streaming write elsewhere would be better; new chains at least make them dirty again.
    build_chains<<<1, 1>>>(sets, blocks);
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    first_touch<<<blocks, 1>>>(sets, warmer, flag, first, second, sms);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(f.data(), first, f.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(s.data(), second, s.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sm_of.data(), sms, sm_of.size() * sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("warmer block %d on SM %d\nsm,first_median,second_median\n", warmer,
                sm_of[warmer]);
    std::vector<std::pair<int, unsigned>> by_sm;
    for (int b = 0; b < blocks; ++b) {
      if (b == warmer) continue;
      by_sm.push_back({sm_of[b], median_of(&f[b * kLines])});
      std::printf("%d,%u,%u\n", sm_of[b], median_of(&f[b * kLines]), median_of(&s[b * kLines]));
    }
    std::sort(by_sm.begin(), by_sm.end());
    std::printf("slow first touch (median > 380 cycles) from SMs:");
    for (auto [sm, cycles] : by_sm) {
      if (cycles > 380) std::printf(" %d", sm);
    }
    std::printf("\n");
  }
  return 0;
}
