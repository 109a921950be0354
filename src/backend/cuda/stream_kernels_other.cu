// Stream kernels, part 2: reads through tex and shared, writes and copies (16-byte vectors),
// global and shared, and triads (16-byte vectors through cg).
#include "backend/cuda/stream_kernel_lookup.cuh"

namespace memtopo {

const void* stream_kernel_others(StreamOp op, LoadPath path, std::uint32_t vector_bytes,
                                 std::uint32_t unroll) {
  using stream_detail::kernel_by_unroll;
  using stream_detail::read_kernel;
  const bool shared = path == LoadPath::shared;
  switch (op) {
    case StreamOp::read:
      if (path == LoadPath::tex) return read_kernel<LoadPath::tex>(vector_bytes, unroll);
      if (shared) return read_kernel<LoadPath::shared>(vector_bytes, unroll);
      return nullptr;
    case StreamOp::write:
      if (vector_bytes != kStreamStoreVectorBytes) return nullptr;
      // A write's path only says where: every global path stores with st.global.
      return shared ? kernel_by_unroll<StreamOp::write, LoadPath::shared, 16>(unroll)
                    : kernel_by_unroll<StreamOp::write, LoadPath::cg, 16>(unroll);
    case StreamOp::copy:
      if (vector_bytes != kStreamStoreVectorBytes) return nullptr;
      if (shared) return kernel_by_unroll<StreamOp::copy, LoadPath::shared, 16>(unroll);
      if (path == LoadPath::cg) return kernel_by_unroll<StreamOp::copy, LoadPath::cg, 16>(unroll);
      return nullptr;
    case StreamOp::triad:
      if (vector_bytes != kStreamStoreVectorBytes || path != LoadPath::cg) return nullptr;
      return kernel_by_unroll<StreamOp::triad, LoadPath::cg, 16>(unroll);
    case StreamOp::triad3:
      if (vector_bytes != kStreamStoreVectorBytes || path != LoadPath::cg) return nullptr;
      return kernel_by_unroll<StreamOp::triad3, LoadPath::cg, 16>(unroll);
  }
  return nullptr;
}

}  // namespace memtopo
