// Experiment 6 (from 5): memtopo's own p2p read 0.5 GB/s below experiment 5's queued 25 ms launch.
// Variants: peer access one way or both; one timed launch after the warm-up or five back to back;
// loads into registers or copied in. Experiment 5's header follows.
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
__global__ void mt_read(const uint4* data, size_t count, int passes, uint4* sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < count; i += 4 * stride) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = __ldcg(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < 4; ++u) { acc.x ^= v[u].x; acc.y ^= v[u].y; acc.z ^= v[u].z; acc.w ^= v[u].w; }
    }
    for (; i < count; i += stride) { const uint4 v = __ldcg(data + i); acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w; }
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0xFFFFFFFFu) *sink = acc;
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


// One timed launch (reps 1) or `reps` back to back, after a one-pass warm-up, queued; p50 rate.
double run_queued(int which, int sms, const uint4* src, uint4* dst, size_t bytes, int passes, int reps,
                  volatile int* flag_host, int* flag_dev, cudaStream_t s) {
  std::vector<cudaEvent_t> ev(reps + 1); for (auto& ev_i : ev) CK(cudaEventCreate(&ev_i));
  auto launch = [&](int p) {
    const size_t count = bytes / 16;
    if (which == 0) mt_read<<<sms * 2, 1024, 0, s>>>(src, count, p, dst);
    else mt_copyin<<<sms * 2, 1024, 0, s>>>(src, count, p, dst);
  };
  *flag_host = 0; blocker<<<1, 1, 0, s>>>(flag_dev);
  launch(1);
  CK(cudaEventRecord(ev[0], s));
  for (int r = 0; r < reps; ++r) { launch(passes); CK(cudaEventRecord(ev[r + 1], s)); }
  __sync_synchronize(); *flag_host = 1;
  CK(cudaEventSynchronize(ev[reps]));
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) { float ms; CK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1])); rates.push_back((double)bytes * passes / (ms * 1e-3) / 1e9); }
  for (auto& ev_i : ev) CK(cudaEventDestroy(ev_i));
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = size_t(256) << 20;
  void* remote[2]; void* local[2];
  for (int g = 0; g < 2; ++g) { CK(cudaSetDevice(g)); CK(cudaMalloc(&remote[g], bytes)); CK(cudaMemset(remote[g], 0, bytes)); CK(cudaMalloc(&local[g], bytes)); CK(cudaMemset(local[g], 0, bytes)); CK(cudaDeviceSynchronize()); }
  int* flag_host; CK(cudaHostAlloc(&flag_host, 4, cudaHostAllocMapped | cudaHostAllocPortable)); int* flag_dev = flag_host;
  cudaStream_t st[2];
  for (int g = 0; g < 2; ++g) { CK(cudaSetDevice(g)); CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking)); }
  const char* kname[] = {"read into registers", "copy in"};
  for (int both = 0; both < 2; ++both) {
    // peer access: actor -> peer always; peer -> actor only with `both`
    for (int g = 0; g < 2; ++g) { CK(cudaSetDevice(g)); cudaDeviceDisablePeerAccess(1 - g); cudaGetLastError(); }
    std::vector<std::vector<double>> rates(2 * 2 * 2);
    for (int round = 0; round < 5; ++round) {
      for (int actor = 0; actor < 2; ++actor) {
        const int peer = 1 - actor;
        for (int g = 0; g < 2; ++g) { CK(cudaSetDevice(g)); cudaDeviceDisablePeerAccess(1 - g); cudaGetLastError(); }
        CK(cudaSetDevice(actor)); CK(cudaDeviceEnablePeerAccess(peer, 0));
        if (both) { CK(cudaSetDevice(peer)); CK(cudaDeviceEnablePeerAccess(actor, 0)); }
        CK(cudaSetDevice(actor));
        for (int which = 0; which < 2; ++which) for (int b2b = 0; b2b < 2; ++b2b) {
          rates[(actor * 2 + which) * 2 + b2b].push_back(run_queued(which, sms, (const uint4*)remote[peer], (uint4*)local[actor], bytes, 35, b2b ? 5 : 1, flag_host, flag_dev, st[actor]));
        }
      }
    }
    for (int actor = 0; actor < 2; ++actor) for (int which = 0; which < 2; ++which) for (int b2b = 0; b2b < 2; ++b2b) {
      std::vector<double> r = rates[(actor * 2 + which) * 2 + b2b]; std::sort(r.begin(), r.end());
      printf("GPU %d reads GPU %d, peer access %s, %-19s %s: p50 %.2f min %.2f max %.2f GB/s\n", actor, 1 - actor, both ? "both ways" : "one way  ",
             kname[which], b2b ? "5 back to back" : "1 timed       ", r[r.size() / 2], r.front(), r.back());
    }
  }
  return 0;
}
