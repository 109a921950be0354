// The real-GPU backend: device facts, limits, validation, and running batches of chases.
#include "backend/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "backend/cuda/chase_kernels.hpp"
#include "backend/cuda/chase_plan.hpp"
#include "backend/cuda/chase_runner.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_query.hpp"
#include "backend/cuda/gpu_sharing.hpp"
#include "backend/cuda/hopper_kernels.hpp"
#include "backend/cuda/l2_first_touch_runner.hpp"
#include "backend/cuda/nvml_session.hpp"
#include "backend/cuda/stream_runner.hpp"
#include "backend/cuda/strided_runner.hpp"
#include "backend/cuda/study_kernels_cuda.hpp"
#include "backend/cuda/support_kernels.hpp"
#include "backend/cuda/warp_access_runner.hpp"
#include "backend/hopper_experiments.hpp"
#include "model/startup_clock.hpp"

namespace memtopo {

namespace {

constexpr const char* kNoDeviceAdvice =
    "check nvidia-smi and CUDA_VISIBLE_DEVICES; --sim FILE runs on a simulated device";
// Records are 8 bytes per timed load and chaser; past this a single chase is better split.
constexpr std::uint32_t kMaxTimedLoads = 1u << 26;
// Device memory left free for the runtime, records and bookkeeping when planning footprints.
constexpr std::uint64_t kFootprintReserveBytes = 512ull << 20;
// Word indices are 32-bit, so no chain can be longer than 2^32 - 1 words.
constexpr std::uint64_t kMaxChainBytes = 4ull * UINT32_MAX;
// cudaDeviceGetPCIBusId writes at most 13 characters ("0000:17:00.0"); room to spare.
constexpr int kPciBusIdBytes = 64;
constexpr double kMilliwattsPerWatt = 1000;
// Launches of the SM survey; each one normally already finds every SM.
constexpr int kSmSurveyLaunches = 4;
// Clusters, TMA and the Hopper kernels: compute capability 9.0 and later.
constexpr int kHopperMajor = 9;

std::string sm_range(const std::vector<std::uint32_t>& ids) {
  if (ids.empty()) return "none";
  if (ids.back() - ids.front() + 1 == ids.size()) {  // contiguous
    return std::to_string(ids.front()) + ".." + std::to_string(ids.back());
  }
  std::string text;
  for (const std::uint32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return text;
}

class CudaBackend final : public Backend,
                          public StreamExperiments,
                          public WarpAccessExperiments,
                          public L2FirstTouchExperiments,
                          public StridedAccessRunner,
                          public HopperExperiments {
 public:
  // `nvml` was opened, and `processes_before` listed, before this process created its context
  // on the device: what appeared since is memtopo's own.
  CudaBackend(int device, std::unique_ptr<NvmlSession> nvml,
              const std::optional<std::vector<GpuProcess>>& processes_before)
      : device_(device),
        facts_(read_cuda_device_facts(device)),
        planning_(read_planning_attributes(device)),
        nvml_(std::move(nvml)) {
    add_nvml_facts(facts_, *nvml_);
    describe_sharing(processes_before);
    std::size_t static_shared = 0;
    for (const LoadPath path : kAllLoadPaths) {
      static_shared = std::max(static_shared, chase_static_shared_bytes(path));
    }
    max_dynamic_shared_ = facts_.shared_per_block_optin_bytes > static_shared
                              ? facts_.shared_per_block_optin_bytes - static_shared
                              : 0;
    sm_ids_ =
        survey_sm_ids(facts_.sm_count, kSmSurveyLaunches, facts_.shared_per_block_optin_bytes);
    if (sm_ids_.empty()) {
      throw NoDeviceError("CUDA device " + std::to_string(device) +
                          " ran no block of a test "
                          "kernel on any SM");
    }
    runner_ = std::make_unique<ChaseRunner>(
        ChaseRunnerConfig{facts_.sm_count, sm_ids_, facts_.l2_bytes, max_dynamic_shared_,
                          facts_.shared_per_sm_bytes, planning_.reserved_shared_per_block_bytes});
    streams_ = std::make_unique<StreamRunner>(
        StreamRunnerConfig{facts_.sm_count, facts_.shared_per_block_optin_bytes,
                           planning_.max_texture_1d_linear_elements, facts_.global_memory_bytes},
        *nvml_);
    mark_startup("backend");  // facts, NVML facts, sharing, the SM survey (first kernel), runners
  }

  std::string_view kind() const override { return "cuda"; }
  const DeviceFacts& facts() const override { return facts_; }

  BackendLimits limits() const override {
    const std::uint64_t usable = usable_device_bytes();

    BackendLimits limits;
    limits.max_footprint_bytes = std::min<std::uint64_t>(array_bytes_budget(), kMaxChainBytes);
    // Wide chains index 64-bit: the free device memory less the reserve is their limit.
    limits.max_wide_footprint_bytes = array_bytes_budget();
    limits.max_constant_footprint_bytes =
        std::min<std::uint64_t>(constant_chain_capacity_bytes(), facts_.constant_bytes);
    const std::size_t record_buffer = chase_dynamic_shared_bytes(0);
    limits.max_shared_footprint_bytes =
        max_dynamic_shared_ > record_buffer ? (max_dynamic_shared_ - record_buffer) / 16 * 16 : 0;
    limits.max_reserved_shared_bytes =
        max_dynamic_shared_ > record_buffer ? max_dynamic_shared_ - record_buffer : 0;
    limits.max_chasers = max_chasers();
    limits.max_warp_access_bytes = max_warp_access_area_bytes(max_dynamic_shared_);
    limits.max_timed_loads = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        kMaxTimedLoads, usable / (2 * sizeof(std::uint32_t) * limits.max_chasers * 2)));
    limits.concurrent_slots = static_cast<std::uint32_t>(sm_ids_.size());
    limits.sm_ids = sm_ids_;
    return limits;
  }

  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    CUDA_CALL(cudaSetDevice(device_));
    const BackendLimits limits = this->limits();
    for (std::size_t i = 0; i < batch.size(); ++i) check_runnable(batch[i], i, limits);
    std::vector<Trace> traces(batch.size());
    // Within the free device memory per launch (each frees arrays over 1 GiB unless kept).
    const std::uint64_t budget = array_bytes_budget();
    for (const PlannedLaunch& launch : plan_launches(batch, sm_ids_, budget)) {
      runner_->run(launch, batch, traces, plannable_bytes(budget));
    }
    return traces;
  }

  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch) override {
    enter_other_experiment();
    const BackendLimits limits = this->limits();
    for (std::size_t i = 0; i < batch.size(); ++i) check_runnable(batch[i], i, limits);
    return run_warp_accesses(batch);
  }

  StreamExperiments* streams() override { return this; }
  WarpAccessExperiments* warp_access() override { return this; }
  L2FirstTouchExperiments* l2_first_touch() override { return this; }
  StridedAccessRunner* strided_access() override { return this; }
  HopperExperiments* hopper() override { return this; }
  StudyKernels* study_kernels() override {
    if (!study_kernels_) study_kernels_ = make_cuda_study_kernels(device_, facts_);
    return study_kernels_.get();
  }

  double current_sm_clock_khz() override {
    const auto mhz = nvml_->sm_clock_mhz();
    return mhz ? *mhz * 1000.0 : 0.0;
  }

  std::optional<DeviceConditions> conditions() override {
    if (!nvml_->available()) return std::nullopt;
    DeviceConditions c;
    const auto as_double = [](const std::optional<std::uint32_t>& value) {
      return value ? std::optional<double>(*value) : std::nullopt;
    };
    c.sm_clock_mhz = as_double(nvml_->sm_clock_mhz());
    c.memory_clock_mhz = as_double(nvml_->memory_clock_mhz());
    c.temperature_c = as_double(nvml_->temperature_c());
    if (const auto milliwatts = nvml_->power_mw()) c.power_w = *milliwatts / kMilliwattsPerWatt;
    c.clocks_event_reasons = nvml_->clocks_event_reasons();
    if (const auto listed = processes_on(*nvml_)) {
      c.other_processes = other_gpu_processes(named(*listed), own_pids_);
    }
    return c;
  }

  L2FirstTouchResult run_l2_first_touch(const L2FirstTouchSpec& spec) override {
    enter_other_experiment();
    if (!first_touch_) {
      first_touch_ = std::make_unique<L2FirstTouchRunner>(FirstTouchRunnerConfig{
          facts_.sm_count, sm_ids_, facts_.shared_per_sm_bytes, max_dynamic_shared_});
    }
    return first_touch_->run(spec);
  }

  StridedAccessResult run_strided(const StridedAccessSpec& spec) override {
    enter_other_experiment();
    return run_strided_on_gpu(spec, {facts_.sm_count, max_dynamic_shared_});
  }

  StreamResult run_stream(const StreamSpec& spec) override {
    enter_other_experiment();
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
    return streams_->run(
        spec, free_bytes > kFootprintReserveBytes ? free_bytes - kFootprintReserveBytes : 0);
  }

  // HopperExperiments (backend/hopper_experiments.hpp): clusters, TMA, instruction fetch.
  std::string hopper_unsupported_reason() const override {
    if (facts_.cc_major >= kHopperMajor) return "";
    return "thread-block clusters, TMA and the instruction-fetch kernel need compute capability " +
           std::to_string(kHopperMajor) + ".0 (this device has " + std::to_string(facts_.cc_major) +
           "." + std::to_string(facts_.cc_minor) + ")";
  }
  ClusterLaunchCheck check_cluster_launch(std::uint32_t cluster_size) override {
    CUDA_CALL(cudaSetDevice(device_));
    return cluster_launch_check(cluster_size);
  }
  std::uint32_t occupancy_max_cluster_size() override {
    CUDA_CALL(cudaSetDevice(device_));
    return cluster_max_potential_size();
  }
  ClusterLatencyResult run_cluster_latency(const ClusterLatencySpec& spec) override {
    enter_other_experiment();
    return cluster_latency(spec);
  }
  ClusterBandwidthResult run_cluster_bandwidth(const ClusterBandwidthSpec& spec) override {
    enter_other_experiment();
    return cluster_bandwidth(spec);
  }
  TileCopyLatencyResult run_tile_copy_latency(const TileCopySpec& spec) override {
    enter_other_experiment();
    return tile_copy_latency(spec);
  }
  TileCopyThroughputResult run_tile_copy_throughput(const TileCopySpec& spec) override {
    enter_other_experiment();
    return tile_copy_throughput(spec, facts_.sm_count);
  }
  CodeFetchLayout code_fetch_layout() const override { return memtopo::code_fetch_layout(); }
  CodeFetchResult run_code_fetch(const CodeFetchSpec& spec) override {
    enter_other_experiment();
    return code_fetch(spec, facts_.sm_count);
  }

 private:
  // Every experiment but a chase starts here: chases' kept arrays (ChaseSpec::keep_arrays) go.
  void enter_other_experiment() {
    CUDA_CALL(cudaSetDevice(device_));
    runner_->release_large_buffers();
  }

  // Free device memory plus what the runner holds for reuse (it frees that before growing).
  std::uint64_t usable_device_bytes() const {
    CUDA_CALL(cudaSetDevice(device_));
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes + runner_->held_bytes();
  }

  // Device memory the chase and sweep arrays of one launch may take: the usable memory less
  // a reserve for the runtime, the records and a cache flush's scratch.
  std::uint64_t array_bytes_budget() const {
    const std::uint64_t usable = usable_device_bytes();
    const std::uint64_t reserve = reserve_bytes();
    return usable > reserve ? usable - reserve : 0;
  }

  std::uint64_t reserve_bytes() const {
    return kFootprintReserveBytes + runner_->flush_scratch_bytes();
  }

  std::uint32_t max_chasers() const {
    const std::uint32_t warp = std::max<std::uint32_t>(facts_.warp_size, 1);
    return std::min<std::uint32_t>(planning_.max_threads_per_block / warp, 32);
  }

  // Throws ExperimentError for a spec this device cannot run, naming the spec and the limit.
  void check_runnable(const ChaseSpec& spec, std::size_t index, const BackendLimits& limits) const {
    const std::string prefix = "chase spec " + std::to_string(index) + " (path " +
                               std::string(to_string(spec.path)) + "): ";
    const auto fail = [&](const std::string& what) { throw ExperimentError(prefix + what); };
    // Free memory is not a property of the device but of the moment: a skip, not a failure.
    const auto fail_for_memory = [&](const std::string& what) {
      throw MemoryUnavailableError(prefix + what);
    };
    try {
      validate(spec);
    } catch (const ExperimentError& error) {
      fail(error.what());
    }
    if (spec.chasers > limits.max_chasers) {
      fail(std::to_string(spec.chasers) + " chasers, at most " +
           std::to_string(limits.max_chasers));
    }
    if (spec.timed_loads > limits.max_timed_loads) {
      fail(std::to_string(spec.timed_loads) + " timed loads, at most " +
           std::to_string(limits.max_timed_loads));
    }
    check_footprint(spec.path, spec.footprint_bytes, "footprint", limits, fail, fail_for_memory,
                    is_wide(spec));
    if (spec.eviction) {
      check_footprint(spec.eviction->path, spec.eviction->footprint_bytes,
                      "eviction sweep footprint", limits, fail, fail_for_memory);
      // Both arrays are in device memory at once.
      const std::uint64_t device_bytes = device_memory_bytes(spec);
      if (device_bytes > limits.max_footprint_bytes) {
        fail_for_memory("footprint and eviction sweep together need " +
                        std::to_string(device_bytes) + " bytes, more than the " +
                        std::to_string(limits.max_footprint_bytes) +
                        " bytes of device memory free less a reserve of " +
                        std::to_string(reserve_bytes()) + " bytes");
      }
    }
    check_reserved_shared(spec, fail);
    if (spec.sm && !std::binary_search(sm_ids_.begin(), sm_ids_.end(), *spec.sm)) {
      fail("sm " + std::to_string(*spec.sm) + " is not an SM this device runs blocks on (" +
           sm_range(sm_ids_) + ")");
    }
  }

  // Throws ExperimentError for a warp access this device cannot run.
  void check_runnable(const WarpAccessSpec& spec, std::size_t index,
                      const BackendLimits& limits) const {
    const auto fail = [&](const std::string& what) {
      throw ExperimentError("warp access spec " + std::to_string(index) + ": " + what);
    };
    try {
      validate(spec);
    } catch (const ExperimentError& error) {
      fail(error.what());
    }
    if (facts_.warp_size != kWarpLanes) {
      fail("the device's warp has " + std::to_string(facts_.warp_size) + " lanes, the kernel " +
           std::to_string(kWarpLanes));
    }
    if (area_bytes(spec) > limits.max_warp_access_bytes) {
      fail("its area of " + std::to_string(area_bytes(spec)) + " bytes exceeds the " +
           std::to_string(limits.max_warp_access_bytes) +
           " bytes of shared memory a block has beside its records");
    }
    if (spec.timed_accesses > limits.max_timed_loads) {
      fail(std::to_string(spec.timed_accesses) + " timed accesses, at most " +
           std::to_string(limits.max_timed_loads));
    }
  }

  // Throws through `fail` when an array of `bytes` on `path` does not fit where that path
  // reads it, through `fail_for_memory` when the free device memory cannot hold it. `what`
  // names the array in the message.
  template <typename Fail, typename FailForMemory>
  void check_footprint(LoadPath path, std::uint64_t bytes, const std::string& what,
                       const BackendLimits& limits, const Fail& fail,
                       const FailForMemory& fail_for_memory, bool is_wide_array = false) const {
    const auto too_large = [&](std::uint64_t limit, const std::string& where) {
      if (bytes > limit) {
        fail(what + " " + std::to_string(bytes) + " bytes exceeds " + where + " of " +
             std::to_string(limit) + " bytes");
      }
    };
    const auto beyond_free_memory = [&] {
      // Wide chains (64-bit elements) are limited by the free device memory alone.
      if (!is_wide_array) too_large(kMaxChainBytes, "what 32-bit word indices address");
      const std::uint64_t limit =
          is_wide_array ? limits.max_wide_footprint_bytes : limits.max_footprint_bytes;
      if (bytes > limit) {
        fail_for_memory(what + " " + std::to_string(bytes) + " bytes exceeds the " +
                        std::to_string(limit) +
                        " bytes of device memory free now less a reserve of " +
                        std::to_string(reserve_bytes()) + " bytes");
      }
    };
    switch (path) {
      case LoadPath::constant:
        too_large(limits.max_constant_footprint_bytes, "the constant bank");
        break;
      case LoadPath::shared:
        too_large(limits.max_shared_footprint_bytes, "the shared memory a block can use");
        break;
      case LoadPath::tex:
        too_large(4 * planning_.max_texture_1d_linear_elements, "the largest 1D linear texture");
        beyond_free_memory();
        break;
      default:
        beyond_free_memory();
        break;
    }
  }

  // Device memory a spec's arrays occupy (the constant and shared paths' live elsewhere).
  static std::uint64_t device_memory_bytes(const ChaseSpec& spec) {
    const auto on_device = [](LoadPath path, std::uint64_t bytes) {
      return path == LoadPath::constant || path == LoadPath::shared ? 0 : bytes;
    };
    std::uint64_t bytes = on_device(spec.path, spec.footprint_bytes);
    if (spec.eviction) bytes += on_device(spec.eviction->path, spec.eviction->footprint_bytes);
    return bytes;
  }

  // The reservation must fit in one block beside the chase's own shared memory: the static
  // part, the records and, on the shared path, the chain.
  template <typename Fail>
  void check_reserved_shared(const ChaseSpec& spec, const Fail& fail) const {
    if (spec.reserved_shared_bytes == 0) return;
    const std::uint64_t chain_words = spec.path == LoadPath::shared ? spec.footprint_bytes / 4 : 0;
    const std::uint64_t own_dynamic =
        chase_dynamic_shared_bytes(static_cast<std::uint32_t>(chain_words));
    const std::uint64_t allowed =
        max_dynamic_shared_ > own_dynamic ? max_dynamic_shared_ - own_dynamic : 0;
    if (spec.reserved_shared_bytes > allowed) {
      fail("reserved_shared_bytes " + std::to_string(spec.reserved_shared_bytes) + " exceeds the " +
           std::to_string(allowed) + " bytes that the " +
           std::to_string(facts_.shared_per_block_optin_bytes) +
           " bytes of shared memory a block may use (opt-in) leave beside the chase's own " +
           std::to_string(facts_.shared_per_block_optin_bytes - allowed) + " bytes");
    }
  }

  // `processes` with the names NVML gives them, except memtopo's own (no need to ask).
  std::vector<GpuProcess> named(std::vector<GpuProcess> processes) const {
    for (GpuProcess& process : processes) {
      if (!own_pids_.count(process.pid)) process.name = nvml_->process_name(process.pid);
    }
    return processes;
  }

  // UUID, MIG and MPS facts, and which of NVML's processes are memtopo's own.
  void describe_sharing(const std::optional<std::vector<GpuProcess>>& processes_before) {
    facts_.uuid = read_device_uuid(device_);
    if (const auto mig = nvml_->mig_enabled()) facts_.mig = *mig ? "enabled" : "disabled";
    if (!nvml_->mig_instance().empty()) {
      facts_.uuid = nvml_->mig_instance();
      facts_.mig = "enabled (this device is MIG instance " + facts_.uuid + ")";
    }
    const auto after = processes_on(*nvml_);
    std::optional<std::uint32_t> server;
    if (after) {
      own_pids_ = own_gpu_pids(static_cast<std::uint32_t>(getpid()),
                               processes_before.value_or(std::vector<GpuProcess>{}), *after);
      for (const GpuProcess& process : named(*after)) {  // named() leaves out own_pids_
        if (process.name == kMpsServerName) server = process.pid;
      }
    }
    std::size_t clients = 0;
    if (const auto listed_clients = nvml_->mps_processes()) clients = listed_clients->size();
    facts_.mps = describe_mps(after.has_value(), clients, server, mps_control_pipe());
  }

  int device_;
  DeviceFacts facts_;
  DevicePlanningAttributes planning_;
  std::unique_ptr<NvmlSession> nvml_;
  std::set<std::uint32_t> own_pids_;  // memtopo's process as NVML lists it
  std::size_t max_dynamic_shared_ = 0;
  std::vector<std::uint32_t> sm_ids_;
  std::unique_ptr<ChaseRunner> runner_;
  std::unique_ptr<StreamRunner> streams_;
  std::unique_ptr<StudyKernels> study_kernels_;  // made on first use
  std::unique_ptr<L2FirstTouchRunner> first_touch_;  // made on first use
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device_index) {
  return make_cuda_backend(device_index, {});
}

std::unique_ptr<Backend> make_cuda_backend(int device_index, const BeforeContext& before_context) {
  int count = 0;
  // cudart is linked statically and loads the driver here: on a machine without one this is
  // the call that fails (cudaErrorInsufficientDriver, cudaErrorNoDevice, ...).
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    (void)cudaGetLastError();
    throw NoDeviceError(std::string("no CUDA device visible (") + cudaGetErrorName(status) + ": " +
                        cudaGetErrorString(status) + "): " + kNoDeviceAdvice);
  }
  if (count == 0) throw NoDeviceError(std::string("no CUDA device visible: ") + kNoDeviceAdvice);
  mark_startup("driver");
  if (device_index < 0 || device_index >= count) {
    throw NoDeviceError("CUDA device index " + std::to_string(device_index) + " is out of range: " +
                        std::to_string(count) + " device(s) visible, indices 0.." +
                        std::to_string(count - 1) + "; check CUDA_VISIBLE_DEVICES");
  }
  // Nothing below creates a context until cudaSetDevice: a memtopo waiting in before_context
  // (for another one's lock) is not on the GPU, so the running one does not see it there.
  const std::string uuid = read_device_uuid(device_index);
  if (before_context) before_context(uuid);
  mark_startup("gpu_lock");
  char bus_id[kPciBusIdBytes] = {};
  CUDA_CALL(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device_index));
  auto nvml = std::make_unique<NvmlSession>(bus_id);
  // On a GPU split into MIG instances, CUDA's device is one instance: NVML names it "MIG-" and
  // lists its processes (the other instances' do not share its SMs, L2 slices or memory).
  if (nvml->mig_enabled().value_or(false)) {
    nvml->use_mig_instance("MIG-" + uuid.substr(uuid.find('-') + 1));
  }
  const auto processes_before = processes_on(*nvml);
  mark_startup("nvml");
  CUDA_CALL(cudaSetDevice(device_index));
  mark_startup("context");
  return std::make_unique<CudaBackend>(device_index, std::move(nvml), processes_before);
}

}  // namespace memtopo
