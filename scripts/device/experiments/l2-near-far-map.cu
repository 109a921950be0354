// Experiment for issue 15 item 1 (the L2 near/far map), not part of memtopo: which L2
// partition is near to which SM. One thread per SM (132 blocks of 1 thread, each reading its
// %smid) chases the same 512 lines (spaced 4160 B apart, so they spread over the L2's slices)
// through ld.global.cg, once to warm them and once timed per load. A line homed in the SM's
// own partition answers in the near time, one in the other partition in the far time. The SMs
// whose near sets agree form one partition. Prints per SM the near share and a pattern id, and
// the groups of SMs with the same pattern (up to 5 % of lines disagreeing).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.cuh"

constexpr int kLines = 512;
constexpr std::uint64_t kSpacing = 4160;  // 32.5 lines of 128 B: not a power of two

__global__ void time_lines(char* base, unsigned* cycles, int* sm_of_block) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  sm_of_block[blockIdx.x] = int(sm);
  // Stagger the blocks so that few chase at once (each pass is ~512 x 600 cycles).
  const long long wait_until = clock64() + (long long)(blockIdx.x % 4) * 400000;
  while (clock64() < wait_until) {
  }
  char* p = base;
  for (int i = 0; i < kLines; ++i) {
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  }
  // The store of p into shared memory waits for the load; the clock read after it (both
  // volatile, a memory clobber between) sees the load's whole latency (the p-chase method of
  // Mei and Chu).
  __shared__ char* volatile landed[kLines];
  __shared__ unsigned taken[kLines];
  p = base;
  for (int i = 0; i < kLines; ++i) {
    long long begin, end;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(begin)::"memory");
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    landed[i] = p;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(end)::"memory");
    taken[i] = unsigned(end - begin);
  }
  for (int i = 0; i < kLines; ++i) cycles[blockIdx.x * kLines + i] = taken[i];
}

__global__ void build_chain(char* base) {
  for (int i = 0; i < kLines; ++i) {
    *reinterpret_cast<char**>(base + i * kSpacing) = base + ((i + 1) % kLines) * kSpacing;
  }
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  char* base = nullptr;
  unsigned* cycles = nullptr;
  int* sms = nullptr;
  CHECK(cudaMalloc(&base, kLines * kSpacing + 4096));
  CHECK(cudaMalloc(&cycles, sizeof(unsigned) * blocks * kLines));
  CHECK(cudaMalloc(&sms, sizeof(int) * blocks));
  build_chain<<<1, 1>>>(base);
  CHECK(cudaGetLastError());
  std::vector<unsigned> host(blocks * kLines);
  std::vector<int> sm_of(blocks);
  // Two launches: the map must be the same both times.
  std::vector<std::vector<int>> patterns_per_run;
  for (int run = 0; run < 2; ++run) {
    time_lines<<<blocks, 1>>>(base, cycles, sms);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host.data(), cycles, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sm_of.data(), sms, sm_of.size() * sizeof(int), cudaMemcpyDeviceToHost));
    // Per block: split its 512 latencies at the midpoint of their 10th and 90th percentiles.
    std::vector<std::vector<char>> near(blocks, std::vector<char>(kLines));
    std::printf("run %d\nsm,p10,p90,near_share\n", run);
    for (int b = 0; b < blocks; ++b) {
      std::vector<unsigned> sorted(host.begin() + b * kLines, host.begin() + (b + 1) * kLines);
      std::sort(sorted.begin(), sorted.end());
      const unsigned p10 = sorted[kLines / 10], p90 = sorted[kLines * 9 / 10];
      const double cut = (p10 + p90) / 2.0;
      int count = 0;
      for (int i = 0; i < kLines; ++i) {
        near[b][i] = host[b * kLines + i] < cut;
        count += near[b][i];
      }
      std::printf("%d,%u,%u,%.3f\n", sm_of[b], p10, p90, count / double(kLines));
    }
    // Group the SMs: a block joins the first group whose pattern it matches within 5 %.
    std::vector<int> group_of(blocks, -1);
    std::vector<int> leaders;
    for (int b = 0; b < blocks; ++b) {
      for (std::size_t g = 0; g < leaders.size() && group_of[b] < 0; ++g) {
        int differ = 0;
        for (int i = 0; i < kLines; ++i) differ += near[b][i] != near[leaders[g]][i];
        if (differ <= kLines / 20) group_of[b] = int(g);
      }
      if (group_of[b] < 0) {
        group_of[b] = int(leaders.size());
        leaders.push_back(b);
      }
    }
    std::printf("groups: %zu\n", leaders.size());
    for (std::size_t g = 0; g < leaders.size(); ++g) {
      std::vector<int> members;
      for (int b = 0; b < blocks; ++b) {
        if (group_of[b] == int(g)) members.push_back(sm_of[b]);
      }
      std::sort(members.begin(), members.end());
      std::printf("group %zu (%zu SMs):", g, members.size());
      for (int sm : members) std::printf(" %d", sm);
      std::printf("\n");
    }
    std::vector<int> by_sm(blocks, -1);
    for (int b = 0; b < blocks; ++b) {
      if (sm_of[b] < blocks) by_sm[sm_of[b]] = group_of[b];
    }
    patterns_per_run.push_back(by_sm);
  }
  int same = 0;
  for (int s = 0; s < blocks; ++s) same += patterns_per_run[0][s] == patterns_per_run[1][s];
  std::printf("SMs in the same group in both runs: %d of %d\n", same, blocks);
  return 0;
}
