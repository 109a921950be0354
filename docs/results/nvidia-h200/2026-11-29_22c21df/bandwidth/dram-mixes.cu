// Exploration only (not part of memtopo): DRAM copy / triad / read / write rates over launch shapes.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

template <int U, bool CS>
__global__ void copy_k(const double2* __restrict__ a, double2* __restrict__ b, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x * U;
  for (; i + (U - 1) * blockDim.x < n; i += step) {
    double2 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = CS ? __ldcs(a + i + k * blockDim.x) : a[i + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < U; ++k) { if (CS) __stcs(b + i + k * blockDim.x, v[k]); else b[i + k * blockDim.x] = v[k]; }
  }
}
template <int U>
__global__ void triad_k(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x * U;
  for (; i + (U - 1) * blockDim.x < n; i += step) {
    double2 x[U], y[U];
#pragma unroll
    for (int k = 0; k < U; ++k) { x[k] = b[i + k * blockDim.x]; y[k] = c[i + k * blockDim.x]; }
#pragma unroll
    for (int k = 0; k < U; ++k) a[i + k * blockDim.x] = make_double2(x[k].x + 3.0 * y[k].x, x[k].y + 3.0 * y[k].y);
  }
}
template <int U>
__global__ void triad3_k(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c, const double2* __restrict__ d, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x * U;
  for (; i + (U - 1) * blockDim.x < n; i += step) {
    double2 x[U], y[U], z[U];
#pragma unroll
    for (int k = 0; k < U; ++k) { x[k] = b[i + k * blockDim.x]; y[k] = c[i + k * blockDim.x]; z[k] = d[i + k * blockDim.x]; }
#pragma unroll
    for (int k = 0; k < U; ++k) a[i + k * blockDim.x] = make_double2(x[k].x * z[k].x + y[k].x, x[k].y * z[k].y + y[k].y);
  }
}
// copy with 2 reads of one array per write: read a[i] and a[i+n/2]? no: ratio experiment, reads R arrays, writes 1
template <int U>
__global__ void read_k(const double2* __restrict__ a, double* out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x * U;
  double s = 0;
  for (; i + (U - 1) * blockDim.x < n; i += step) {
#pragma unroll
    for (int k = 0; k < U; ++k) { double2 v = a[i + k * blockDim.x]; s += v.x + v.y; }
  }
  if (s == 1.2345) *out = s;
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = size_t(4) << 30;  // 4 GiB per array
  const size_t n = bytes / 16;
  double2 *a, *b, *c, *d; double* out;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes)); CK(cudaMalloc(&d, bytes)); CK(cudaMalloc(&out, 8));
  CK(cudaMemset(a, 0, bytes)); CK(cudaMemset(b, 0, bytes)); CK(cudaMemset(c, 0, bytes)); CK(cudaMemset(d, 0, bytes));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto best = [&](auto launch, double moved) {
    float bestms = 1e9;
    for (int r = 0; r < 5; ++r) {
      cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); bestms = std::min(bestms, ms);
    }
    if (cudaGetLastError() != cudaSuccess) return -1.0;
    return moved / (bestms * 1e-3) / 1e12;
  };
  printf("kind U threads blocks_per_sm TB/s\n");
  for (int t : {128, 256, 512, 1024}) {
    unsigned g = (unsigned)std::min<size_t>(n / t, 2147483647u);
    printf("copy-fullgrid 1 %d - %.3f\n", t, best([&]{ copy_k<1,false><<<g,t>>>(a,b,n); }, 2.0*bytes));
    printf("triad-fullgrid 1 %d - %.3f\n", t, best([&]{ triad_k<1><<<g,t>>>(a,b,c,n); }, 3.0*bytes));
    printf("triad3-fullgrid 1 %d - %.3f\n", t, best([&]{ triad3_k<1><<<g,t>>>(a,b,c,d,n); }, 4.0*bytes));
    unsigned g2 = (unsigned)std::min<size_t>(n / t / 2, 2147483647u);
    printf("triad-fullgrid 2 %d - %.3f\n", t, best([&]{ triad_k<2><<<g2,t>>>(a,b,c,n); }, 3.0*bytes));
    printf("triad3-fullgrid 2 %d - %.3f\n", t, best([&]{ triad3_k<2><<<g2,t>>>(a,b,c,d,n); }, 4.0*bytes));
  }
  for (int t : {256, 512, 1024}) for (int bps : {1, 2, 4}) {
    if (t * bps > 2048) continue;
    unsigned g = sms * bps;
    printf("triad3 1 %d %d %.3f\n", t, bps, best([&]{ triad3_k<1><<<g,t>>>(a,b,c,d,n); }, 4.0*bytes));
    printf("triad3 2 %d %d %.3f\n", t, bps, best([&]{ triad3_k<2><<<g,t>>>(a,b,c,d,n); }, 4.0*bytes));
  }
  return 0;
}
