#include "backend/cuda/stream_runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/cuda_event.hpp"
#include "backend/cuda/stream_args.hpp"
#include "backend/cuda/texture_object.hpp"

namespace memtopo {

const void* stream_kernel(StreamOp op, LoadPath path, std::uint32_t vector_bytes,
                          std::uint32_t unroll) {
  if (op == StreamOp::read) {
    if (const void* kernel = stream_kernel_global_reads(path, vector_bytes, unroll)) return kernel;
  }
  return stream_kernel_others(op, path, vector_bytes, unroll);
}

namespace {

// The arrays stay for the next stream (a DRAM probe runs dozens over the same footprint, and
// reallocating a GiB costs milliseconds) while they hold at most this share of the device
// memory; larger ones are freed after every stream, so that they never crowd out the chases.
constexpr std::uint64_t kKeptShareOfDeviceMemory = 16;  // 1/16
// An array more than this many times what a stream needs, and more than 1/64 of the device
// memory, is replaced by one of the size needed (small ones are not worth reallocating).
constexpr std::uint64_t kShrinkFactor = 4;
constexpr std::uint64_t kLargeShareOfDeviceMemory = 64;
// What the source array holds; any value does, but it must be written once.
constexpr unsigned char kFillByte = 0x5A;
// The value that would make a kernel store its fold: never the fold of kFillByte words.
constexpr std::uint32_t kSinkKey = 0x9E3779B9u;
constexpr double kKhzPerCyclePerNs = 1e6;  // cycles per ns x 1e6 = kHz
constexpr double kKhzPerMhz = 1e3;

[[noreturn]] void fail(const StreamSpec& spec, const std::string& what) {
  throw ExperimentError("stream spec (" + std::string(to_string(spec.op)) + " on " +
                        std::string(to_string(spec.path)) + ", " +
                        std::to_string(spec.vector_bytes) + " B x " + std::to_string(spec.unroll) +
                        ", " + std::to_string(spec.blocks_per_sm) + " blocks of " +
                        std::to_string(spec.threads_per_block) + " threads per SM): " + what);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

struct StreamRunner::Launch {
  const void* kernel = nullptr;
  unsigned block = 0;
  std::size_t shared_bytes = 0;
  StreamGeometry geometry;
  // No larger than geometry (validate: warm-up bytes at most the timed ones'), so the checks of
  // the timed launches' geometry cover it.
  StreamGeometry warmup_geometry;
  StreamArgs args;
  std::optional<TextureObject> texture;
};

StreamRunner::StreamRunner(StreamRunnerConfig config, const NvmlSession& nvml)
    : config_(config), nvml_(nvml), sink_(1) {}

void StreamRunner::check_fits(const StreamSpec& spec, const void* kernel,
                              std::size_t shared_bytes) const {
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared_bytes)));
  // Global paths want the largest L1 (the footprint was planned from l1.size, measured with
  // the smallest carveout); the shared path wants shared memory.
  CUDA_CALL(cudaFuncSetAttribute(
      kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      spec.path == LoadPath::shared ? cudaSharedmemCarveoutMaxShared : cudaSharedmemCarveoutMaxL1));
  int fit = 0;
  CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &fit, kernel, static_cast<int>(spec.threads_per_block), shared_bytes));
  // A one-pass grid runs in waves by design: one block per SM at a time is all it needs.
  const int needed =
      spec.placement == StreamPlacement::one_pass ? 1 : static_cast<int>(spec.blocks_per_sm);
  if (fit >= needed) return;
  cudaFuncAttributes attributes{};
  CUDA_CALL(cudaFuncGetAttributes(&attributes, kernel));
  fail(spec, "only " + std::to_string(fit) + " such blocks fit on an SM (" +
                 std::to_string(attributes.numRegs) + " registers per thread, " +
                 std::to_string(shared_bytes) +
                 " bytes of shared memory per block); more would run in a second wave");
}

void StreamRunner::provide_arrays(const StreamSpec& spec, std::uint64_t device_bytes_free) {
  const std::uint64_t held = held_bytes();
  const std::uint64_t needed = stream_device_bytes(spec);
  if (needed > device_bytes_free + held) {
    fail(spec, "its arrays need " + std::to_string(needed) + " bytes of device memory, " +
                   std::to_string(device_bytes_free + held) + " are free");
  }
  const std::uint64_t bytes = spec.array_offset_bytes + spec.footprint_bytes;
  // Much larger arrays than asked for (DRAM's footprint sweep left them) are given back, so
  // that the probes after the streams find the memory free.
  const auto too_large = [&](std::uint64_t held_bytes) {
    return held_bytes > kShrinkFactor * bytes &&
           held_bytes > config_.global_memory_bytes / kLargeShareOfDeviceMemory;
  };
  // Sources are filled once (any value does, but it must be written); destinations need not be.
  const auto provide = [&](DeviceBuffer<unsigned char>& array, bool used, bool filled) {
    if (!used || (array.bytes() >= bytes && !too_large(array.bytes()))) return;
    array = DeviceBuffer<unsigned char>();  // free before allocating the new one
    array = DeviceBuffer<unsigned char>(bytes);
    if (filled) array.fill_bytes_async(kFillByte, 0, bytes);
  };
  provide(source_, stream_reads_global(spec), true);
  provide(second_source_, stream_reads_second_source(spec), true);
  provide(third_source_, stream_reads_third_source(spec), true);
  provide(destination_, stream_writes_global(spec), false);
}

StreamRunner::Launch StreamRunner::prepare(const StreamSpec& spec,
                                           std::uint64_t device_bytes_free) {
  validate(spec);
  Launch launch;
  launch.geometry = stream_geometry(spec, config_.sm_count);
  launch.warmup_geometry = stream_warmup_geometry(spec, config_.sm_count);
  const StreamGeometry& geometry = launch.geometry;
  if (geometry.iterations > UINT32_MAX) {
    fail(spec, "bytes_per_launch asks more than 2^32 iterations of every warp");
  }
  if (geometry.blocks > config_.max_grid_blocks) {
    fail(spec, "bytes_per_launch asks a one-pass grid of " + std::to_string(geometry.blocks) +
                   " blocks, more than the device launches");
  }
  launch.kernel = stream_kernel(spec.op, spec.path, spec.vector_bytes, spec.unroll);
  if (launch.kernel == nullptr) fail(spec, "no stream kernel was built for it");
  launch.shared_bytes = stream_shared_bytes_per_block(spec);
  if (launch.shared_bytes > config_.max_dynamic_shared_bytes) {
    fail(spec, std::to_string(launch.shared_bytes) + " bytes of shared memory per block, at most " +
                   std::to_string(config_.max_dynamic_shared_bytes));
  }
  check_fits(spec, launch.kernel, launch.shared_bytes);
  provide_arrays(spec, device_bytes_free);
  if (spec.path == LoadPath::tex) {
    const std::uint64_t elements = geometry.footprint_bytes / spec.vector_bytes;
    if (elements > config_.max_texture_1d_linear_elements || geometry.footprint_bytes > INT32_MAX) {
      fail(spec, "the footprint exceeds the largest 1D linear texture");
    }
    launch.texture.emplace(source_.data() + spec.array_offset_bytes, elements,
                           static_cast<int>(spec.vector_bytes / 4));
  }

  const std::uint64_t warps_per_block = spec.threads_per_block / kStreamWarpThreads;
  const bool per_block = spec.placement == StreamPlacement::per_block;
  StreamArgs& args = launch.args;
  // Only the arrays a stream uses were provided (provide_arrays).
  args.source = source_.data() + (stream_reads_global(spec) ? spec.array_offset_bytes : 0);
  args.second_source =
      second_source_.data() + (stream_reads_second_source(spec) ? spec.array_offset_bytes : 0);
  args.third_source =
      third_source_.data() + (stream_reads_third_source(spec) ? spec.array_offset_bytes : 0);
  args.destination =
      destination_.data() + (stream_writes_global(spec) ? spec.array_offset_bytes : 0);
  args.texture = launch.texture ? launch.texture->handle() : 0;
  args.footprint_bytes = geometry.footprint_bytes;
  args.start_warp_multiplier = per_block ? 0 : warps_per_block;
  args.step_bytes = (per_block ? warps_per_block : geometry.warps) * geometry.warp_tile_bytes %
                    geometry.footprint_bytes;
  args.iterations = static_cast<std::uint32_t>(geometry.iterations);
  args.sink = sink_.data();
  args.sink_key = kSinkKey;
  launch.block = spec.threads_per_block;
  return launch;
}

double StreamRunner::measured_sm_clock_khz(std::uint32_t first_timed, std::uint32_t timed) const {
  std::vector<std::uint64_t> spans(clocks_.size());
  clocks_.download(spans);
  std::vector<double> khz;
  for (std::uint32_t i = first_timed; i < first_timed + timed; ++i) {
    const std::uint64_t cycles = spans[2 * i];
    const std::uint64_t ns = spans[2 * i + 1];
    if (ns > 0 && cycles > 0) khz.push_back(static_cast<double>(cycles) / ns * kKhzPerCyclePerNs);
  }
  return khz.empty() ? 0 : median_of(khz);
}

StreamResult StreamRunner::run(const StreamSpec& spec, std::uint64_t device_bytes_free) {
  Launch launch = prepare(spec, device_bytes_free);
  const std::uint32_t launches = spec.warmup_launches + spec.timed_launches;
  if (clocks_.size() < 2ull * launches) clocks_ = DeviceBuffer<std::uint64_t>(2ull * launches);
  clocks_.fill_zero();
  launch.args.clocks = clocks_.data();

  const auto start_kernel = [&](std::uint32_t index) {
    const bool warmup = index < spec.warmup_launches;
    const StreamGeometry& geometry = warmup ? launch.warmup_geometry : launch.geometry;
    StreamArgs args = launch.args;
    args.launch_index = index;
    args.start_bytes =
        stream_launch_start_bytes(spec, launch.warmup_geometry, launch.geometry, index);
    args.iterations = static_cast<std::uint32_t>(geometry.iterations);
    void* parameters[] = {&args};
    CUDA_CALL(cudaLaunchKernel(launch.kernel, dim3(static_cast<unsigned>(geometry.blocks)),
                               dim3(launch.block), parameters, launch.shared_bytes, nullptr));
  };
  const auto starts = std::make_unique<CudaEvent[]>(spec.timed_launches);
  const auto stops = std::make_unique<CudaEvent[]>(spec.timed_launches);
  for (std::uint32_t i = 0; i < spec.warmup_launches; ++i) start_kernel(i);
  for (std::uint32_t t = 0; t < spec.timed_launches; ++t) {
    starts[t].record();
    start_kernel(spec.warmup_launches + t);
    stops[t].record();
  }
  // Read while the launches are still running: the memory clock under load.
  const std::optional<std::uint32_t> memory_mhz = nvml_.memory_clock_mhz();
  const std::optional<std::uint32_t> sm_mhz = nvml_.sm_clock_mhz();
  CUDA_CALL(cudaEventSynchronize(stops[spec.timed_launches - 1].get()));

  StreamResult result;
  for (std::uint32_t t = 0; t < spec.timed_launches; ++t) {
    result.seconds.push_back(elapsed_seconds(starts[t], stops[t]));
  }
  result.bytes_moved = launch.geometry.bytes_moved;
  result.footprint_bytes = launch.geometry.footprint_bytes;
  // A one-pass launch has no warp that lives through it, so the clock the first block measured
  // would cover microseconds: NVML's reading during the launches stands for it.
  result.sm_clock_khz = spec.placement == StreamPlacement::one_pass
                            ? (sm_mhz ? *sm_mhz * kKhzPerMhz : 0.0)
                            : measured_sm_clock_khz(spec.warmup_launches, spec.timed_launches);
  result.memory_clock_khz = memory_mhz ? *memory_mhz * kKhzPerMhz : 0.0;
  result.sms = config_.sm_count;
  release_large_arrays();
  return result;
}

std::uint64_t StreamRunner::held_bytes() const noexcept {
  return source_.bytes() + second_source_.bytes() + third_source_.bytes() + destination_.bytes();
}

void StreamRunner::release_large_arrays() noexcept {
  if (held_bytes() <= config_.global_memory_bytes / kKeptShareOfDeviceMemory) return;
  source_ = DeviceBuffer<unsigned char>();
  second_source_ = DeviceBuffer<unsigned char>();
  third_source_ = DeviceBuffer<unsigned char>();
  destination_ = DeviceBuffer<unsigned char>();
}

}  // namespace memtopo
