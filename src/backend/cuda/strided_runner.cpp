#include "backend/cuda/strided_runner.hpp"

#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/cuda_event.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/strided_args.hpp"
#include "backend/cuda/texture_object.hpp"

namespace memtopo {
namespace {

// Never matched by the folded loads of a zero-filled array: the sink stays unwritten.
constexpr std::uint32_t kSinkKey = 0x5EEDF00Du;

[[noreturn]] void fail(const StridedAccessSpec& spec, const std::string& what) {
  throw ExperimentError("strided requests on " + std::string(to_string(spec.space)) + ": " + what);
}

struct Prepared {
  DeviceBuffer<unsigned char> array;
  std::optional<TextureObject> texture;
  DeviceBuffer<std::uint32_t> sink{1};
  StridedArgs args;
  std::size_t shared_bytes = 0;
};

// The local-memory kernels' frames: CUDA reserves a kernel's frame for every thread an SM can
// hold on every SM when it launches. Checked before the launch, so that a device without the
// room skips the row rather than failing the study.
void check_local_reserve(const StridedAccessSpec& spec, const StridedRunnerConfig& config) {
  int device = 0;
  int threads_per_sm = 0;
  CUDA_CALL(cudaGetDevice(&device));
  CUDA_CALL(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  cudaFuncAttributes attributes{};
  CUDA_CALL(cudaFuncGetAttributes(
      &attributes, strided_kernel(spec.space, spec.element_bytes, /*latency=*/false)));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t reserve = std::uint64_t{attributes.localSizeBytes} *
                                static_cast<std::uint64_t>(threads_per_sm) * config.sm_count;
  if (reserve > free_bytes) {
    fail(spec, "its local frames (" + std::to_string(attributes.localSizeBytes) +
                   " bytes per thread) need " + std::to_string(reserve) + " bytes, " +
                   std::to_string(free_bytes) + " are free");
  }
}

void prepare(const StridedAccessSpec& spec, const StridedRunnerConfig& config, Prepared& p) {
  const std::uint64_t footprint = walked_footprint_bytes(spec);
  p.args.requests = footprint / request_span_bytes(spec);
  p.args.span_bytes = request_span_bytes(spec);
  p.args.footprint_bytes = footprint;
  p.args.group_step_bytes = kStridedRequestsInFlight % p.args.requests * p.args.span_bytes;
  p.args.lane_step_bytes = std::uint64_t{spec.stride_elements} * spec.element_bytes;
  p.args.start_offset_bytes = spec.start_offset_bytes;
  p.args.requests_per_warp = spec.requests_per_warp;
  p.args.latency_requests = spec.latency_requests;
  p.args.sink_key = kSinkKey;
  p.args.sink = p.sink.data();
  if (spec.space == AccessSpace::shared) {
    if (footprint > config.max_dynamic_shared_bytes) fail(spec, "the window exceeds a block's");
    p.shared_bytes = footprint;
    p.args.shared_window_bytes = static_cast<std::uint32_t>(footprint);
    return;
  }
  // Constant memory: the kernels' own __constant__ array (validate() bounds the footprint);
  // local memory: each thread's array, filled by the kernel.
  if (spec.space == AccessSpace::constant) return;
  if (spec.space == AccessSpace::local) {
    check_local_reserve(spec, config);
    return;
  }
  p.array = DeviceBuffer<unsigned char>(footprint);
  CUDA_CALL(cudaMemset(p.array.data(), 0, footprint));
  p.args.source = p.array.data();
  if (spec.space == AccessSpace::tex) {
    p.texture.emplace(p.array.data(), footprint / spec.element_bytes,
                      static_cast<int>(spec.element_bytes / 4));
    p.args.texture = p.texture->handle();
  }
}

void launch(const void* kernel, std::uint32_t blocks, std::uint32_t threads, const Prepared& p,
            bool fill_local) {
  StridedArgs args = p.args;
  args.fill_local = fill_local ? 1 : 0;
  void* parameters[] = {&args};
  CUDA_CALL(
      cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), parameters, p.shared_bytes, nullptr));
  CUDA_CHECK_LAUNCH("strided requests");
}

void measure_throughput(const StridedAccessSpec& spec, const StridedRunnerConfig& config,
                        const Prepared& p, StridedAccessResult& result) {
  const void* kernel = strided_kernel(spec.space, spec.element_bytes, false);
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(p.shared_bytes)));
  const std::uint32_t blocks = spec.blocks_per_sm * config.sm_count;
  for (std::uint32_t w = 0; w < spec.warmup_launches; ++w) {
    launch(kernel, blocks, spec.threads_per_block, p, /*fill_local=*/true);
  }
  std::vector<CudaEvent> starts(spec.timed_launches), stops(spec.timed_launches);
  for (std::uint32_t t = 0; t < spec.timed_launches; ++t) {
    starts[t].record();
    launch(kernel, blocks, spec.threads_per_block, p, /*fill_local=*/false);
    stops[t].record();
  }
  CUDA_CALL(cudaDeviceSynchronize());
  for (std::uint32_t t = 0; t < spec.timed_launches; ++t) {
    result.seconds.push_back(elapsed_seconds(starts[t], stops[t]));
  }
  // Every request rounds up to whole in-flight groups, as the kernel issues them.
  const std::uint64_t per_warp = (spec.requests_per_warp + kStridedRequestsInFlight - 1) /
                                 kStridedRequestsInFlight * kStridedRequestsInFlight;
  result.requested_bytes =
      std::uint64_t{blocks} * spec.threads_per_block * per_warp * spec.element_bytes;
}

void measure_latency(const StridedAccessSpec& spec, Prepared& p, StridedAccessResult& result) {
  const void* kernel = strided_kernel(spec.space, spec.element_bytes, true);
  CUDA_CALL(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(p.shared_bytes)));
  DeviceBuffer<std::uint32_t> cycles(spec.latency_requests);
  p.args.cycles = cycles.data();
  launch(kernel, 1, kWarpLanes, p, /*fill_local=*/true);
  CUDA_CALL(cudaDeviceSynchronize());
  std::vector<std::uint32_t> host(spec.latency_requests);
  cycles.download(host);
  for (std::uint32_t value : host) result.latency_cycles.push_back(value);
}

}  // namespace

StridedAccessResult run_strided_on_gpu(const StridedAccessSpec& spec,
                                       const StridedRunnerConfig& config) {
  validate(spec);
  if (!strided_kernel(spec.space, spec.element_bytes, false)) {
    fail(spec, "no strided kernel is built for this element size");
  }
  Prepared prepared;
  prepare(spec, config, prepared);
  StridedAccessResult result;
  result.sms = config.sm_count;
  if (spec.timed_launches > 0) measure_throughput(spec, config, prepared, result);
  if (spec.latency_requests > 0) measure_latency(spec, prepared, result);
  return result;
}

}  // namespace memtopo
