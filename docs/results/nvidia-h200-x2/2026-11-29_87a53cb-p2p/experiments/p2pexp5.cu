// Experiment 5: why memtopo's SM read of a peer reads 0.2-0.4 % below nvbandwidth's in the same
// call. Harness (synchronised launches as memtopo times them, or queued behind a blocker as
// nvbandwidth does), repetition length (10 / 25 ms), buffer (256 / 512 MiB), kernel (memtopo's
// copy-in, nvbandwidth's striding copy). Not part of memtopo.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void mt_copyin(const uint4* data, size_t count, int passes, uint4* copy) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < count; i += 4 * stride) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = __ldcg(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < 4; ++u) copy[i + u * stride] = v[u];
    }
    for (; i < count; i += stride) copy[i] = __ldcg(data + i);
  }
}
template <int U>
__global__ void copyU(const uint4* src, size_t count, int passes, uint4* dst) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < count; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = src[i + u * stride];
#pragma unroll
      for (int u = 0; u < U; ++u) dst[i + u * stride] = v[u];
    }
    for (; i < count; i += stride) dst[i] = src[i];
  }
}
__global__ void blocker(volatile int* flag) { while (*flag == 0) __nanosleep(1000); }

enum Harness { kSync, kQueued };
struct Kernel { const char* name; int blocks_per_sm, threads; int which; };

double run_once(Harness h, const Kernel& k, int sms, const uint4* src, uint4* dst, size_t bytes, int passes,
                volatile int* flag_host, int* flag_dev, cudaStream_t s) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  auto launch = [&](int p) {
    const size_t count = bytes / 16;
    if (k.which == 0) mt_copyin<<<sms * k.blocks_per_sm, k.threads, 0, s>>>(src, count, p, dst);
    else copyU<12><<<sms * k.blocks_per_sm, k.threads, 0, s>>>(src, count, p, dst);
  };
  if (h == kQueued) { *flag_host = 0; blocker<<<1, 1, 0, s>>>(flag_dev); }
  launch(1);  // warm-up right before (queued: back to back)
  if (h == kSync) CK(cudaStreamSynchronize(s));
  CK(cudaEventRecord(a, s)); launch(passes); CK(cudaEventRecord(b, s));
  if (h == kQueued) { __sync_synchronize(); *flag_host = 1; }
  CK(cudaEventSynchronize(b));
  float ms; CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  return (double)bytes * passes / (ms * 1e-3) / 1e9;
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const Kernel kernels[] = {{"memtopo copy-in 2x1024 u4 ldcg", 2, 1024, 0}, {"nvbw geometry 1x512 u12", 1, 512, 1}};
  for (int actor = 0; actor < 2; ++actor) {
    const int peer = 1 - actor;
    const size_t big = size_t(512) << 20;
    CK(cudaSetDevice(peer)); void* remote; CK(cudaMalloc(&remote, big)); CK(cudaMemset(remote, 0, big));
    CK(cudaSetDevice(actor)); cudaDeviceEnablePeerAccess(peer, 0); cudaGetLastError();
    void* local; CK(cudaMalloc(&local, big)); CK(cudaMemset(local, 0, big));
    int* flag_host; CK(cudaHostAlloc(&flag_host, 4, cudaHostAllocMapped)); int* flag_dev; CK(cudaHostGetDevicePointer(&flag_dev, flag_host, 0));
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaDeviceSynchronize());
    printf("actor GPU %d reads GPU %d\n", actor, peer);
    struct Config { Harness h; int ki; size_t bytes; double ms; };
    std::vector<Config> configs;
    for (int ki = 0; ki < 2; ++ki) for (Harness h : {kSync, kQueued}) for (size_t mb : {256, 512}) for (double ms : {10.0, 25.0})
      configs.push_back({h, ki, mb << 20, ms});
    // rate for sizing: one pass
    const double rate = 375e9;
    std::vector<std::vector<double>> rates(configs.size());
    for (int round = 0; round < 7; ++round) {
      for (size_t c = 0; c < configs.size(); ++c) {
        const Config& cf = configs[c];
        const int passes = std::max(1, (int)(cf.ms * 1e-3 * rate / cf.bytes + 0.5));
        rates[c].push_back(run_once(cf.h, kernels[cf.ki], sms, (const uint4*)remote, (uint4*)local, cf.bytes, passes, flag_host, flag_dev, s));
      }
    }
    for (size_t c = 0; c < configs.size(); ++c) {
      std::vector<double> r = rates[c]; std::sort(r.begin(), r.end());
      const Config& cf = configs[c];
      printf("  %-32s %-6s %3zu MiB %2.0f ms: p50 %.2f  min %.2f max %.2f GB/s\n", kernels[cf.ki].name, cf.h == kSync ? "sync" : "queued",
             cf.bytes >> 20, cf.ms, r[r.size() / 2], r.front(), r.back());
    }
    CK(cudaFree(local)); CK(cudaStreamDestroy(s)); CK(cudaFreeHost(flag_host));
    CK(cudaSetDevice(peer)); CK(cudaFree(remote));
  }
  return 0;
}
