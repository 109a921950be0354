#pragma once
// Strided warp requests (study 001, 3.4.1 and 3.4.3): every warp issues load requests in which
// lane l reads the element at request base + l x stride x element bytes. What the stride and
// coalescing studies measure: throughput with every SM busy, and the latency of one warp's
// dependent requests. Plain data, like ChaseSpec and StreamSpec.
//
// A capability (Backend::strided_access(), nullptr where a backend cannot run them).
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/warp_access.hpp"

namespace memtopo {

// The memory space a request reads: global memory through one of its load paths, or another
// space. Local memory is global memory private to a thread (ld.local): no LoadPath of its own.
enum class AccessSpace { ca, cg, nc, tex, constant, shared, local };
inline constexpr AccessSpace kAllAccessSpaces[] = {
    AccessSpace::ca,       AccessSpace::cg,     AccessSpace::nc,   AccessSpace::tex,
    AccessSpace::constant, AccessSpace::shared, AccessSpace::local};
std::string_view to_string(AccessSpace space);
std::optional<AccessSpace> parse_access_space(std::string_view name);
// The load path whose caches serve the space: local memory is cached like ca loads.
LoadPath load_path_of(AccessSpace space);

// Element sizes a lane may load: 4, 8 or 16 bytes (u32, v2.u32, v4.u32).
inline constexpr std::uint32_t kStridedElementBytes[] = {4, 8, 16};
// Requests each lane keeps in flight in a throughput launch (independent loads per iteration).
inline constexpr std::uint32_t kStridedRequestsInFlight = 4;
// Every request's span starts on a boundary of this many bytes (plus start_offset_bytes): the
// largest line size of any NVIDIA cache, so that an aligned request is aligned for every level.
inline constexpr std::uint32_t kRequestAlignmentBytes = 128;
// Constant memory: the requests walk a __constant__ array of the whole constant bank a module
// may use; a larger footprint is an ExperimentError.
inline constexpr std::uint64_t kConstantBankBytes = 64 * 1024;
// Local memory: every thread walks its own array of this many elements (the footprint is one
// thread's array, at most this x element_bytes), enough for one request at stride 64
// (lane 31 at element 31 x 64 = 1984). Local memory is interleaved by the hardware: element i
// of the 32 threads of a warp lie side by side, so lane l reading element l x stride of its
// own array touches a row of its own for every stride but 0.
inline constexpr std::uint32_t kLocalArrayElements = 2048;

struct StridedAccessSpec {
  AccessSpace space = AccessSpace::ca;
  std::uint32_t element_bytes = 4;
  // Lane l reads element l x stride_elements of the request; 0: every lane the same element.
  std::uint32_t stride_elements = 1;
  // Every request starts this many bytes past its aligned boundary (a misaligned start); a
  // multiple of element_bytes, below kRequestAlignmentBytes.
  std::uint32_t start_offset_bytes = 0;
  // The array the requests walk, wrapping (shared: each block's window; constant: at most the
  // constant bank; local: each thread's own array, at most kLocalArrayElements elements).
  // Rounded down to whole request spans.
  std::uint64_t footprint_bytes = 0;
  // Throughput: blocks_per_sm x SMs blocks of threads_per_block threads, each warp issuing
  // requests_per_warp requests per launch (independent, several in flight); 0 timed launches:
  // no throughput.
  std::uint32_t blocks_per_sm = 1;
  std::uint32_t threads_per_block = 256;
  std::uint32_t requests_per_warp = 64;
  std::uint32_t warmup_launches = 1;
  std::uint32_t timed_launches = 3;
  // Latency: one warp alone issues this many dependent requests (each address waits for the
  // previous request's data), after one untimed pass over the same requests; 0: no latency.
  std::uint32_t latency_requests = 0;
};

struct StridedAccessResult {
  std::vector<double> seconds;         // per timed launch
  std::uint64_t requested_bytes = 0;   // per launch: what the lanes asked for (element x lanes)
  std::vector<double> latency_cycles;  // per timed dependent request, timing overhead removed
  double sm_clock_khz = 0;             // during the launches (0: unknown)
  std::uint32_t sms = 0;
};

// Bytes from one request's base to the next one's: the lanes' reach rounded up to
// kRequestAlignmentBytes, so that consecutive requests share no line.
std::uint64_t request_span_bytes(const StridedAccessSpec& spec);
// The footprint actually walked: whole request spans, at least one.
std::uint64_t walked_footprint_bytes(const StridedAccessSpec& spec);
// Byte offsets (in the array) the 32 lanes of request `request` read, in lane order.
std::array<std::uint64_t, kWarpLanes> lane_offsets(const StridedAccessSpec& spec,
                                                   std::uint64_t request);
// Local memory as the hardware lays it out: word w (4 bytes) of every thread of a warp side by
// side, so thread l's word w lies at w x 128 + l x 4 in the warp's local memory (CUDA
// programming guide, "Local Memory"). The byte offsets of every 4-byte word the 32 lanes of
// request `request` read in their own arrays, in that layout.
inline constexpr std::uint32_t kLocalWordBytes = 4;
std::vector<std::uint64_t> interleaved_local_words(const StridedAccessSpec& spec,
                                                   std::uint64_t request);
// Distinct `unit_bytes`-aligned blocks (sectors, lines) that loads of `access_bytes` at these
// byte offsets touch: what the memory system has to move for one request.
std::uint32_t units_touched(std::span<const std::uint64_t> offsets, std::uint32_t access_bytes,
                            std::uint32_t unit_bytes);

// Checks a spec (element size, offset, a footprint holding a request, threads a multiple of
// 32, something to measure). Throws ExperimentError naming the problem.
void validate(const StridedAccessSpec& spec);

// The capability (see the top of this file).
class StridedAccessRunner {
 public:
  virtual ~StridedAccessRunner() = default;
  // Throws ExperimentError for a spec this device cannot run, StreamsUnsupported where the
  // space cannot be measured here at all (a simulated device without the model it needs).
  virtual StridedAccessResult run_strided(const StridedAccessSpec& spec) = 0;
};

}  // namespace memtopo
