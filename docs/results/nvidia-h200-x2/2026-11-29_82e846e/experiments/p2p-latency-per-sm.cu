// Experiment 4: the one-page remote latency from every SM (is SM 0 typical?).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
struct Node { Node* next; };
__device__ unsigned claimed;
__global__ void chase_on(Node* start, uint32_t loads, uint32_t samples, unsigned target, uint64_t* cyc, Node** out) {
  unsigned smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (smid != target || threadIdx.x != 0) return;
  if (atomicCAS(&claimed, 0u, 1u) != 0u) return;
  Node* p = start;
  for (uint32_t s = 0; s <= samples; ++s) {
    uint64_t a = clock64();
    for (uint32_t i = 0; i < loads; ++i) p = (Node*)__ldcg((const unsigned long long*)&p->next);
    uint64_t b = clock64();
    if (s > 0) cyc[s - 1] = b - a;
  }
  *out = p;
}
int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int actor = 0; actor < 2; ++actor) {
    int peer = 1 - actor;
    CK(cudaSetDevice(peer)); void* remote; CK(cudaMalloc(&remote, 2u << 20));
    CK(cudaSetDevice(actor)); cudaDeviceEnablePeerAccess(peer, 0); cudaGetLastError();
    void* local; CK(cudaMalloc(&local, 2u << 20));
    for (int where = 0; where < 2; ++where) {
      void* buf = where == 0 ? remote : local;
      const uint32_t n = (2u << 20) / 8; std::vector<Node*> h(n, nullptr);
      for (uint32_t i = 0; i < n; i += 16) h[i] = (Node*)buf + (i + 16) % n;
      CK(cudaMemcpy(buf, h.data(), 2u << 20, cudaMemcpyHostToDevice));
      uint64_t* cyc; CK(cudaMalloc(&cyc, 64 * 8)); Node** out; CK(cudaMalloc(&out, 8));
      int clk; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, actor));
      std::vector<std::pair<double,int>> per;
      for (int sm = 0; sm < sms; ++sm) {
        unsigned zero = 0; CK(cudaMemcpyToSymbol(claimed, &zero, 4));
        chase_on<<<sms * 2, 32>>>((Node*)buf, 128, 16, sm, cyc, out); CK(cudaDeviceSynchronize());
        std::vector<uint64_t> c(16); CK(cudaMemcpy(c.data(), cyc, 16 * 8, cudaMemcpyDeviceToHost));
        std::sort(c.begin(), c.end());
        per.push_back({c[8] / 128.0 / (clk * 1e-6), sm});
      }
      std::vector<double> v; for (auto& p : per) v.push_back(p.first);
      double mean = 0; for (double x : v) mean += x; mean /= v.size();
      std::sort(v.begin(), v.end());
      printf("actor %d %s memory: SM 0 %.1f ns; over %d SMs min %.1f p10 %.1f p50 %.1f p90 %.1f max %.1f mean %.1f\n", actor,
             where == 0 ? "peer" : "own", per[0].first, sms, v[0], v[v.size()/10], v[v.size()/2], v[v.size()*9/10], v.back(), mean);
      printf("  per SM:"); for (auto& p : per) printf(" %d:%.0f", p.second, p.first); printf("\n");
      CK(cudaFree(cyc)); CK(cudaFree(out));
    }
    CK(cudaFree(local)); CK(cudaSetDevice(peer)); CK(cudaFree(remote));
  }
  return 0;
}
