#pragma once
// Streaming experiments: what a bandwidth probe asks a backend to run, and what comes back.
//
// A stream is a kernel in which every warp walks a window of memory in warp tiles of
// 32 x vector_bytes x unroll bytes: in each iteration lane l of the warp loads (or stores)
// `unroll` vectors at tile + k x 32 x vector_bytes + l x vector_bytes, k = 0 .. unroll-1, so every
// load instruction of the warp touches 32 x vector_bytes contiguous bytes, and then moves on by
// a fixed step, wrapping around inside the window. The grid is blocks_per_sm blocks on every SM.
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "backend/experiment.hpp"

namespace memtopo {

enum class StreamOp {
  read,   // loads on `path`; the loaded values are folded into a register kept live
  write,  // stores: st.shared on the shared path, st.global on any other
  copy,   // loads on `path` from one array, stores of the loaded values to a second one
  // STREAM's triad, a[i] = b[i] + s x c[i]: loads on `path` (cg only) from two arrays, stores of
  // their combination to a third. Two reads to one write, the mix gpu-stream's and STREAM's
  // headline figure is measured with; its bytes are all three arrays', as they count them.
  triad,
  // gpu-stream's "triad" kernel, a[i] = b[i] x d[i] + c[i]: loads (cg only) from three arrays,
  // stores to a fourth. Three reads to one write; its bytes are all four arrays', as gpu-stream
  // counts them. A mix of its own: on an H200 it moved 4.48-4.49 TB/s where STREAM's triad
  // moved 4.40-4.44 and a copy 4.27.
  triad3,
};
std::string_view to_string(StreamOp op);

enum class StreamPlacement {
  // Every block streams over the same window of footprint_bytes (on the shared path: its own
  // copy in its shared memory), re-reading it: each SM's working set is the window, whatever
  // the blocks per SM. What an SM-local level (L1, shared memory) needs.
  per_block,
  // The warps of all blocks share one array of footprint_bytes: warp g of the launch starts at
  // tile g and every warp steps by all warps' tiles, so together they sweep the array in order.
  // What the device-wide levels (L2, DRAM) need.
  shared_by_all,
  // One array as in shared_by_all, but every warp streams one tile and ends: the grid covers
  // bytes_per_launch once (wrapping inside the array), and the GPU runs its blocks in waves of
  // what fits (blocks_per_sm is not used). What gpu-stream's kernels do: on Hopper, stores to
  // DRAM reach about 7 % more this way than from warps that loop (looping warps drift apart
  // and spread their stores over more DRAM pages).
  one_pass,
};
std::string_view to_string(StreamPlacement placement);

// What a stream kernel can be built for (each combination is one kernel instantiation).
inline constexpr std::uint32_t kStreamVectorBytes[] = {4, 8, 16};
inline constexpr std::uint32_t kStreamUnrolls[] = {1, 2, 4, 8};
// Writes and copies store 16-byte vectors only (st.global.v4 / st.shared.v4): the widest
// store, and the only width worth its instantiations.
inline constexpr std::uint32_t kStreamStoreVectorBytes = 16;
inline constexpr std::uint32_t kStreamWarpThreads = 32;

struct StreamSpec {
  // Reads: ca, cg, nc, tex or shared. Writes: shared memory (shared) or global memory (any
  // other path). Copies: cg (global to global) or shared (shared to shared). Triads: cg.
  LoadPath path = LoadPath::cg;
  StreamOp op = StreamOp::read;
  StreamPlacement placement = StreamPlacement::shared_by_all;
  // The window (per_block) or the array (shared_by_all); rounded down to a whole number of warp
  // tiles. A copy's destination is a second array of the same size; a triad has three.
  std::uint64_t footprint_bytes = 0;
  std::uint32_t vector_bytes = 16;        // 4, 8 or 16 (writes, copies and triads: 16)
  std::uint32_t blocks_per_sm = 1;        // the grid is blocks_per_sm x the SM count
  std::uint32_t threads_per_block = 256;  // a multiple of 32
  std::uint32_t unroll = 4;               // independent vectors per lane per iteration: 1, 2, 4, 8
  // The work of one launch: at least this many bytes moved (reads plus writes), rounded up to
  // whole iterations of every warp. Sized so that a launch lasts long enough to time.
  std::uint64_t bytes_per_launch = 0;
  std::uint32_t warmup_launches = 1;  // untimed launches first (fill the level under test)
  // The work of each warm-up launch (0: bytes_per_launch). A long final series warms up with a
  // launch of the search's length: the level was streamed just before, a warm-up only has to
  // fill it again, and a 4 ms warm-up per series was about 0.2 s of an H200 discovery.
  std::uint64_t warmup_bytes_per_launch = 0;
  std::uint32_t timed_launches = 3;
  // Global arrays only: each array starts this many bytes into its allocation, so that the same
  // footprint lies elsewhere in device memory (a multiple of kStreamArrayOffsetAlignment).
  std::uint64_t array_offset_bytes = 0;
};
// Array offsets are whole 2 MiB pages: another offset is other physical memory, and every
// vector and texture stays aligned.
inline constexpr std::uint64_t kStreamArrayOffsetAlignment = 2ull << 20;

struct StreamResult {
  std::vector<double> seconds;        // per timed launch
  std::uint64_t bytes_moved = 0;      // per launch, reads plus writes
  std::uint64_t footprint_bytes = 0;  // the window or array actually streamed over
  double sm_clock_khz = 0;            // SM clock during the timed launches (measured; 0 = unknown)
  double memory_clock_khz = 0;        // memory clock during them (0 = unknown)
  std::uint32_t sms = 0;              // SMs the grid covered
};

// The shape of one launch, the same on every backend.
struct StreamGeometry {
  std::uint64_t footprint_bytes = 0;  // rounded down to whole warp tiles
  std::uint64_t warp_tile_bytes = 0;  // 32 x vector_bytes x unroll
  std::uint64_t warps = 0;            // of the whole launch
  std::uint64_t blocks = 0;           // the grid
  std::uint64_t iterations = 0;       // per warp
  std::uint64_t bytes_moved = 0;      // per launch, reads plus writes
};

// The arrays a warp tile of `op` moves: 1 for a read or a write, 2 for a copy, 3 for a triad,
// 4 for a triad3.
std::uint64_t stream_arrays(StreamOp op);

// Checks a spec for consistency (vector width, unroll, threads, a window of at least one warp
// tile, a placement and op the path supports). Throws ExperimentError naming the problem.
void validate(const StreamSpec& spec);

// The launch geometry of a valid spec on a device with `sms` SMs.
StreamGeometry stream_geometry(const StreamSpec& spec, std::uint32_t sms);
// The geometry of its warm-up launches (warmup_bytes_per_launch; the timed one's when 0).
StreamGeometry stream_warmup_geometry(const StreamSpec& spec, std::uint32_t sms);

// Where launch `launch_index` (warm-up launches first, from 0) begins in its array, in bytes: a
// whole number of warp tiles. Device-wide placements (shared_by_all, one_pass) rotate: each
// launch begins where the one before it ended, so that over all launches the array is read in
// one unbroken order and every byte is read again only after the whole footprint. Without it
// every launch began at the array's start, and a launch of B bytes over a footprint F > B read
// the same B bytes again and again (the footprint a cache saw was B, not F; for B > F the
// first B mod F bytes came back after only B mod F). per_block windows: always 0.
// `warmup` and `timed`: the geometries of the warm-up and the timed launches (the same when the
// warm-up is as long; the three-argument form).
std::uint64_t stream_launch_start_bytes(const StreamSpec& spec, const StreamGeometry& warmup,
                                        const StreamGeometry& timed, std::uint64_t launch_index);
std::uint64_t stream_launch_start_bytes(const StreamSpec& spec, const StreamGeometry& geometry,
                                        std::uint64_t launch_index);

// Shared memory one block of the stream uses: its window on the shared path (twice that for a
// copy, source and destination), 0 otherwise.
std::uint64_t stream_shared_bytes_per_block(const StreamSpec& spec);

// Device memory the stream's arrays take: the footprint and the array offset (twice for a copy,
// three times for a triad) outside shared memory, 0 on the shared path.
std::uint64_t stream_device_bytes(const StreamSpec& spec);
// Whether the stream reads a global source array, and whether it writes a global destination
// (neither on the shared path; a write has no source, a read no destination).
bool stream_reads_global(const StreamSpec& spec);
bool stream_writes_global(const StreamSpec& spec);
// Whether the stream reads a second global source array (a triad's c), and a third (a triad3's d).
bool stream_reads_second_source(const StreamSpec& spec);
bool stream_reads_third_source(const StreamSpec& spec);

// The backend cannot run streams at all (a simulated device without a throughput model, a
// backend that never implemented them); the message says why. Not an ExperimentError: no other
// spec would run either, so a probe is skipped with this reason.
class StreamsUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The capability (Backend::streams()): runs one stream, its warm-up launches, then its timed
// launches, each timed alone. Throws ExperimentError for a spec this device cannot run (a
// configuration that does not fit on an SM, a footprint beyond its memory).
class StreamExperiments {
 public:
  virtual ~StreamExperiments() = default;
  virtual StreamResult run_stream(const StreamSpec& spec) = 0;
};

}  // namespace memtopo
