// Experiment: which launch shapes move the most bytes over NVLink (SM loads, SM stores, copy engines),
// and which chase gives the lowest one-page latency. Not part of memtopo.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

template <int U>
__global__ void rd(const uint4* data, size_t count, int passes, uint4* sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  uint4 acc = make_uint4(0,0,0,0);
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < count; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldcg(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) { acc.x ^= v[u].x; acc.y ^= v[u].y; acc.z ^= v[u].z; acc.w ^= v[u].w; }
    }
    for (; i < count; i += stride) { uint4 v = __ldcg(data + i); acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w; }
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0xFFFFFFFFu) *sink = acc;
}
template <int U>
__global__ void wr(uint4* data, size_t count, int passes) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const uint4 value = make_uint4(threadIdx.x, blockIdx.x, 0, 0);
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < count; i += U * stride) {
#pragma unroll
      for (int u = 0; u < U; ++u) __stcg(data + i + u * stride, value);
    }
    for (; i < count; i += stride) __stcg(data + i, value);
  }
}
__global__ void copyk(uint4* dst, const uint4* src, size_t count, int passes) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 11 * stride < count; i += 12 * stride) {
      uint4 v[12];
#pragma unroll
      for (int u = 0; u < 12; ++u) v[u] = src[i + u * stride];
#pragma unroll
      for (int u = 0; u < 12; ++u) dst[i + u * stride] = v[u];
    }
    for (; i < count; i += stride) dst[i] = src[i];
  }
}
struct Node { Node* next; };
__global__ void pchase(Node* p, uint32_t n, int cg, Node** out) {
  if (cg) { for (uint32_t i = 0; i < n; ++i) p = (Node*)__ldcg((const unsigned long long*)&p->next); }
  else { for (uint32_t i = 0; i < n; ++i) p = p->next; }
  if (p == nullptr) *out = p;
}
__global__ void chase(const uint32_t* chain, uint32_t loads, uint32_t samples, uint64_t* cyc) {
  __shared__ uint32_t last;
  uint32_t index = 0;
  for (uint32_t s = 0; s <= samples; ++s) {
    uint64_t a = clock64();
    for (uint32_t i = 0; i < loads; ++i) index = __ldcg(chain + index);
    last = index; __syncwarp();
    uint64_t b = clock64();
    if (s > 0) cyc[s - 1] = b - a;
  }
  if (last == 0xFFFFFFFF) cyc[0] = 0;
}

struct Timer { cudaEvent_t a, b; Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); } };
template <class F> double p50(F f, int reps, double bytes, int warm = 2) {
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
    CK(cudaSetDevice(peer)); 
    size_t big = size_t(512) << 20;
    void* remote; CK(cudaMalloc(&remote, big)); CK(cudaMemset(remote, 0, big));
    CK(cudaSetDevice(actor));
    cudaDeviceEnablePeerAccess(peer, 0); cudaGetLastError();
    void* local; CK(cudaMalloc(&local, big)); CK(cudaMemset(local, 0, big));
    uint4* sink; CK(cudaMalloc(&sink, 16));
    CK(cudaDeviceSynchronize());
    const size_t b256 = size_t(256) << 20, c256 = b256 / 16, c512 = big / 16;
    printf("actor GPU %d, memory GPU %d\n", actor, peer);
    auto R = [&](const char* name, auto f, double bytes, int reps = 10) { printf("  %-52s %7.1f GB/s\n", name, p50(f, reps, bytes)); };
    size_t g1 = size_t(1) << 30; void* r1; void* l1;
    CK(cudaSetDevice(peer)); CK(cudaMalloc(&r1, 2*g1)); CK(cudaMemset(r1, 0, 2*g1)); CK(cudaSetDevice(actor));
    CK(cudaMalloc(&l1, 2*g1)); CK(cudaMemset(l1, 0, 2*g1)); CK(cudaDeviceSynchronize());
    for (int passes : {1, 2, 4, 8, 16, 32}) {
      char n[96]; snprintf(n, sizeof n, "read 2x1024 u4 256MiB x%d passes", passes);
      R(n, [&]{ rd<4><<<sms*2,1024>>>((uint4*)remote, c256, passes, sink); }, passes * 1.0 * b256);
    }
    R("read 2x1024 u4 1GiB x8", [&]{ rd<4><<<sms*2,1024>>>((uint4*)r1, g1/16, 8, sink); }, 8.0*g1, 3);
    R("copy peer->local nvbw 512MiB x16", [&]{ copyk<<<sms,512>>>((uint4*)local, (uint4*)remote, c512, 16); }, 16.0*big, 3);
    for (int passes : {1, 4, 16, 32}) {
      char n[96]; snprintf(n, sizeof n, "write 2x1024 u1 256MiB x%d passes", passes);
      R(n, [&]{ wr<1><<<sms*2,1024>>>((uint4*)remote, c256, passes); }, passes * 1.0 * b256);
    }
    R("copy local->peer nvbw 512MiB x16", [&]{ copyk<<<sms,512>>>((uint4*)remote, (uint4*)local, c512, 16); }, 16.0*big, 3);
    struct CE { size_t bytes; int copies; };
    for (CE c : {CE{b256, 1}, CE{b256, 16}, CE{big, 1}, CE{big, 4}, CE{big, 16}, CE{g1, 1}, CE{g1, 4}, CE{2*g1, 1}, CE{2*g1, 4}}) {
      char n[96]; snprintf(n, sizeof n, "ce read %zu MiB x%d copies", c.bytes >> 20, c.copies);
      R(n, [&]{ for (int k = 0; k < c.copies; ++k) CK(cudaMemcpyPeerAsync(l1, actor, r1, peer, c.bytes)); }, 1.0 * c.copies * c.bytes, 5);
      snprintf(n, sizeof n, "ce write %zu MiB x%d copies", c.bytes >> 20, c.copies);
      R(n, [&]{ for (int k = 0; k < c.copies; ++k) CK(cudaMemcpyPeerAsync(r1, peer, l1, actor, c.bytes)); }, 1.0 * c.copies * c.bytes, 5);
    }
    CK(cudaFree(l1)); CK(cudaSetDevice(peer)); CK(cudaFree(r1)); CK(cudaSetDevice(actor));
    // latency inside one 2 MiB page: strides 8 KiB (memtopo), 128 B sequential (nvbandwidth), 4 KiB, 64 KiB-crossing random
    uint64_t* cyc; CK(cudaMalloc(&cyc, 64 * 8));
    int clk; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, actor));
    for (uint32_t stride : {8192u, 128u, 4096u, 1024u, 256u}) {
      const uint32_t words = (2u << 20) / 4, step = stride / 4;
      std::vector<uint32_t> h(words, 0);
      for (uint32_t i = 0; i < words; i += step) h[i] = (i + step) % words;
      CK(cudaMemcpy(remote, h.data(), 2u << 20, cudaMemcpyHostToDevice));
      chase<<<1,1>>>((uint32_t*)remote, 256, 32, cyc); CK(cudaDeviceSynchronize());
      std::vector<uint64_t> c(32); CK(cudaMemcpy(c.data(), cyc, 32 * 8, cudaMemcpyDeviceToHost));
      std::sort(c.begin(), c.end());
      printf("  chase 2MiB stride %5u B: p50 %.1f ns/load (clock %d kHz)\n", stride, c[16] / 256.0 / (clk * 1e-6), clk);
    }
    for (int cg : {0, 1}) for (uint32_t stride : {128u, 8192u}) {
      const uint32_t n = (2u << 20) / 8; std::vector<Node*> h(n, nullptr);
      for (uint32_t i = 0; i < n; i += stride / 8) h[i] = (Node*)remote + (i + stride / 8) % n;
      CK(cudaMemcpy(remote, h.data(), 2u << 20, cudaMemcpyHostToDevice));
      Timer t; double sum = 0; const uint32_t acc = 7575;
      for (int k = 0; k < 20; ++k) {
        CK(cudaEventRecord(t.a)); pchase<<<1,1>>>((Node*)remote, acc, cg, (Node**)sink); CK(cudaEventRecord(t.b)); CK(cudaEventSynchronize(t.b));
        float ms; CK(cudaEventElapsedTime(&ms, t.a, t.b)); if (k >= 2) sum += ms;
      }
      printf("  pointer chase (nvbw) %s stride %u: %.1f ns/access (event-timed)\n", cg ? "ldcg" : "plain", stride, sum * 1e6 / (18.0 * acc));
    }
    CK(cudaFree(cyc)); CK(cudaFree(local)); CK(cudaFree(sink));
    CK(cudaSetDevice(peer)); CK(cudaFree(remote));
  }
  return 0;
}
