#include "backend/stream.hpp"

#include <algorithm>
#include <string>

#include "backend/backend.hpp"

namespace memtopo {
namespace {

constexpr std::uint32_t kMaxThreadsPerBlock = 1024;

template <std::size_t N>
bool listed(const std::uint32_t (&values)[N], std::uint32_t value) {
  return std::find(std::begin(values), std::end(values), value) != std::end(values);
}

bool streams_on(LoadPath path) {
  return path == LoadPath::ca || path == LoadPath::cg || path == LoadPath::nc ||
         path == LoadPath::tex || path == LoadPath::shared;
}

std::uint64_t warp_tile_bytes(const StreamSpec& spec) {
  return std::uint64_t{kStreamWarpThreads} * spec.vector_bytes * spec.unroll;
}

}  // namespace

std::string_view to_string(StreamOp op) {
  switch (op) {
    case StreamOp::read:
      return "read";
    case StreamOp::write:
      return "write";
    case StreamOp::copy:
      return "copy";
    case StreamOp::triad:
      return "triad";
    case StreamOp::triad3:
      return "triad3";
  }
  return "?";
}

std::uint64_t stream_arrays(StreamOp op) {
  switch (op) {
    case StreamOp::copy:
      return 2;
    case StreamOp::triad:
      return 3;
    case StreamOp::triad3:
      return 4;
    default:
      return 1;
  }
}

std::string_view to_string(StreamPlacement placement) {
  switch (placement) {
    case StreamPlacement::per_block:
      return "per_block";
    case StreamPlacement::shared_by_all:
      return "shared_by_all";
    case StreamPlacement::one_pass:
      return "one_pass";
  }
  return "?";
}

void validate(const StreamSpec& spec) {
  const auto fail = [](const std::string& what) { throw ExperimentError("stream spec: " + what); };
  const std::string path(to_string(spec.path));
  if (!streams_on(spec.path)) fail("no stream runs on the " + path + " path");
  if (!listed(kStreamVectorBytes, spec.vector_bytes)) {
    fail("vector_bytes " + std::to_string(spec.vector_bytes) + " is not 4, 8 or 16");
  }
  if (spec.op != StreamOp::read && spec.vector_bytes != kStreamStoreVectorBytes) {
    fail("writes, copies and triads store " + std::to_string(kStreamStoreVectorBytes) +
         "-byte vectors, not " + std::to_string(spec.vector_bytes));
  }
  if (!listed(kStreamUnrolls, spec.unroll)) {
    fail("unroll " + std::to_string(spec.unroll) + " is not 1, 2, 4 or 8");
  }
  if (spec.threads_per_block == 0 || spec.threads_per_block % kStreamWarpThreads != 0 ||
      spec.threads_per_block > kMaxThreadsPerBlock) {
    fail("threads_per_block " + std::to_string(spec.threads_per_block) +
         " is not a multiple of 32 between 32 and 1024");
  }
  if (spec.blocks_per_sm == 0) fail("blocks_per_sm must be at least 1");
  if (spec.timed_launches == 0) fail("timed_launches must be at least 1");
  if (spec.bytes_per_launch == 0) fail("bytes_per_launch must be at least 1");
  if (spec.warmup_bytes_per_launch > spec.bytes_per_launch) {
    fail("warmup_bytes_per_launch " + std::to_string(spec.warmup_bytes_per_launch) +
         " exceeds bytes_per_launch " + std::to_string(spec.bytes_per_launch));
  }
  if (spec.footprint_bytes < warp_tile_bytes(spec)) {
    fail("footprint_bytes " + std::to_string(spec.footprint_bytes) + " holds no warp tile of " +
         std::to_string(warp_tile_bytes(spec)) + " bytes (32 x vector_bytes x unroll)");
  }
  if (spec.array_offset_bytes % kStreamArrayOffsetAlignment != 0) {
    fail("array_offset_bytes " + std::to_string(spec.array_offset_bytes) +
         " is not a multiple of " + std::to_string(kStreamArrayOffsetAlignment));
  }
  if (spec.path == LoadPath::shared && spec.array_offset_bytes != 0) {
    fail("array_offset_bytes moves global arrays; the shared path has none");
  }
  if (spec.path == LoadPath::shared && spec.placement != StreamPlacement::per_block) {
    fail("shared memory belongs to a block: the shared path needs placement per_block");
  }
  if (spec.path == LoadPath::tex && spec.op != StreamOp::read) {
    fail("textures are read-only: the tex path only reads");
  }
  if (spec.op == StreamOp::copy && spec.path != LoadPath::cg && spec.path != LoadPath::shared) {
    fail("a copy reads through cg (global memory) or shared, not " + path);
  }
  if ((spec.op == StreamOp::triad || spec.op == StreamOp::triad3) && spec.path != LoadPath::cg) {
    fail("a triad reads through cg (global memory), not " + path);
  }
}

StreamGeometry stream_geometry(const StreamSpec& spec, std::uint32_t sms) {
  StreamGeometry geometry;
  geometry.warp_tile_bytes = warp_tile_bytes(spec);
  geometry.footprint_bytes =
      spec.footprint_bytes / geometry.warp_tile_bytes * geometry.warp_tile_bytes;
  const std::uint64_t warps_per_block = spec.threads_per_block / kStreamWarpThreads;
  const std::uint64_t tile_moves =
      geometry.warp_tile_bytes * stream_arrays(spec.op);  // bytes per warp tile
  if (warps_per_block == 0 || tile_moves == 0) return geometry;
  if (spec.placement == StreamPlacement::one_pass) {
    // As many blocks as bytes_per_launch needs, one tile per warp.
    const std::uint64_t block_moves = warps_per_block * tile_moves;
    geometry.blocks =
        std::max<std::uint64_t>(1, (spec.bytes_per_launch + block_moves - 1) / block_moves);
    geometry.warps = geometry.blocks * warps_per_block;
    geometry.iterations = 1;
  } else {
    geometry.blocks = std::uint64_t{sms} * spec.blocks_per_sm;
    geometry.warps = geometry.blocks * warps_per_block;
    const std::uint64_t per_iteration = geometry.warps * tile_moves;
    geometry.iterations =
        std::max<std::uint64_t>(1, (spec.bytes_per_launch + per_iteration - 1) / per_iteration);
  }
  geometry.bytes_moved = geometry.iterations * geometry.warps * tile_moves;
  return geometry;
}

StreamGeometry stream_warmup_geometry(const StreamSpec& spec, std::uint32_t sms) {
  if (spec.warmup_bytes_per_launch == 0) return stream_geometry(spec, sms);
  StreamSpec warmup = spec;
  warmup.bytes_per_launch = spec.warmup_bytes_per_launch;
  return stream_geometry(warmup, sms);
}

std::uint64_t stream_launch_start_bytes(const StreamSpec& spec, const StreamGeometry& warmup,
                                        const StreamGeometry& timed, std::uint64_t launch_index) {
  if (spec.placement == StreamPlacement::per_block || timed.footprint_bytes == 0) return 0;
  const std::uint64_t footprint = timed.footprint_bytes;
  // Bytes of the array one launch walks (a copy moves each of them twice, a triad thrice).
  const auto walked = [&](const StreamGeometry& g, std::uint64_t launches) {
    using Wide = unsigned __int128;  // (index mod F) x (walk mod F) overflows 64 bits
    const std::uint64_t walk = g.iterations * g.warps * g.warp_tile_bytes;
    return static_cast<std::uint64_t>(Wide{launches % footprint} * (walk % footprint) % footprint);
  };
  const std::uint64_t warmups = std::min<std::uint64_t>(launch_index, spec.warmup_launches);
  return (walked(warmup, warmups) + walked(timed, launch_index - warmups)) % footprint;
}

std::uint64_t stream_launch_start_bytes(const StreamSpec& spec, const StreamGeometry& geometry,
                                        std::uint64_t launch_index) {
  return stream_launch_start_bytes(spec, geometry, geometry, launch_index);
}

std::uint64_t stream_shared_bytes_per_block(const StreamSpec& spec) {
  const std::uint64_t tile = warp_tile_bytes(spec);
  if (spec.path != LoadPath::shared || tile == 0) return 0;
  const std::uint64_t window = spec.footprint_bytes / tile * tile;
  return spec.op == StreamOp::copy ? 2 * window : window;
}

bool stream_reads_global(const StreamSpec& spec) {
  return spec.path != LoadPath::shared && spec.op != StreamOp::write;
}

bool stream_writes_global(const StreamSpec& spec) {
  return spec.path != LoadPath::shared && spec.op != StreamOp::read;
}

bool stream_reads_second_source(const StreamSpec& spec) {
  return spec.path != LoadPath::shared &&
         (spec.op == StreamOp::triad || spec.op == StreamOp::triad3);
}

bool stream_reads_third_source(const StreamSpec& spec) {
  return spec.path != LoadPath::shared && spec.op == StreamOp::triad3;
}

std::uint64_t stream_device_bytes(const StreamSpec& spec) {
  if (spec.path == LoadPath::shared) return 0;
  const std::uint64_t array = spec.array_offset_bytes + spec.footprint_bytes;
  return stream_arrays(spec.op) * array;
}

}  // namespace memtopo
