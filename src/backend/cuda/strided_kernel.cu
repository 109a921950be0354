// Strided warp requests (backend/strided_access.hpp): one template over (path, element size),
// reusing the stream kernels' loads (stream_paths.cuh: one inline-PTX load per path), never one
// kernel per space. Throughput: every warp issues its requests kStridedRequestsInFlight at a
// time, independent of each other. Latency: one warp, each request's address offset by the
// previous request's data (always 0: the array is zero-filled), timed by lane 0 with %clock.
#include <cuda_runtime.h>

#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/stream_paths.cuh"
#include "backend/cuda/strided_args.hpp"
#include "backend/strided_access.hpp"

namespace memtopo {

extern __shared__ uint4 strided_shared_window[];

namespace strided_detail {

template <LoadPath P>
__device__ __forceinline__ StreamView make_view(const StridedArgs& args) {
  StreamView view;
  view.global = args.source;
  view.texture = args.texture;
  if constexpr (P == LoadPath::shared) {
    std::uint32_t* words = reinterpret_cast<std::uint32_t*>(strided_shared_window);
    for (std::uint32_t i = threadIdx.x; i < args.shared_window_bytes / 4; i += blockDim.x) {
      words[i] = 0;
    }
    __syncthreads();
    view.shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(strided_shared_window));
  }
  return view;
}

template <LoadPath P, unsigned V>
__device__ __forceinline__ void load_at(const StreamView& view, std::uint64_t offset,
                                        Words<V>& words) {
  using Loads = StreamLoads<P>;
  Loads::load(view, words, Loads::template address<V>(view, offset));
}

}  // namespace strided_detail

template <LoadPath P, unsigned V>
__global__ void strided_throughput_kernel(StridedArgs args) {
  using namespace strided_detail;
  const StreamView view = make_view<P>(args);
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t warp = blockIdx.x * (blockDim.x / kWarpLanes) + threadIdx.x / kWarpLanes;
  const std::uint64_t lane_offset = args.start_offset_bytes + lane * args.lane_step_bytes;
  std::uint64_t request = warp * args.requests_per_warp % args.requests;
  std::uint32_t live = 0;
#pragma unroll 1
  for (std::uint32_t r = 0; r < args.requests_per_warp; r += kStridedRequestsInFlight) {
    Words<V> loaded[kStridedRequestsInFlight];
#pragma unroll
    for (unsigned k = 0; k < kStridedRequestsInFlight; ++k) {
      const std::uint64_t at = (request + k) % args.requests * args.span_bytes + lane_offset;
      load_at<P, V>(view, at, loaded[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < kStridedRequestsInFlight; ++k) live = fold(live, loaded[k]);
    request = (request + kStridedRequestsInFlight) % args.requests;
  }
  if (live == args.sink_key) *args.sink = live;
}

template <LoadPath P, unsigned V>
__global__ void strided_latency_kernel(StridedArgs args) {
  using namespace strided_detail;
  using special_registers::clock64_now;
  const StreamView view = make_view<P>(args);
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
      load_at<P, V>(view, at, loaded);
      // Every lane's data reaches lane 0 before it reads the clock: the request is complete.
      carried = __reduce_or_sync(0xFFFFFFFFu, fold(0u, loaded));
      const std::uint64_t end = clock64_now();
      if (pass == 1 && lane == 0) args.cycles[r] = static_cast<std::uint32_t>(end - begin);
    }
  }
  if (carried == args.sink_key) *args.sink = carried;
}

namespace {

template <LoadPath P>
const void* by_width(std::uint32_t element_bytes, bool latency) {
  switch (element_bytes) {
    case 4:
      return latency ? reinterpret_cast<const void*>(&strided_latency_kernel<P, 4>)
                     : reinterpret_cast<const void*>(&strided_throughput_kernel<P, 4>);
    case 8:
      return latency ? reinterpret_cast<const void*>(&strided_latency_kernel<P, 8>)
                     : reinterpret_cast<const void*>(&strided_throughput_kernel<P, 8>);
    case 16:
      return latency ? reinterpret_cast<const void*>(&strided_latency_kernel<P, 16>)
                     : reinterpret_cast<const void*>(&strided_throughput_kernel<P, 16>);
    default:
      return nullptr;
  }
}

}  // namespace

const void* strided_kernel(LoadPath path, std::uint32_t element_bytes, bool latency) {
  switch (path) {
    case LoadPath::ca:
      return by_width<LoadPath::ca>(element_bytes, latency);
    case LoadPath::cg:
      return by_width<LoadPath::cg>(element_bytes, latency);
    case LoadPath::nc:
      return by_width<LoadPath::nc>(element_bytes, latency);
    case LoadPath::tex:
      return by_width<LoadPath::tex>(element_bytes, latency);
    case LoadPath::shared:
      return by_width<LoadPath::shared>(element_bytes, latency);
    default:
      return nullptr;
  }
}

}  // namespace memtopo
