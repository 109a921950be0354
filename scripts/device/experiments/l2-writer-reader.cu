// Experiment for issue 15 item 1 (not part of memtopo): which SM decides whether another SM's
// first load of an L2 line answers near or far: the SM that wrote the line, or one that read it
// after the write? One block per SM (cooperative launch, more than half the shared memory each).
// Per configuration, on lines no earlier configuration touched:
//   write kernel: the block on SM `writer` writes every reader's 32 lines, the others exit;
//   touch kernel: the block on SM `warmer` (if any) loads them all, then every other block in
//   turn times its first and second load of its own lines. "inline" writes inside the touch
//   kernel instead (the writer's block writes, then the readers go), as memtopo's probe does.
// Prints per configuration the readers' median first touches in bins, and the SMs above 390.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "check.cuh"

constexpr int kLines = 32;
constexpr std::uint64_t kRound = 256;
constexpr std::uint64_t kSpacing = 17 * kRound;
constexpr int kNone = -1;

__device__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
__device__ long long now() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ char* line(char* base, int block, int i, int round) {
  return base + (std::uint64_t)block * kLines * kSpacing + i * kSpacing + round * kRound;
}

__global__ void write_kernel(char* base, int round, int writer) {
  extern __shared__ char keep[];
  (void)keep;
  if ((int)smid() != writer) return;
  for (int k = threadIdx.x; k < (int)gridDim.x * kLines; k += blockDim.x) {
    asm volatile("st.global.u64 [%0], %1;" ::"l"(line(base, k / kLines, k % kLines, round)),
                 "l"((std::uint64_t)k)
                 : "memory");
  }
}

__global__ void touch_kernel(char* base, int round, int warmer, int inline_writer,
                             unsigned* sync, unsigned* first, unsigned* second, unsigned* sm_of,
                             std::uint64_t zero) {
  extern __shared__ char keep[];
  (void)keep;
  const int sm = (int)smid();
  if (threadIdx.x == 0) sm_of[blockIdx.x] = sm;
  std::uint64_t sink = 0;
  for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x) {
    sink ^= *(volatile std::uint64_t*)(base + (std::uint64_t)b * kLines * kSpacing + 16 * kRound);
  }
  __syncthreads();
  const int leader = inline_writer != kNone ? inline_writer : warmer;
  if (sm == leader) {
    for (int k = threadIdx.x; k < (int)gridDim.x * kLines; k += blockDim.x) {
      char* p = line(base, k / kLines, k % kLines, round);
      if (inline_writer != kNone) {
        asm volatile("st.global.cg.u64 [%0], %1;" ::"l"(p), "l"((std::uint64_t)k) : "memory");
      } else {
        std::uint64_t v;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        sink ^= v;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicExch(&sync[0], 1u);
      first[blockIdx.x * kLines] = 0xffffffffu;  // marks the leader
    }
    if (sink == 1 && zero == 1) sync[3] = 1;
    return;
  }
  if (threadIdx.x != 0) return;
  if (leader != kNone) {
    while (*(volatile unsigned*)&sync[0] == 0) __nanosleep(200);
  }
  const unsigned turn = atomicAdd(&sync[1], 1u);
  while (*(volatile unsigned*)&sync[2] < turn) __nanosleep(100);
  __shared__ volatile std::uint64_t landed;
  std::uint64_t v = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kLines; ++i) {
      char* p = line(base, blockIdx.x, i, round) + (v & zero);
      const long long t0 = now();
      asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
      landed = v;
      const unsigned dt = (unsigned)(now() - t0);
      (pass == 0 ? first : second)[blockIdx.x * kLines + i] = dt;
    }
  }
  __threadfence();
  atomicAdd(&sync[2], 1u);
}

struct Config {
  const char* name;
  int writer;  // separate write kernel on this SM (kNone: none)
  int warmer;  // loads after the write (kNone: none)
  int inline_writer;
};

// With the argument "lines": also every reader's first touch of each line, as CSV rows
// "lines,<configuration>,<sm>,<line>,<cycles>" (for the per-line questions in the results README).
int main(int argc, char** argv) {
  const bool per_line = argc > 1 && std::string(argv[1]) == "lines";
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const size_t shared = prop.sharedMemPerMultiprocessor / 2 + 1024;
  CHECK(cudaFuncSetAttribute(write_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  CHECK(cudaFuncSetAttribute(touch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  char* base = nullptr;
  unsigned *sync = nullptr, *first = nullptr, *second = nullptr, *sm_of = nullptr;
  CHECK(cudaMalloc(&base, (size_t)blocks * kLines * kSpacing));
  CHECK(cudaMalloc(&sync, 16));
  CHECK(cudaMalloc(&first, sizeof(unsigned) * blocks * kLines));
  CHECK(cudaMalloc(&second, sizeof(unsigned) * blocks * kLines));
  CHECK(cudaMalloc(&sm_of, sizeof(unsigned) * blocks));
  // Each pair two or three times on fresh lines: does one configuration give one far set, and
  // do a reader's lines answer alike (the readers-by-share line)?
  const Config configs[] = {
      {"prime (discarded)", 24, 2, kNone},
      {"write SM24, warmer SM2 loads (1)", 24, 2, kNone},
      {"write SM24, warmer SM2 loads (2)", 24, 2, kNone},
      {"write SM24, warmer SM2 loads (3)", 24, 2, kNone},
      {"write SM2, warmer SM24 loads (1)", 2, 24, kNone},
      {"write SM2, warmer SM24 loads (2)", 2, 24, kNone},
      {"write SM0, warmer SM1 loads (1)", 0, 1, kNone},
      {"write SM0, warmer SM1 loads (2)", 0, 1, kNone},
  };
  std::vector<unsigned> f(blocks * kLines), s(blocks * kLines), sms(blocks);
  int round = 0;
  for (const Config& c : configs) {
    if (c.writer != kNone) {
      void* args[] = {&base, &round, (void*)&c.writer};
      CHECK(cudaLaunchCooperativeKernel((void*)write_kernel, blocks, 256, args, shared, nullptr));
      CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaMemset(sync, 0, 16));
    CHECK(cudaMemset(first, 0, sizeof(unsigned) * blocks * kLines));
    std::uint64_t zero = 0;
    int warmer = c.warmer, inline_writer = c.inline_writer;
    void* args[] = {&base, &round, &warmer, &inline_writer, &sync, &first, &second, &sm_of, &zero};
    CHECK(cudaLaunchCooperativeKernel((void*)touch_kernel, blocks, 256, args, shared, nullptr));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(f.data(), first, f.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(s.data(), second, s.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sms.data(), sm_of, sms.size() * 4, cudaMemcpyDeviceToHost));
    ++round;
    int bins[4] = {0, 0, 0, 0};
    std::vector<std::pair<int, unsigned>> far;
    std::vector<unsigned> seconds;
    for (int b = 0; b < blocks; ++b) {
      if (f[b * kLines] == 0xffffffffu) continue;
      std::vector<unsigned> v(f.begin() + b * kLines, f.begin() + (b + 1) * kLines);
      std::sort(v.begin(), v.end());
      const unsigned m = v[kLines / 2];
      std::vector<unsigned> w(s.begin() + b * kLines, s.begin() + (b + 1) * kLines);
      std::sort(w.begin(), w.end());
      seconds.push_back(w[kLines / 2]);
      bins[m < 330 ? 0 : m < 390 ? 1 : m < 600 ? 2 : 3]++;
      if (m >= 390) far.push_back({(int)sms[b], m});
    }
    if (per_line) {
      for (int b = 0; b < blocks; ++b) {
        if (f[b * kLines] == 0xffffffffu) continue;
        for (int i = 0; i < kLines; ++i) {
          std::printf("lines,%s,%u,%d,%u\n", c.name, sms[b], i, f[b * kLines + i]);
        }
      }
    }
    std::sort(far.begin(), far.end());
    std::sort(seconds.begin(), seconds.end());
    std::printf("%s: readers' median first touch <330: %d, 330-390: %d, 390-600: %d, >=600: %d; "
                "second touch median %u\n  SMs >= 390:",
                c.name, bins[0], bins[1], bins[2], bins[3], seconds[seconds.size() / 2]);
    for (auto [sm, m] : far) std::printf(" %d", sm);
    std::printf("\n");
  }
  return 0;
}
