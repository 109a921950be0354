#pragma once
// The parameters of one strided-request launch (backend/strided_access.hpp), shared by the
// kernels (strided_kernel.cu) and the host runner (strided_runner.cpp). Plain C++.
#include <cstdint>

#include "backend/strided_access.hpp"

namespace memtopo {

struct StridedArgs {
  const unsigned char* source = nullptr;  // ca, cg, nc: the array (zero-filled)
  std::uint64_t texture = 0;              // tex: a texture object over it
  std::uint64_t requests = 0;             // request spans in the walked footprint
  std::uint64_t span_bytes = 0;           // from one request's base to the next
  std::uint64_t footprint_bytes = 0;      // requests x span_bytes
  // From one group of kStridedRequestsInFlight requests to the next, wrapped: (in flight mod
  // requests) x span_bytes, so that a request's offset wraps with one subtraction.
  std::uint64_t group_step_bytes = 0;
  std::uint64_t lane_step_bytes = 0;  // stride x element bytes
  std::uint32_t start_offset_bytes = 0;
  std::uint32_t requests_per_warp = 0;  // throughput: per launch
  std::uint32_t latency_requests = 0;   // latency: timed dependent requests (one warp)
  std::uint32_t* cycles = nullptr;      // latency: per timed request
  std::uint32_t* sink = nullptr;        // written only when the loads fold to sink_key
  std::uint32_t sink_key = 0;
  std::uint32_t shared_window_bytes = 0;  // shared: each block's window (zero-filled first)
  // local: whether every thread first fills the part of its array the requests walk with
  // local_fill_word (0). The warm-up and latency launches fill; the timed ones do not, so that
  // the fill is not timed (they read whatever local memory holds: the values feed only the
  // sink, never an address). A runtime value, so that the compiler can fold no load away.
  std::uint32_t fill_local = 0;
  std::uint32_t local_fill_word = 0;
};

// The kernel for (space, element bytes), throughput or latency; nullptr where none is built
// (every space at 4, 8 and 16 bytes is).
const void* strided_kernel(AccessSpace space, std::uint32_t element_bytes, bool latency);

}  // namespace memtopo
