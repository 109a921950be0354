// Stream kernels, part 1: reads through ca, cg and nc (36 instantiations), apart from the rest
// so that the two compile in parallel.
#include "backend/cuda/stream_kernel_lookup.cuh"

namespace memtopo {

const void* stream_kernel_global_reads(LoadPath path, std::uint32_t vector_bytes,
                                       std::uint32_t unroll) {
  using stream_detail::read_kernel;
  switch (path) {
    case LoadPath::ca:
      return read_kernel<LoadPath::ca>(vector_bytes, unroll);
    case LoadPath::cg:
      return read_kernel<LoadPath::cg>(vector_bytes, unroll);
    case LoadPath::nc:
      return read_kernel<LoadPath::nc>(vector_bytes, unroll);
    default:
      return nullptr;
  }
}

}  // namespace memtopo
