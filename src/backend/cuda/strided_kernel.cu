// Strided warp requests (backend/strided_access.hpp): one template over (memory space, element
// size), never one kernel per space. Global memory, textures and shared memory reuse the stream
// kernels' loads (stream_paths.cuh: one inline-PTX load per path); constant memory loads
// ld.const from a __constant__ array; local memory indexes a per-thread array dynamically, so
// that the compiler must keep it in local memory (LDL; scripts/checks/check-stream-sass checks it).
// Throughput: every warp issues its requests kStridedRequestsInFlight at a time, independent of
// each other. Latency: one warp, each request's address offset by the previous request's data
// (always 0: every array is zero-filled), timed by lane 0 with %clock.
#include <cuda_runtime.h>

#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/stream_paths.cuh"
#include "backend/cuda/strided_args.hpp"
#include "backend/strided_access.hpp"

// The constant space's array: the whole constant bank a module may use (this module has no
// other __constant__ variable; ptxas fails the build if that stops being true). Zero as every
// __constant__ variable starts. Global namespace: its PTX name is unmangled, for inline PTX.
__constant__ uint4 memtopo_strided_constant[memtopo::kConstantBankBytes / sizeof(uint4)];

namespace memtopo {

extern __shared__ uint4 strided_shared_window[];

namespace strided_detail {

// The load path of the spaces whose loads are the stream kernels'.
__host__ __device__ constexpr LoadPath stream_path(AccessSpace space) {
  switch (space) {
    case AccessSpace::cg:
      return LoadPath::cg;
    case AccessSpace::nc:
      return LoadPath::nc;
    case AccessSpace::tex:
      return LoadPath::tex;
    case AccessSpace::shared:
      return LoadPath::shared;
    default:
      return LoadPath::ca;
  }
}

// Each thread's local array: only the local space has one. A variable of its own beside the
// view (in the view, the view's pointers would share its local memory). Elements aligned to
// their size, so that a 16-byte element is one ld.local.v4.
template <AccessSpace S, unsigned V>
struct LocalArray {
  __device__ __forceinline__ void fill(const StridedArgs&) {}
};
template <unsigned V>
struct LocalArray<AccessSpace::local, V> {
  struct alignas(V) Element {
    Words<V> words;
  };
  Element elements[kLocalArrayElements];
  __device__ __forceinline__ void fill(const StridedArgs& args) {
    if (!args.fill_local) return;
    Element element;
#pragma unroll
    for (unsigned i = 0; i < V / 4; ++i) element.words.w[i] = args.local_fill_word;
#pragma unroll 1
    for (std::uint64_t i = 0; i < args.footprint_bytes / V; ++i) elements[i] = element;
  }
};

template <AccessSpace S>
struct SpaceView {
  StreamView stream;           // ca, cg, nc, tex, shared
  std::uint64_t constant = 0;  // const: the array's address in the constant space
};

template <AccessSpace S, unsigned V>
__device__ __forceinline__ void prepare(SpaceView<S>& view, LocalArray<S, V>& local,
                                        const StridedArgs& args) {
  view.stream.global = args.source;
  view.stream.texture = args.texture;
  if constexpr (S == AccessSpace::shared) {
    std::uint32_t* words = reinterpret_cast<std::uint32_t*>(strided_shared_window);
    for (std::uint32_t i = threadIdx.x; i < args.shared_window_bytes / 4; i += blockDim.x) {
      words[i] = 0;
    }
    __syncthreads();
    view.stream.shared =
        static_cast<std::uint32_t>(__cvta_generic_to_shared(strided_shared_window));
  }
  if constexpr (S == AccessSpace::constant) {
    asm("mov.u64 %0, memtopo_strided_constant;" : "=l"(view.constant));
  }
  local.fill(args);
}

// ld.const at a constant-space address, as the stream loads are written (one asm volatile).
__device__ __forceinline__ void load_constant(Words<4>& v, std::uint64_t a) {
  asm volatile("ld.const.u32 %0, [%1];" : "=r"(v.w[0]) : "l"(a));
}
__device__ __forceinline__ void load_constant(Words<8>& v, std::uint64_t a) {
  asm volatile("ld.const.v2.u32 {%0, %1}, [%2];" : "=r"(v.w[0]), "=r"(v.w[1]) : "l"(a));
}
__device__ __forceinline__ void load_constant(Words<16>& v, std::uint64_t a) {
  asm volatile("ld.const.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
               : "l"(a));
}

// The V bytes at byte `offset` of the space's array (local: of this thread's array).
template <AccessSpace S, unsigned V>
__device__ __forceinline__ void load_at(const SpaceView<S>& view, const LocalArray<S, V>& local,
                                        std::uint64_t offset, Words<V>& words) {
  if constexpr (S == AccessSpace::constant) {
    load_constant(words, view.constant + offset);
  } else if constexpr (S == AccessSpace::local) {
    words = local.elements[offset / V].words;
  } else {
    using Loads = StreamLoads<stream_path(S)>;
    Loads::load(view.stream, words, Loads::template address<V>(view.stream, offset));
  }
}

}  // namespace strided_detail

template <AccessSpace S, unsigned V>
__global__ void strided_throughput_kernel(StridedArgs args) {
  using namespace strided_detail;
  SpaceView<S> view;
  LocalArray<S, V> local;
  prepare(view, local, args);
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t warp = blockIdx.x * (blockDim.x / kWarpLanes) + threadIdx.x / kWarpLanes;
  const std::uint64_t lane_offset = args.start_offset_bytes + lane * args.lane_step_bytes;
  // Each in-flight request's base, wrapped by one subtraction per step (no division in the
  // loop: it would cost more issue slots than a broadcast request).
  std::uint64_t bases[kStridedRequestsInFlight];
#pragma unroll
  for (unsigned k = 0; k < kStridedRequestsInFlight; ++k) {
    bases[k] = (warp * args.requests_per_warp + k) % args.requests * args.span_bytes;
  }
  std::uint32_t live = 0;
#pragma unroll 1
  for (std::uint32_t r = 0; r < args.requests_per_warp; r += kStridedRequestsInFlight) {
    Words<V> loaded[kStridedRequestsInFlight];
#pragma unroll
    for (unsigned k = 0; k < kStridedRequestsInFlight; ++k) {
      load_at<S, V>(view, local, bases[k] + lane_offset, loaded[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < kStridedRequestsInFlight; ++k) {
      live = fold(live, loaded[k]);
      bases[k] += args.group_step_bytes;
      if (bases[k] >= args.footprint_bytes) bases[k] -= args.footprint_bytes;
    }
  }
  if (live == args.sink_key) *args.sink = live;
}

template <AccessSpace S, unsigned V>
__global__ void strided_latency_kernel(StridedArgs args) {
  using namespace strided_detail;
  using special_registers::clock64_now;
  SpaceView<S> view;
  LocalArray<S, V> local;
  prepare(view, local, args);
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t lane_offset = args.start_offset_bytes + lane * args.lane_step_bytes;
  std::uint32_t carried = 0;  // the previous request's data: 0, unknown to the compiler
  // An untimed pass, then the timed one over the same requests.
  for (std::uint32_t pass = 0; pass < 2; ++pass) {
#pragma unroll 1
    for (std::uint32_t r = 0; r < args.latency_requests; ++r) {
      const std::uint64_t at = r % args.requests * args.span_bytes + lane_offset + carried;
      const std::uint64_t begin = clock64_now();
      Words<V> loaded;
      load_at<S, V>(view, local, at, loaded);
      // Every lane's data reaches lane 0 before it reads the clock: the request is complete.
      carried = __reduce_or_sync(0xFFFFFFFFu, fold(0u, loaded));
      const std::uint64_t end = clock64_now();
      if (pass == 1 && lane == 0) args.cycles[r] = static_cast<std::uint32_t>(end - begin);
    }
  }
  if (carried == args.sink_key) *args.sink = carried;
}

namespace {

template <AccessSpace S, unsigned V>
const void* kernel_of(bool latency) {
  return latency ? reinterpret_cast<const void*>(&strided_latency_kernel<S, V>)
                 : reinterpret_cast<const void*>(&strided_throughput_kernel<S, V>);
}

template <AccessSpace S>
const void* by_width(std::uint32_t element_bytes, bool latency) {
  switch (element_bytes) {
    case 4:
      return kernel_of<S, 4>(latency);
    case 8:
      return kernel_of<S, 8>(latency);
    case 16:
      return kernel_of<S, 16>(latency);
    default:
      return nullptr;
  }
}

}  // namespace

const void* strided_kernel(AccessSpace space, std::uint32_t element_bytes, bool latency) {
  switch (space) {
    case AccessSpace::ca:
      return by_width<AccessSpace::ca>(element_bytes, latency);
    case AccessSpace::cg:
      return by_width<AccessSpace::cg>(element_bytes, latency);
    case AccessSpace::nc:
      return by_width<AccessSpace::nc>(element_bytes, latency);
    case AccessSpace::tex:
      return by_width<AccessSpace::tex>(element_bytes, latency);
    case AccessSpace::constant:
      return by_width<AccessSpace::constant>(element_bytes, latency);
    case AccessSpace::shared:
      return by_width<AccessSpace::shared>(element_bytes, latency);
    case AccessSpace::local:
      return by_width<AccessSpace::local>(element_bytes, latency);
  }
  return nullptr;
}

}  // namespace memtopo
