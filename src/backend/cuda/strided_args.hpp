#pragma once
// The parameters of one strided-request launch (backend/strided_access.hpp), shared by the
// kernels (strided_kernel.cu) and the host runner (strided_runner.cpp). Plain C++.
#include <cstdint>

#include "backend/experiment.hpp"

namespace memtopo {

struct StridedArgs {
  const unsigned char* source = nullptr;  // ca, cg, nc: the array (zero-filled)
  std::uint64_t texture = 0;              // tex: a texture object over it
  std::uint64_t requests = 0;             // request spans in the walked footprint
  std::uint64_t span_bytes = 0;           // from one request's base to the next
  std::uint64_t lane_step_bytes = 0;      // stride x element bytes
  std::uint32_t start_offset_bytes = 0;
  std::uint32_t requests_per_warp = 0;  // throughput: per launch
  std::uint32_t latency_requests = 0;   // latency: timed dependent requests (one warp)
  std::uint32_t* cycles = nullptr;      // latency: per timed request
  std::uint32_t* sink = nullptr;        // written only when the loads fold to sink_key
  std::uint32_t sink_key = 0;
  std::uint32_t shared_window_bytes = 0;  // shared: each block's window (zero-filled first)
};

// The kernel for (path, element bytes), throughput or latency; nullptr where none is built
// (paths ca, cg, nc, tex, shared at 4, 8 and 16 bytes).
const void* strided_kernel(LoadPath path, std::uint32_t element_bytes, bool latency);

}  // namespace memtopo
