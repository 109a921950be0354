// The barrier and spilling experiments on a CUDA device: checks a configuration against what
// the device holds, launches it (one untimed launch first, then the timed ones) and turns the
// per-block or per-warp timings into samples.
#include "backend/cuda/study_kernels_cuda.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/spill_kernels.hpp"
#include "backend/cuda/sync_kernels.hpp"
#include "spill_ptxas.hpp"  // generated at build time by spill_ptxas.cmake

namespace memtopo {

namespace {

constexpr std::uint32_t kWarpSize = 32;
constexpr std::uint32_t kMaxThreadsPerBlock = 1024;
// Cluster sizes tried for the largest that launches: the portable 8 and Hopper's opt-in 16.
constexpr std::array<std::uint32_t, 4> kClusterSizesLargestFirst = {16, 8, 4, 2};
// Compute capability 9.0 introduced thread-block clusters.
constexpr int kClusterMajor = 9;
constexpr int kMaxCarveoutPercent = 100;

[[noreturn]] void reject(const std::string& what) {
  throw StudyExperimentError(what);
}

void check_threads(std::uint32_t threads_per_block) {
  if (threads_per_block == 0 || threads_per_block > kMaxThreadsPerBlock ||
      threads_per_block % kWarpSize != 0) {
    reject(std::to_string(threads_per_block) +
           " threads per block: must be a multiple of 32 from 32 to 1024");
  }
}

// Busiest and idlest SM of one launch, by the blocks whose thread 0 recorded its %smid.
std::pair<std::uint32_t, std::uint32_t> blocks_per_sm_seen(const std::vector<StudyTiming>& runs) {
  std::map<std::uint32_t, std::uint32_t> per_sm;
  for (const StudyTiming& timing : runs) ++per_sm[timing.sm_id];
  std::uint32_t most = 0;
  std::uint32_t fewest = UINT32_MAX;
  for (const auto& [sm, blocks] : per_sm) {
    most = std::max(most, blocks);
    fewest = std::min(fewest, blocks);
  }
  return {most, per_sm.empty() ? 0 : fewest};
}

class CudaStudyKernels final : public StudyKernels {
 public:
  CudaStudyKernels(int device, const DeviceFacts& facts) : device_(device), facts_(facts) {}

  BarrierLimits barrier_limits(BarrierKind kind, std::uint32_t threads_per_block) override {
    check_threads(threads_per_block);
    CUDA_CALL(cudaSetDevice(device_));
    BarrierLimits limits;
    if (kind == BarrierKind::grid && !supports_cooperative_launch()) {
      limits.unsupported = "the device does not support cooperative launches (grid sync)";
      return limits;
    }
    if (kind == BarrierKind::cluster) {
      if (facts_.cc_major < kClusterMajor) {
        limits.unsupported =
            "thread-block clusters need compute capability 9.0 or later; this "
            "device is " +
            std::to_string(facts_.cc_major) + "." + std::to_string(facts_.cc_minor);
        return limits;
      }
      for (const std::uint32_t size : kClusterSizesLargestFirst) {
        if (barrier_active_clusters(size, threads_per_block) > 0) {
          limits.max_cluster_size = size;
          break;
        }
      }
      if (limits.max_cluster_size == 0) {
        limits.unsupported = "no cluster of 2 or more blocks of " +
                             std::to_string(threads_per_block) + " threads launches here";
        return limits;
      }
    }
    limits.max_blocks_per_sm = barrier_blocks_per_sm(kind, threads_per_block);
    return limits;
  }

  BarrierRun run_barrier(const BarrierSpec& spec) override {
    const BarrierLimits limits = barrier_limits(spec.kind, spec.threads_per_block);
    if (limits.unsupported) reject(*limits.unsupported);
    if (spec.blocks_per_sm == 0 || spec.blocks_per_sm > limits.max_blocks_per_sm) {
      reject(std::to_string(spec.blocks_per_sm) + " blocks per SM of " +
             std::to_string(spec.threads_per_block) + " threads: an SM holds 1 to " +
             std::to_string(limits.max_blocks_per_sm));
    }
    if (spec.barriers == 0 || spec.barriers % kBarrierUnroll != 0 || spec.launches == 0) {
      reject("barriers must be a positive multiple of " + std::to_string(kBarrierUnroll) +
             " and launches positive");
    }
    const std::uint32_t blocks = barrier_blocks(spec, limits);
    const auto launch = [&] {
      return launch_barrier_loop(spec.kind, spec.threads_per_block, blocks, spec.cluster_size,
                                 spec.barriers);
    };
    (void)launch();  // untimed: module load, first-touch of the records
    BarrierRun run;
    run.blocks_per_launch = blocks;
    run.fewest_blocks_on_one_sm = UINT32_MAX;
    for (std::uint32_t i = 0; i < spec.launches; ++i) {
      const std::vector<StudyTiming> timings = launch();
      for (const StudyTiming& timing : timings) {
        run.cycles_per_barrier.push_back(static_cast<double>(timing.cycles) / spec.barriers);
        run.ns_per_barrier.push_back(static_cast<double>(timing.nanoseconds) / spec.barriers);
      }
      const auto [most, fewest] = blocks_per_sm_seen(timings);
      run.most_blocks_on_one_sm = std::max(run.most_blocks_on_one_sm, most);
      run.fewest_blocks_on_one_sm = std::min(run.fewest_blocks_on_one_sm, fewest);
    }
    return run;
  }

  const std::vector<SpillVariant>& spill_variants() override {
    if (variants_.empty()) {
      CUDA_CALL(cudaSetDevice(device_));
      const std::span<const std::uint32_t> limits = spill_register_limits();
      for (std::size_t i = 0; i < limits.size(); ++i) variants_.push_back(describe_build(i));
    }
    return variants_;
  }

  std::uint32_t spill_max_blocks_per_sm(std::uint32_t variant,
                                        std::uint32_t threads_per_block) override {
    check_threads(threads_per_block);
    CUDA_CALL(cudaSetDevice(device_));
    return spill_blocks_per_sm(variant, threads_per_block);
  }

  SpillRun run_spill(const SpillSpec& spec) override {
    const std::uint32_t most = spill_max_blocks_per_sm(spec.variant, spec.threads_per_block);
    if (spec.blocks_per_sm == 0 || spec.blocks_per_sm > most) {
      reject(std::to_string(spec.blocks_per_sm) + " blocks per SM of " +
             std::to_string(spec.threads_per_block) + " threads: an SM holds 1 to " +
             std::to_string(most) + " of this build");
    }
    if (spec.iterations == 0 || spec.launches == 0) reject("iterations and launches must be > 0");
    if (spec.shared_carveout_percent < SpillSpec::kDefaultCarveout ||
        spec.shared_carveout_percent > kMaxCarveoutPercent) {
      reject("shared-memory carveout " + std::to_string(spec.shared_carveout_percent) +
             " %: must be -1 (default) or 0 to 100");
    }
    const std::uint32_t blocks = spec.blocks_per_sm * facts_.sm_count;
    const auto launch = [&] {
      return launch_spill_loop(spec.variant, spec.threads_per_block, blocks, spec.iterations,
                               spec.shared_carveout_percent);
    };
    (void)launch();  // untimed
    SpillRun run;
    run.warps_per_launch = blocks * (spec.threads_per_block / kWarpSize);
    for (std::uint32_t i = 0; i < spec.launches; ++i) {
      for (const StudyTiming& timing : launch()) {
        run.cycles_per_iteration.push_back(static_cast<double>(timing.cycles) / spec.iterations);
        run.ns_per_iteration.push_back(static_cast<double>(timing.nanoseconds) / spec.iterations);
      }
    }
    return run;
  }

  std::string ptxas_counts_source() override {
    if (kSpillPtxasCounts.empty()) return std::string("ptxas counts ") + kSpillPtxasStatus;
    if (kSpillPtxasArchitecture != device_architecture()) {
      return "ptxas counts not used: they are for sm_" + std::to_string(kSpillPtxasArchitecture) +
             ", this device is sm_" + std::to_string(device_architecture());
    }
    return std::string(kSpillPtxasStatus) + " at build time";
  }

 private:
  std::uint32_t device_architecture() const {
    return static_cast<std::uint32_t>(facts_.cc_major * 10 + facts_.cc_minor);
  }

  bool supports_cooperative_launch() const {
    int cooperative = 0;
    CUDA_CALL(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device_));
    return cooperative != 0;
  }

  // Blocks per launch: blocks_per_sm on every SM; for clusters, as many whole clusters of
  // that as are resident at once (at least one).
  std::uint32_t barrier_blocks(const BarrierSpec& spec, const BarrierLimits& limits) const {
    const std::uint32_t wanted = spec.blocks_per_sm * facts_.sm_count;
    if (spec.kind != BarrierKind::cluster) return wanted;
    if (spec.cluster_size < 2 || spec.cluster_size > limits.max_cluster_size) {
      reject("cluster size " + std::to_string(spec.cluster_size) + ": this device launches 2 to " +
             std::to_string(limits.max_cluster_size));
    }
    const std::uint32_t resident =
        barrier_active_clusters(spec.cluster_size, spec.threads_per_block);
    const std::uint32_t clusters = std::max(1u, std::min(resident, wanted / spec.cluster_size));
    return clusters * spec.cluster_size;
  }

  SpillVariant describe_build(std::size_t index) const {
    SpillVariant variant;
    variant.register_limit = spill_register_limits()[index];
    const SpillBuildAttributes attributes = spill_build_attributes(index);
    variant.registers = attributes.registers;
    variant.local_bytes = attributes.local_bytes;
    // ptxas' counts hold for the architecture they were compiled for only.
    if (kSpillPtxasArchitecture != device_architecture()) return variant;
    for (const SpillPtxasCounts& counts : kSpillPtxasCounts) {
      if (counts.register_limit != variant.register_limit) continue;
      variant.ptxas_stack_bytes = counts.stack_bytes;
      variant.ptxas_spill_store_bytes = counts.spill_store_bytes;
      variant.ptxas_spill_load_bytes = counts.spill_load_bytes;
    }
    return variant;
  }

  int device_;
  DeviceFacts facts_;
  std::vector<SpillVariant> variants_;
};

}  // namespace

std::unique_ptr<StudyKernels> make_cuda_study_kernels(int device, const DeviceFacts& facts) {
  return std::make_unique<CudaStudyKernels>(device, facts);
}

}  // namespace memtopo
