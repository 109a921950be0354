#pragma once
// Runs one planned launch of the chase kernel and turns what it recorded into traces.
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/chase_job.hpp"
#include "backend/cuda/chase_plan.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

struct ChaseRunnerConfig {
  std::uint32_t sm_count = 0;
  std::vector<std::uint32_t> sm_ids;         // %smid values blocks run on
  std::uint64_t l2_bytes = 0;                // sizes the L2 eviction buffer (see evict_l2_cache)
  std::size_t max_dynamic_shared_bytes = 0;  // what configure_chase_kernels allowed
};

class ChaseRunner {
 public:
  explicit ChaseRunner(ChaseRunnerConfig config);

  // Runs `launch` (whose jobs index `batch`) and fills traces[job.spec_index] for each job.
  // Jobs whose SM got no block are launched again, a bounded number of times. Throws
  // ExperimentError when a job cannot run, CudaError & co. when CUDA fails.
  void run(const PlannedLaunch& launch, std::span<const ChaseSpec> batch, std::span<Trace> traces);

  // Device memory kept for reuse between runs (counted as available by limits()).
  std::uint64_t held_bytes() const;
  // Bytes the next cache flush will allocate if it has not yet (planning reserve).
  std::uint64_t flush_scratch_bytes() const;

 private:
  struct Placement;  // where each job's chain and records live on the device
  Placement place(const PlannedLaunch& launch, std::span<const ChaseSpec> batch);
  void evict_l2_cache();
  void release_large_buffers();

  ChaseRunnerConfig config_;
  // Kept between runs so that a probe's thousands of small chases do not each cudaMalloc.
  DeviceBuffer<std::uint32_t> chains_;
  DeviceBuffer<std::uint32_t> cycles_;
  DeviceBuffer<std::uint32_t> indices_;
  DeviceBuffer<ChaseJob> jobs_;
  DeviceBuffer<ChaseOutcome> outcomes_;
  DeviceBuffer<std::int32_t> job_of_sm_;
  DeviceBuffer<std::uint32_t> claims_;  // per job, then one more word: the arrival counter
  DeviceBuffer<std::uint32_t> l2_scratch_;
};

}  // namespace memtopo
