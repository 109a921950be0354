// The real-GPU backend: device facts, limits, validation, and running batches of chases.
#include "backend/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "backend/cuda/chase_kernels.hpp"
#include "backend/cuda/chase_plan.hpp"
#include "backend/cuda/chase_runner.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_query.hpp"
#include "backend/cuda/nvml_session.hpp"
#include "backend/cuda/support_kernels.hpp"

namespace memtopo {

namespace {

constexpr const char* kNoDeviceAdvice =
    "check nvidia-smi and CUDA_VISIBLE_DEVICES; --sim FILE runs on a simulated device";
// Records are 8 bytes per timed load and chaser; past this a single chase is better split.
constexpr std::uint32_t kMaxTimedLoads = 1u << 26;
// Device memory left free for the runtime, records and bookkeeping when planning footprints.
constexpr std::uint64_t kFootprintReserveBytes = 512ull << 20;
// Launches of the SM survey; each one normally already finds every SM.
constexpr int kSmSurveyLaunches = 4;

std::string sm_range(const std::vector<std::uint32_t>& ids) {
  if (ids.empty()) return "none";
  const bool contiguous = ids.back() - ids.front() + 1 == ids.size();
  if (contiguous) return std::to_string(ids.front()) + ".." + std::to_string(ids.back());
  std::string text;
  for (const std::uint32_t id : ids) {
    if (!text.empty()) text += ',';
    text += std::to_string(id);
  }
  return text;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device)
      : device_(device),
        facts_(read_cuda_device_facts(device)),
        planning_(read_planning_attributes(device)),
        nvml_(facts_.pci_bus_id) {
    add_nvml_facts(facts_, nvml_);
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
  }

  std::string_view kind() const override { return "cuda"; }
  const DeviceFacts& facts() const override { return facts_; }

  BackendLimits limits() const override {
    const std::uint64_t usable = usable_device_bytes();

    BackendLimits limits;
    // Word indices are 32-bit, so no chain can be longer than 2^32 - 1 words.
    limits.max_footprint_bytes = std::min<std::uint64_t>(array_bytes_budget(), 4ull * UINT32_MAX);
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
    // Within the free device memory per launch: several huge chases run one after another
    // (each launch frees arrays over 1 GiB when it ends).
    for (const PlannedLaunch& launch : plan_launches(batch, sm_ids_, array_bytes_budget())) {
      runner_->run(launch, batch, traces);
    }
    return traces;
  }

  double current_sm_clock_khz() override {
    const auto mhz = nvml_.sm_clock_mhz();
    return mhz ? *mhz * 1000.0 : 0.0;
  }

 private:
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
    const std::uint64_t reserve = kFootprintReserveBytes + runner_->flush_scratch_bytes();
    return usable > reserve ? usable - reserve : 0;
  }

  std::uint32_t max_chasers() const {
    const std::uint32_t warp = std::max<std::uint32_t>(facts_.warp_size, 1);
    return std::min<std::uint32_t>(planning_.max_threads_per_block / warp, 32);
  }

  // Throws ExperimentError for a spec this device cannot run, naming the spec and the limit.
  void check_runnable(const ChaseSpec& spec, std::size_t index, const BackendLimits& limits) const {
    const auto fail = [&](const std::string& what) {
      throw ExperimentError("chase spec " + std::to_string(index) + " (path " +
                            std::string(to_string(spec.path)) + "): " + what);
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
    check_footprint(spec.path, spec.footprint_bytes, "footprint", limits, fail, is_wide(spec));
    if (spec.eviction) {
      check_footprint(spec.eviction->path, spec.eviction->footprint_bytes,
                      "eviction sweep footprint", limits, fail);
      // Both arrays are in device memory at once.
      const std::uint64_t device_bytes = device_memory_bytes(spec);
      if (device_bytes > limits.max_footprint_bytes) {
        fail("footprint and eviction sweep together need " + std::to_string(device_bytes) +
             " bytes, more than the free device memory of " +
             std::to_string(limits.max_footprint_bytes) + " bytes");
      }
    }
    check_reserved_shared(spec, fail);
    if (spec.sm && !std::binary_search(sm_ids_.begin(), sm_ids_.end(), *spec.sm)) {
      fail("sm " + std::to_string(*spec.sm) + " is not an SM this device runs blocks on (" +
           sm_range(sm_ids_) + ")");
    }
  }

  // Throws through `fail` when an array of `bytes` on `path` does not fit where that path
  // reads it. `what` names the array in the message.
  template <typename Fail>
  void check_footprint(LoadPath path, std::uint64_t bytes, const std::string& what,
                       const BackendLimits& limits, const Fail& fail,
                       bool is_wide_array = false) const {
    const auto too_large = [&](std::uint64_t limit, const std::string& where) {
      if (bytes > limit) {
        fail(what + " " + std::to_string(bytes) + " bytes exceeds " + where + " of " +
             std::to_string(limit) + " bytes");
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
        too_large(limits.max_footprint_bytes, "the free device memory");
        break;
      default:
        too_large(is_wide_array ? limits.max_wide_footprint_bytes : limits.max_footprint_bytes,
                  "the free device memory");
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

  int device_;
  DeviceFacts facts_;
  DevicePlanningAttributes planning_;
  NvmlSession nvml_;
  std::size_t max_dynamic_shared_ = 0;
  std::vector<std::uint32_t> sm_ids_;
  std::unique_ptr<ChaseRunner> runner_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device_index) {
  int count = 0;
  // cudart is linked statically and loads the driver here: on a machine without one this is
  // the call that fails (cudaErrorInsufficientDriver, cudaErrorNoDevice, ...).
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    (void)cudaGetLastError();
    throw NoDeviceError(std::string("no CUDA device visible (") + cudaGetErrorName(status) + ": " +
                        cudaGetErrorString(status) + "): " + kNoDeviceAdvice);
  }
  if (count == 0) throw NoDeviceError(std::string("no CUDA device visible: ") + kNoDeviceAdvice);
  if (device_index < 0 || device_index >= count) {
    throw NoDeviceError("CUDA device index " + std::to_string(device_index) + " is out of range: " +
                        std::to_string(count) + " device(s) visible, indices 0.." +
                        std::to_string(count - 1) + "; check CUDA_VISIBLE_DEVICES");
  }
  CUDA_CALL(cudaSetDevice(device_index));
  return std::make_unique<CudaBackend>(device_index);
}

}  // namespace memtopo
