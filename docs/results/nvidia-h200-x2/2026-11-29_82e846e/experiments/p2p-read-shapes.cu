// Experiment 3: SM-read shapes over NVLink, long launches (overhead amortised).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

template <int U, int HINT>
__global__ void rd(const uint4* data, size_t count, int passes, uint4* sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  uint4 acc = make_uint4(0,0,0,0);
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < count; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (HINT == 256) asm volatile("ld.global.cg.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w) : "l"(data + i + u * stride));
        else if (HINT == 128) asm volatile("ld.global.cg.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w) : "l"(data + i + u * stride));
        else if (HINT == 1) v[u] = __ldg(data + i + u * stride);
        else v[u] = __ldcg(data + i + u * stride);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) { acc.x ^= v[u].x; acc.y ^= v[u].y; acc.z ^= v[u].z; acc.w ^= v[u].w; }
    }
    for (; i < count; i += stride) { uint4 v = __ldcg(data + i); acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w; }
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0xFFFFFFFFu) *sink = acc;
}
template <int U>
__global__ void cp(uint4* dst, const uint4* src, size_t count, int passes) {
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
// TMA 1D bulk copies peer -> shared: one issuing thread per block, STAGES chunks in flight.
template <int STAGES, int CHUNK>
__global__ void bulk(const char* src, size_t bytes, int passes, unsigned* sink) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bar[STAGES];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < STAGES; ++s) {
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar[s]);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const size_t chunks = bytes / CHUNK;
  unsigned phase[STAGES] = {}; bool busy[STAGES] = {};
  int s = 0;
  for (int p = 0; p < passes; ++p) {
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
      unsigned b = (unsigned)__cvta_generic_to_shared(&bar[s]);
      if (busy[s]) {
        unsigned done = 0;
        while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b), "r"(phase[s]) : "memory");
        phase[s] ^= 1;
      }
      unsigned dst = (unsigned)__cvta_generic_to_shared(smem + s * CHUNK);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(CHUNK) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(dst), "l"(src + c * CHUNK), "r"(CHUNK), "r"(b) : "memory");
      busy[s] = true;
      s = (s + 1) % STAGES;
    }
  }
  for (int t = 0; t < STAGES; ++t) if (busy[t]) {
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar[t]); unsigned done = 0;
    while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b), "r"(phase[t]) : "memory");
  }
  if (smem[0] == 123) *sink = 1;
}
struct Timer { cudaEvent_t a, b; Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); } };
template <class F> double p50(F f, int reps, double bytes, int warm = 1) {
  Timer t; std::vector<double> r;
  for (int i = 0; i < warm + reps; ++i) {
    CK(cudaEventRecord(t.a)); f(); CK(cudaEventRecord(t.b)); CK(cudaEventSynchronize(t.b));
    float ms; CK(cudaEventElapsedTime(&ms, t.a, t.b)); if (i >= warm) r.push_back(bytes / (ms * 1e-3) / 1e9);
  }
  std::sort(r.begin(), r.end());
  return r[r.size() / 2];
}
int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int actor = 0; actor < 2; ++actor) {
    int peer = 1 - actor;
    size_t big = size_t(512) << 20, c512 = big / 16;
    CK(cudaSetDevice(peer)); void* remote; CK(cudaMalloc(&remote, big)); CK(cudaMemset(remote, 0, big));
    CK(cudaSetDevice(actor)); cudaDeviceEnablePeerAccess(peer, 0); cudaGetLastError();
    void* local; CK(cudaMalloc(&local, big)); CK(cudaMemset(local, 0, big));
    uint4* sink; CK(cudaMalloc(&sink, 16)); CK(cudaDeviceSynchronize());
    printf("actor GPU %d, memory GPU %d (512 MiB x16 passes per launch unless said)\n", actor, peer);
    auto R = [&](const char* name, auto f, double bytes, int reps = 5) { CK(cudaGetLastError()); double v = p50(f, reps, bytes); CK(cudaGetLastError()); printf("  %-48s %7.1f GB/s\n", name, v); };
    const double B = 16.0 * big;
    for (int rep = 0; rep < 1; ++rep) {
    R("nvbw copy 1x512 u12", [&]{ cp<12><<<sms,512>>>((uint4*)local, (uint4*)remote, c512, 16); }, B);
    R("read ldcg 2x1024 u4", [&]{ rd<4,0><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    R("read ldcg 2x1024 u8", [&]{ rd<8,0><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    R("read ldg(nc) 2x1024 u4", [&]{ rd<4,1><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    R("read L2::128B 2x1024 u4", [&]{ rd<4,128><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    R("read L2::256B 2x1024 u4", [&]{ rd<4,256><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    R("read L2::256B 1x512 u12", [&]{ rd<12,256><<<sms,512>>>((uint4*)remote, c512, 16, sink); }, B);
    R("copy 2x1024 u4", [&]{ cp<4><<<sms*2,1024>>>((uint4*)local, (uint4*)remote, c512, 16); }, B);
    R("copy 1x512 u12 x32", [&]{ cp<12><<<sms,512>>>((uint4*)local, (uint4*)remote, c512, 32); }, 2 * B);
    }
    CK(cudaFuncSetAttribute(bulk<4, 32768>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 32768));
    CK(cudaFuncSetAttribute(bulk<8, 16384>, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 16384));
    CK(cudaFuncSetAttribute(bulk<6, 32768>, cudaFuncAttributeMaxDynamicSharedMemorySize, 6 * 32768));
    R("tma bulk 1 blk/SM 4x32KiB", [&]{ bulk<4, 32768><<<sms, 32, 4 * 32768>>>((char*)remote, big, 16, (unsigned*)sink); }, B);
    R("tma bulk 1 blk/SM 8x16KiB", [&]{ bulk<8, 16384><<<sms, 32, 8 * 16384>>>((char*)remote, big, 16, (unsigned*)sink); }, B);
    CK(cudaFuncSetAttribute(bulk<12, 16384>, cudaFuncAttributeMaxDynamicSharedMemorySize, 12 * 16384));
    CK(cudaFuncSetAttribute(bulk<4, 16384>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 16384));
    R("tma bulk 2 blk/SM 4x16KiB", [&]{ bulk<4, 16384><<<2 * sms, 32, 4 * 16384>>>((char*)remote, big, 16, (unsigned*)sink); }, B);
    R("tma bulk 1 blk/SM 12x16KiB", [&]{ bulk<12, 16384><<<sms, 32, 12 * 16384>>>((char*)remote, big, 16, (unsigned*)sink); }, B);
    R("tma bulk 1 blk/SM 6x32KiB", [&]{ bulk<6, 32768><<<sms, 32, 6 * 32768>>>((char*)remote, big, 16, (unsigned*)sink); }, B);
    R("nvbw copy 1x512 u12 (again)", [&]{ cp<12><<<sms,512>>>((uint4*)local, (uint4*)remote, c512, 16); }, B);
    R("read ldcg 2x1024 u4 (again)", [&]{ rd<4,0><<<sms*2,1024>>>((uint4*)remote, c512, 16, sink); }, B);
    CK(cudaFree(local)); CK(cudaFree(sink)); CK(cudaSetDevice(peer)); CK(cudaFree(remote));
  }
  return 0;
}
