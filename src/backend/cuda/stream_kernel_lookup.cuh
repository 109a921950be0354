#pragma once
// Maps runtime (vector width, unroll) to the stream kernel instantiation for them; taking the
// address instantiates the kernel in the translation unit that includes this.
#include <cstdint>

#include "backend/cuda/stream_kernel.cuh"

namespace memtopo::stream_detail {

template <StreamOp Op, LoadPath P, unsigned V>
const void* kernel_by_unroll(std::uint32_t unroll) {
  switch (unroll) {
    case 1:
      return reinterpret_cast<const void*>(&stream_kernel<Op, P, V, 1>);
    case 2:
      return reinterpret_cast<const void*>(&stream_kernel<Op, P, V, 2>);
    case 4:
      return reinterpret_cast<const void*>(&stream_kernel<Op, P, V, 4>);
    case 8:
      return reinterpret_cast<const void*>(&stream_kernel<Op, P, V, 8>);
    default:
      return nullptr;
  }
}

// Reads at every vector width.
template <LoadPath P>
const void* read_kernel(std::uint32_t vector_bytes, std::uint32_t unroll) {
  switch (vector_bytes) {
    case 4:
      return kernel_by_unroll<StreamOp::read, P, 4>(unroll);
    case 8:
      return kernel_by_unroll<StreamOp::read, P, 8>(unroll);
    case 16:
      return kernel_by_unroll<StreamOp::read, P, 16>(unroll);
    default:
      return nullptr;
  }
}

}  // namespace memtopo::stream_detail
