#pragma once
// The stream kernel: one template over (op, path, vector width, unroll), never one per level.
// A triad loads a tile from each of two sources and stores their combination (b + 3 c) to the
// destination at the same offset.
//
// Every warp walks the footprint in warp tiles of 32 x V x U bytes (stream.hpp): per iteration
// lane l issues U independent V-byte loads at tile + k x 32 V + l V (k = 0 .. U-1, each
// instruction coalesced over 32 x V contiguous bytes, conflict-free in shared memory), folds
// them into a live register, and moves on by step_bytes, wrapping inside the footprint; a launch
// begins start_bytes into the footprint (where the launch before it ended, stream.hpp). U
// vectors per lane are what one warp keeps in flight; blocks x threads x V x U per SM is what
// the SM does. The outer loop is not unrolled further, so U means what the configuration says.
// Block 0's thread 0 records %clock64 and %globaltimer around its loop: the SM clock during the
// launch, measured rather than read from the API.
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/special_registers.cuh"
#include "backend/cuda/stream_args.hpp"
#include "backend/cuda/stream_paths.cuh"

namespace memtopo {

extern __shared__ uint4 stream_shared_window[];

namespace stream_detail {

using special_registers::clock64_now;
using special_registers::globaltimer_ns;

// The shared path streams over the block's own window: filled before the clock starts, so
// that nothing reads unwritten shared memory.
__device__ __forceinline__ void fill_shared_window(std::uint64_t bytes, std::uint32_t key) {
  std::uint32_t* words = reinterpret_cast<std::uint32_t*>(stream_shared_window);
  for (std::uint64_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) {
    words[i] = static_cast<std::uint32_t>(i) ^ key;
  }
  __syncthreads();
}

template <LoadPath P>
__device__ __forceinline__ StreamView make_view(const StreamArgs& args, StreamOp op) {
  StreamView view;
  view.global = args.source;
  view.global_out = args.destination;
  view.texture = args.texture;
  if constexpr (P == LoadPath::shared) {
    view.shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(stream_shared_window));
    // A copy writes the second half of the block's shared memory; a write the first.
    view.shared_out =
        view.shared +
        (op == StreamOp::copy ? static_cast<std::uint32_t>(args.footprint_bytes) : 0u);
    if (op != StreamOp::write) fill_shared_window(args.footprint_bytes, args.sink_key);
  }
  return view;
}

// U independent loads of one iteration, then their fold: the loads are all issued before the
// first use.
template <LoadPath P, unsigned V, unsigned U>
__device__ __forceinline__ void load_tile(const StreamView& view, std::uint64_t offset,
                                          Words<V> (&loaded)[U]) {
  using Loads = StreamLoads<P>;
  const typename Loads::Address base = Loads::template address<V>(view, offset);
#pragma unroll
  for (unsigned k = 0; k < U; ++k) {
    Loads::load(view, loaded[k], Loads::template at<V>(base, k * kStreamWarpThreads * V));
  }
}

template <LoadPath P, unsigned U>
__device__ __forceinline__ void store_tile(const StreamView& view, std::uint64_t offset,
                                           const Words<16> (&values)[U]) {
  constexpr unsigned kInstructionBytes = kStreamWarpThreads * 16;
#pragma unroll
  for (unsigned k = 0; k < U; ++k) {
    if constexpr (P == LoadPath::shared) {
      store_shared(view.shared_out + static_cast<std::uint32_t>(offset) + k * kInstructionBytes,
                   values[k]);
    } else {
      store_global(view.global_out + offset + k * kInstructionBytes, values[k]);
    }
  }
}

// A triad3's combination, a = b x d + c word by word (gpu-stream's triad kernel).
template <unsigned U>
__device__ __forceinline__ void triad3_combine(Words<16> (&b)[U], const Words<16> (&c)[U],
                                               const Words<16> (&d)[U]) {
#pragma unroll
  for (unsigned k = 0; k < U; ++k) {
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) b[k].w[i] = b[k].w[i] * d[k].w[i] + c[k].w[i];
  }
}

// A triad's combination, a = b + s x c word by word: one IMAD per word, which the compiler
// cannot drop (the stores are asm volatile) and which costs nothing beside the memory.
inline constexpr std::uint32_t kTriadScale = 3;
template <unsigned U>
__device__ __forceinline__ void triad_combine(Words<16> (&b)[U], const Words<16> (&c)[U]) {
#pragma unroll
  for (unsigned k = 0; k < U; ++k) {
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) b[k].w[i] += kTriadScale * c[k].w[i];
  }
}

}  // namespace stream_detail

template <StreamOp Op, LoadPath P, unsigned V, unsigned U>
__global__ void stream_kernel(StreamArgs args) {
  using namespace stream_detail;
  constexpr std::uint64_t kWarpTile = std::uint64_t{kStreamWarpThreads} * V * U;
  const std::uint32_t lane = threadIdx.x % kStreamWarpThreads;
  const std::uint32_t warp = threadIdx.x / kStreamWarpThreads;
  const StreamView view = make_view<P>(args, Op);
  const std::uint64_t first_warp = blockIdx.x * args.start_warp_multiplier + warp;
  std::uint64_t offset =
      (first_warp * kWarpTile + args.start_bytes) % args.footprint_bytes + lane * V;

  const bool records_clock = blockIdx.x == 0 && threadIdx.x == 0;
  std::uint64_t cycles_begin = 0, ns_begin = 0;
  if (records_clock) {
    cycles_begin = clock64_now();
    ns_begin = globaltimer_ns();
  }
  // Every iteration: the op's work on the tile at `offset`, then the step, wrapping.
  const auto walk = [&](auto&& work) {
#pragma unroll 1
    for (std::uint32_t iteration = 0; iteration < args.iterations; ++iteration) {
      work(offset);
      offset += args.step_bytes;
      if (offset >= args.footprint_bytes) offset -= args.footprint_bytes;
    }
  };
  std::uint32_t live = 0;
  if constexpr (Op == StreamOp::write) {
    Words<16> stored[U];  // distinct per lane, computed once: no ALU work in the loop
#pragma unroll
    for (unsigned k = 0; k < U; ++k) stored[k] = {{lane, warp, blockIdx.x, args.sink_key ^ k}};
    walk([&](std::uint64_t at) { store_tile<P, U>(view, at, stored); });
  } else if constexpr (Op == StreamOp::copy) {
    static_assert(V == 16, "copies move 16-byte vectors");
    walk([&](std::uint64_t at) {
      Words<V> loaded[U];
      load_tile<P, V, U>(view, at, loaded);
      store_tile<P, U>(view, at, loaded);
    });
  } else if constexpr (Op == StreamOp::triad) {
    static_assert(V == 16 && P == LoadPath::cg, "triads move 16-byte vectors through cg");
    StreamView second = view;
    second.global = args.second_source;
    walk([&](std::uint64_t at) {
      Words<V> b[U], c[U];  // both tiles' loads are issued before the first use
      load_tile<P, V, U>(view, at, b);
      load_tile<P, V, U>(second, at, c);
      triad_combine<U>(b, c);
      store_tile<P, U>(view, at, b);
    });
  } else if constexpr (Op == StreamOp::triad3) {
    static_assert(V == 16 && P == LoadPath::cg, "triads move 16-byte vectors through cg");
    StreamView second = view;
    second.global = args.second_source;
    StreamView third = view;
    third.global = args.third_source;
    walk([&](std::uint64_t at) {
      Words<V> b[U], c[U], d[U];  // all three tiles' loads are issued before the first use
      load_tile<P, V, U>(view, at, b);
      load_tile<P, V, U>(second, at, c);
      load_tile<P, V, U>(third, at, d);
      triad3_combine<U>(b, c, d);
      store_tile<P, U>(view, at, b);
    });
  } else {
    walk([&](std::uint64_t at) {
      Words<V> loaded[U];
      load_tile<P, V, U>(view, at, loaded);
#pragma unroll
      for (unsigned k = 0; k < U; ++k) live = fold(live, loaded[k]);
    });
  }

  if (records_clock) {
    args.clocks[2 * args.launch_index] = clock64_now() - cycles_begin;
    args.clocks[2 * args.launch_index + 1] = globaltimer_ns() - ns_begin;
  }
  // A store the compiler cannot prove dead keeps every load; it practically never happens.
  if (Op == StreamOp::read && live == args.sink_key) *args.sink = live;
}

}  // namespace memtopo
