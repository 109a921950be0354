#pragma once
// The parameters of one stream-kernel launch, shared by the kernels (stream_kernel.cuh) and the
// host runner (stream_runner.cpp), and the lookup of the kernel built for a combination of
// op, path, vector width and unroll. Plain C++: callers need no nvcc.
#include <cstdint>

#include "backend/experiment.hpp"
#include "backend/stream.hpp"

namespace memtopo {

struct StreamArgs {
  const unsigned char* source = nullptr;         // global reads (ca, cg, nc) and a copy's source
  const unsigned char* second_source = nullptr;  // a triad's second source (c in b + s x c)
  const unsigned char* third_source = nullptr;   // a triad3's third source (d in b x d + c)
  unsigned char* destination = nullptr;          // global writes and a copy's destination
  std::uint64_t texture = 0;                     // tex: cudaTextureObject_t over the source
  std::uint64_t footprint_bytes = 0;             // the window or array: whole warp tiles
  // Warp g = blockIdx.x x start_warp_multiplier + warp in block starts at tile g (mod the
  // footprint): 0 for per_block (every block alike), the warps per block for shared_by_all.
  std::uint64_t start_warp_multiplier = 0;
  std::uint64_t step_bytes = 0;  // a warp's move per iteration, already reduced mod footprint
  // Where this launch begins in the array (stream_launch_start_bytes): a whole number of warp
  // tiles below footprint_bytes, added to every warp's first tile.
  std::uint64_t start_bytes = 0;
  std::uint32_t iterations = 0;     // per warp
  std::uint32_t launch_index = 0;   // block 0 records its span at clocks[2 x launch_index]
  std::uint64_t* clocks = nullptr;  // per launch: %clock64 cycles, then %globaltimer ns
  std::uint32_t* sink = nullptr;    // written only when the folded loads equal sink_key
  std::uint32_t sink_key = 0;
};

// The kernel built for this combination, as the handle cudaLaunchKernel and the occupancy
// calculator take; nullptr when none was built (stream.hpp says which exist: reads on ca, cg,
// nc, tex and shared at every vector width and unroll; writes and copies of 16-byte vectors at
// every unroll, global (any global path; copies read through cg) or shared; triads of 16-byte
// vectors at every unroll through cg).
const void* stream_kernel(StreamOp op, LoadPath path, std::uint32_t vector_bytes,
                          std::uint32_t unroll);

// The two translation units that hold the instantiations (compiled in parallel); each returns
// nullptr for what it does not hold.
const void* stream_kernel_global_reads(LoadPath path, std::uint32_t vector_bytes,
                                       std::uint32_t unroll);
const void* stream_kernel_others(StreamOp op, LoadPath path, std::uint32_t vector_bytes,
                                 std::uint32_t unroll);

}  // namespace memtopo
