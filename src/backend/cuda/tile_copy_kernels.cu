// TMA (thesis 004, 6.3.2: "how the latency and bandwidth change with and without the Tensor
// Memory Accelerator"): tiles copied global -> shared by a 1D bulk copy (cp.async.bulk), a 2D
// tensor copy through a tensor map (cp.async.bulk.tensor.2d), or plain loads (every thread of
// the block: ld.global.cg v4, st.shared v4, then a barrier), timed one tile at a time (latency)
// and with one block per SM copying many tiles (throughput). The source is laid out as a 2D
// array of `pitch` bytes per row; a tile is `rows` rows of `row_bytes`.
#include <cuda.h>  // CUtensorMap (types only: the encoder comes from the driver at run time)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/block_rates.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/hopper_kernels.hpp"
#include "backend/cuda/hopper_ptx.cuh"
#include "backend/cuda/special_registers.cuh"

namespace memtopo {
namespace {

using special_registers::clock64_now;
using special_registers::globaltimer_ns;
using special_registers::shared_address;
using special_registers::sm_id;

constexpr std::uint32_t kIssueThreads = 32;   // TMA: one thread issues, one warp launched
constexpr std::uint32_t kPlainThreads = 512;  // plain loads: a block's worth of vectors at once
constexpr std::uint32_t kVectorBytes = 16;
constexpr std::uint32_t kElementBytes = 4;       // the tensor map's element: one 32-bit word
constexpr std::uint32_t kMaxBoxElements = 256;   // per dimension of a tensor map's box
constexpr std::uint32_t kTilesPerSourceRow = 4;  // 2D: the source is 4 tiles wide
constexpr std::uint32_t kMaxStages = 4;          // TMA throughput: copies in flight per block
constexpr std::uint32_t kSharedAlignment = 1024;
constexpr std::uint32_t kTensorMapVersion = 12000;  // cuTensorMapEncodeTiled's ABI (CUDA 12.0)
// Throughput: warm launches before the timed ones (the first also loads the module), and the
// most tiles a block copies when a launch is lengthened to its minimum duration.
constexpr std::uint32_t kWarmLaunches = 2;
constexpr std::uint64_t kMaxTilesPerBlock = 1u << 16;

struct TileGrid {
  std::uint32_t rows, row_bytes, pitch, tiles_per_row, bands;
  __host__ __device__ std::uint32_t tiles() const { return tiles_per_row * bands; }
  __host__ __device__ std::uint32_t x_bytes(std::uint32_t tile) const {
    return tile % tiles() % tiles_per_row * row_bytes;
  }
  __host__ __device__ std::uint32_t y_row(std::uint32_t tile) const {
    return tile % tiles() / tiles_per_row * rows;
  }
};

struct TileArgs {
  TileGrid grid;
  const unsigned char* source;
  std::uint32_t stages;        // shared buffers in use (TMA throughput)
  std::uint32_t copies;        // latency: samples; throughput: tiles per block
  unsigned long long* cycles;  // latency: per copy; throughput: per block
  std::uint32_t* block_sm;
  unsigned long long* block_ns;  // throughput: %globaltimer over the same span as `cycles`
};

template <TileCopy M>
__device__ void issue(const TileArgs& a, const CUtensorMap& map, std::uint32_t tile,
                      std::uint32_t destination, std::uint32_t barrier) {
  const std::uint32_t bytes = a.grid.rows * a.grid.row_bytes;
  hopper_ptx::mbarrier_expect_bytes(barrier, bytes);
  if constexpr (M == TileCopy::bulk_1d) {
    hopper_ptx::bulk_copy(destination, a.source + std::uint64_t{tile % a.grid.tiles()} * bytes,
                          bytes, barrier);
  } else {
    hopper_ptx::tensor_copy_2d(destination, &map, a.grid.x_bytes(tile) / kElementBytes,
                               a.grid.y_row(tile), barrier);
  }
}

// Every thread copies its 16-byte vectors of the tile, then the block waits for all of them.
__device__ void plain_copy(const TileArgs& a, std::uint32_t tile, uint4* destination) {
  const std::uint32_t per_row = a.grid.row_bytes / kVectorBytes;
  const unsigned char* origin =
      a.source + std::uint64_t{a.grid.y_row(tile)} * a.grid.pitch + a.grid.x_bytes(tile);
#pragma unroll 4
  for (std::uint32_t v = threadIdx.x; v < a.grid.rows * per_row; v += blockDim.x) {
    const auto* row =
        reinterpret_cast<const uint4*>(origin + std::uint64_t{v / per_row} * a.grid.pitch);
    destination[v] = __ldcg(row + v % per_row);
  }
  __syncthreads();
}

// Sample s copies tile s, not one tile again and again: the tiles lie at different addresses
// and so in either L2 partition, as a kernel's tiles do. One tile alone sat in the near or the
// far partition by where the process's allocation fell: an H200's 1 KiB bulk copy took 288 cycles
// in some runs and 324 in others, each run within 2 cycles. Every tile is copied once before the
// timed copies, so that each timed one finds its tile in L2.
template <TileCopy M>
__global__ void tile_latency_kernel(const __grid_constant__ CUtensorMap map, const TileArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(kSharedAlignment) uint4 tile_buffer[];
  __shared__ __align__(8) unsigned long long barrier_word;
  const std::uint32_t barrier = shared_address(&barrier_word);
  if constexpr (M == TileCopy::plain_loads) {
    for (std::uint32_t s = 0; s < a.copies; ++s) plain_copy(a, s, tile_buffer);
    for (std::uint32_t s = 0; s < a.copies; ++s) {
      __syncthreads();
      const std::uint64_t start = clock64_now();
      plain_copy(a, s, tile_buffer);
      const std::uint64_t end = clock64_now();
      if (threadIdx.x == 0) __stcg(a.cycles + s, static_cast<unsigned long long>(end - start));
    }
  } else if (threadIdx.x == 0) {
    hopper_ptx::mbarrier_init(barrier, 1);
    std::uint32_t completed = 0;  // the barrier's phase parity follows its completions
    for (std::uint32_t s = 0; s < a.copies; ++s, ++completed) {
      issue<M>(a, map, s, shared_address(tile_buffer), barrier);
      hopper_ptx::mbarrier_wait(barrier, completed & 1);
    }
    for (std::uint32_t s = 0; s < a.copies; ++s, ++completed) {
      const std::uint64_t start = clock64_now();
      issue<M>(a, map, s, shared_address(tile_buffer), barrier);
      hopper_ptx::mbarrier_wait(barrier, completed & 1);
      const std::uint64_t end = clock64_now();
      __stcg(a.cycles + s, static_cast<unsigned long long>(end - start));
    }
  }
#endif
}

template <TileCopy M>
__global__ void tile_throughput_kernel(const __grid_constant__ CUtensorMap map, const TileArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(kSharedAlignment) uint4 tile_buffer[];
  __shared__ __align__(8) unsigned long long barrier_words[kMaxStages];
  const std::uint32_t first = blockIdx.x * a.copies;
  const std::uint64_t ns_start = globaltimer_ns();
  const std::uint64_t start = clock64_now();
  if constexpr (M == TileCopy::plain_loads) {
    for (std::uint32_t k = 0; k < a.copies; ++k) plain_copy(a, first + k, tile_buffer);
  } else if (threadIdx.x == 0) {
    const std::uint32_t tile_bytes = a.grid.rows * a.grid.row_bytes;
    for (std::uint32_t s = 0; s < a.stages; ++s)
      hopper_ptx::mbarrier_init(shared_address(barrier_words + s), 1);
    for (std::uint32_t k = 0; k < a.copies; ++k) {
      const std::uint32_t stage = k % a.stages;
      const std::uint32_t barrier = shared_address(barrier_words + stage);
      // The stage's previous copy (phase k / stages - 1) must have landed before reuse.
      if (k >= a.stages) hopper_ptx::mbarrier_wait(barrier, (k / a.stages - 1) & 1);
      issue<M>(a, map, first + k, shared_address(tile_buffer) + stage * tile_bytes, barrier);
    }
    for (std::uint32_t k = a.copies > a.stages ? a.copies - a.stages : 0; k < a.copies; ++k)
      hopper_ptx::mbarrier_wait(shared_address(barrier_words + k % a.stages), (k / a.stages) & 1);
  }
  __syncthreads();
  const std::uint64_t end = clock64_now();
  const std::uint64_t ns_end = globaltimer_ns();
  if (threadIdx.x == 0) {
    __stcg(a.cycles + blockIdx.x, static_cast<unsigned long long>(end - start));
    __stcg(a.block_ns + blockIdx.x, static_cast<unsigned long long>(ns_end - ns_start));
    __stcg(a.block_sm + blockIdx.x, sm_id());
  }
#endif
}

TileGrid grid_of(const TileCopySpec& spec) {
  const bool two_d = spec.method == TileCopy::tensor_2d || spec.rows > 1;
  if (spec.row_bytes == 0 || spec.row_bytes % kVectorBytes != 0 || spec.rows == 0) {
    throw ExperimentError(std::string(tile_copy_name(spec.method)) +
                          ": a tile row must be a positive multiple of 16 B");
  }
  TileGrid grid{spec.rows, spec.row_bytes, 0, 0, 0};
  grid.tiles_per_row = two_d ? kTilesPerSourceRow : 1;
  grid.pitch = grid.tiles_per_row * spec.row_bytes;
  grid.bands =
      static_cast<std::uint32_t>(spec.source_bytes / (std::uint64_t{grid.pitch} * spec.rows));
  if (grid.bands == 0) throw ExperimentError("tile copy: the source holds no whole tile");
  return grid;
}

// The tensor map of the source (2D, 32-bit elements, boxes of one tile), encoded by the
// driver's cuTensorMapEncodeTiled, which is looked up at run time (libcuda is not linked).
CUtensorMap tensor_map_of(const TileCopySpec& spec, const TileGrid& grid, const void* source) {
  CUtensorMap map{};
  if (spec.method != TileCopy::tensor_2d) return map;
  if (spec.row_bytes / kElementBytes > kMaxBoxElements || spec.rows > kMaxBoxElements) {
    throw ExperimentError("tensor_2d: a box has at most 256 elements per dimension");
  }
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t status = cudaGetDriverEntryPointByVersion(
      "cuTensorMapEncodeTiled", &entry, kTensorMapVersion, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr) {
    (void)cudaGetLastError();
    throw ExperimentError("the driver offers no cuTensorMapEncodeTiled (" +
                          std::string(cudaGetErrorName(status)) + ")");
  }
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  const cuuint64_t dims[2] = {grid.pitch / kElementBytes, std::uint64_t{grid.bands} * grid.rows};
  const cuuint64_t strides[1] = {grid.pitch};
  const cuuint32_t box[2] = {spec.row_bytes / kElementBytes, spec.rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult encoded =
      encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, const_cast<void*>(source), dims, strides, box,
             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (encoded != CUDA_SUCCESS) {
    throw ExperimentError("cuTensorMapEncodeTiled failed with CUresult " +
                          std::to_string(static_cast<int>(encoded)));
  }
  return map;
}

using TileKernel = void (*)(CUtensorMap, TileArgs);

TileKernel kernel_for(TileCopy method, bool latency) {
  switch (method) {
    case TileCopy::bulk_1d:
      return latency ? tile_latency_kernel<TileCopy::bulk_1d>
                     : tile_throughput_kernel<TileCopy::bulk_1d>;
    case TileCopy::tensor_2d:
      return latency ? tile_latency_kernel<TileCopy::tensor_2d>
                     : tile_throughput_kernel<TileCopy::tensor_2d>;
    case TileCopy::plain_loads:
      break;
  }
  return latency ? tile_latency_kernel<TileCopy::plain_loads>
                 : tile_throughput_kernel<TileCopy::plain_loads>;
}

std::uint32_t threads_for(TileCopy method) {
  return method == TileCopy::plain_loads ? kPlainThreads : kIssueThreads;
}

void launch_tiles(TileKernel kernel, const CUtensorMap& map, const TileArgs& args,
                  std::uint32_t blocks, std::uint32_t threads, std::size_t shared) {
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared)));
  kernel<<<blocks, threads, shared>>>(map, args);
  CUDA_CHECK_LAUNCH("tile copy kernel");
}

// A source of `bytes` on the device, filled so that copies move real data.
DeviceBuffer<unsigned char> make_source(std::uint64_t bytes) {
  DeviceBuffer<unsigned char> source(bytes);
  source.fill_bytes_async(1, 0, bytes);
  return source;
}

}  // namespace

TileCopyLatencyResult tile_copy_latency(const TileCopySpec& spec) {
  const TileGrid grid = grid_of(spec);
  if (spec.samples < 2) throw ExperimentError("tile copy latency: at least two samples");
  const DeviceBuffer<unsigned char> source =
      make_source(spec.source_offset_bytes + spec.source_bytes);
  const unsigned char* origin = source.data() + spec.source_offset_bytes;
  const CUtensorMap map = tensor_map_of(spec, grid, origin);
  DeviceBuffer<unsigned long long> cycles(spec.samples);
  const TileArgs args{grid, origin, 1, spec.samples, cycles.data(), nullptr, nullptr};
  launch_tiles(kernel_for(spec.method, true), map, args, 1, threads_for(spec.method),
               tile_bytes(spec));
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<unsigned long long> host(spec.samples);
  cycles.download(host);
  TileCopyLatencyResult result;
  for (const unsigned long long cycles_of_copy : host)
    result.cycles.push_back(static_cast<double>(cycles_of_copy));
  return result;
}

TileCopyThroughputResult tile_copy_throughput(const TileCopySpec& spec, std::uint32_t sm_count) {
  const TileGrid grid = grid_of(spec);
  int device = 0;
  int max_shared = 0;
  CUDA_CALL(cudaGetDevice(&device));
  CUDA_CALL(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::uint64_t bytes = tile_bytes(spec);
  const std::uint32_t stages =
      spec.method == TileCopy::plain_loads
          ? 1
          : static_cast<std::uint32_t>(std::min<std::uint64_t>(kMaxStages, max_shared / bytes));
  if (stages == 0) throw ExperimentError("tile copy: one tile exceeds a block's shared memory");
  const DeviceBuffer<unsigned char> source =
      make_source(spec.source_offset_bytes + spec.source_bytes);
  const unsigned char* origin = source.data() + spec.source_offset_bytes;
  const CUtensorMap map = tensor_map_of(spec, grid, origin);
  DeviceBuffer<unsigned long long> cycles(sm_count);
  DeviceBuffer<std::uint32_t> block_sm(sm_count);
  DeviceBuffer<unsigned long long> block_ns(sm_count);
  TileArgs args{grid,          origin,          stages,         spec.tiles_per_block,
                cycles.data(), block_sm.data(), block_ns.data()};
  EventTimer timer;
  const TileKernel kernel = kernel_for(spec.method, false);
  const auto timed_launch = [&] {
    timer.start();
    launch_tiles(kernel, map, args, sm_count, threads_for(spec.method), bytes * stages);
    timer.stop();
    return timer.seconds();
  };
  double warm_seconds = 0;
  for (std::uint32_t launch = 0; launch < kWarmLaunches; ++launch) warm_seconds = timed_launch();
  if (spec.min_launch_seconds > 0 && warm_seconds > 0 && warm_seconds < spec.min_launch_seconds) {
    const double scale = spec.min_launch_seconds / warm_seconds;
    args.copies = static_cast<std::uint32_t>(
        std::min<double>(static_cast<double>(kMaxTilesPerBlock), std::ceil(args.copies * scale)));
    timed_launch();  // warms the longer launch
  }
  TileCopyThroughputResult result;
  result.blocks = sm_count;
  result.tiles_per_block = args.copies;
  result.bytes_per_launch = bytes * args.copies * sm_count;
  std::vector<unsigned long long> host_cycles(sm_count);
  std::vector<std::uint32_t> host_sm(sm_count);
  std::vector<unsigned long long> host_ns(sm_count);
  for (std::uint32_t launch = 0; launch < spec.timed_launches; ++launch) {
    const double seconds = timed_launch();
    cycles.download(host_cycles);
    block_sm.download(host_sm);
    block_ns.download(host_ns);
    result.sm_clock_khz.push_back(median_sm_clock_khz(host_cycles, host_ns));
    result.bytes_per_second.push_back(static_cast<double>(result.bytes_per_launch) / seconds);
    result.block_bytes_per_second.push_back(
        summed_block_rate(host_ns, static_cast<double>(bytes) * args.copies));
    result.bytes_per_cycle_per_sm.push_back(median_bytes_per_cycle_per_sm(
        host_sm, host_cycles, static_cast<double>(bytes) * args.copies));
  }
  return result;
}

}  // namespace memtopo
