#pragma once
// Runs one planned launch of the chase kernel and turns what it recorded into traces.
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/chain_upload.hpp"
#include "backend/cuda/chase_job.hpp"
#include "backend/cuda/chase_plan.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/streamed_warm.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

struct ChaseRunnerConfig {
  std::uint32_t sm_count = 0;
  std::vector<std::uint32_t> sm_ids;         // %smid values blocks run on
  std::uint64_t l2_bytes = 0;                // sizes the L2 eviction buffer (see evict_l2_cache)
  std::size_t max_dynamic_shared_bytes = 0;  // opt-in shared per block minus static shared
  // Sizing the carveout of a launch that reserves shared memory: the SM's shared memory
  // (cudaDevAttrMaxSharedMemoryPerMultiprocessor, what carveout percentages are of) and what
  // the SM sets aside for every resident block (cudaDevAttrReservedSharedMemoryPerBlock).
  std::uint64_t shared_per_sm_bytes = 0;
  std::uint64_t system_shared_per_block_bytes = 0;
};

class ChaseRunner {
 public:
  explicit ChaseRunner(ChaseRunnerConfig config);

  // Runs `launch` (whose jobs index `batch`, every spec of it validated by the caller) and
  // fills traces[job.spec_index] for each job.
  // Jobs whose SM got no block are launched again, a bounded number of times. Throws
  // ExperimentError when a job cannot run, CudaError & co. when CUDA fails. Arrays over 1 GiB
  // are freed afterwards, unless the run succeeded and every spec asked to keep them
  // (ChaseSpec::keep_arrays): then the next run frees them, if it does not ask the same. A
  // kept wide chain's array grows to `kept_wide_bytes` at once (when that is larger and fits).
  void run(const PlannedLaunch& launch, std::span<const ChaseSpec> batch, std::span<Trace> traces,
           std::uint64_t kept_wide_bytes = 0);

  // Frees the arrays over 1 GiB that runs kept (ChaseSpec::keep_arrays): before another kind
  // of experiment needs the memory.
  void release_large_buffers() noexcept;

  // Device memory kept for reuse between runs (counted as available by limits()).
  std::uint64_t held_bytes() const;
  // Bytes the next cache flush will allocate if it has not yet (planning reserve).
  std::uint64_t flush_scratch_bytes() const;

 private:
  struct Placement;     // where each job's chain, sweep and records live on the device
  struct UploadedJobs;  // the descriptors of a launch and what they point to
  struct LaunchShape;   // grid, block and shared memory of a launch
  class ReleaseOnExit;  // calls release_large_buffers when run() returns or throws
  Placement place(const PlannedLaunch& launch, std::span<const ChaseSpec> batch,
                  std::uint64_t kept_wide_bytes);
  void drop_unused_arrays(const Placement& placement);
  UploadedJobs upload_jobs(const PlannedLaunch& launch, std::span<const ChaseSpec> batch,
                           const Placement& placement);
  LaunchShape configure_launch(const PlannedLaunch& launch, const UploadedJobs& jobs) const;
  std::vector<ChaseOutcome> launch_until_every_job_ran(const PlannedLaunch& launch,
                                                       const UploadedJobs& jobs,
                                                       const LaunchShape& shape);
  void evict_l2_cache();

  ChaseRunnerConfig config_;
  // Kept between runs so that a probe's thousands of small chases do not each cudaMalloc.
  DeviceBuffer<std::uint32_t> chains_;
  DeviceBuffer<std::uint32_t> sweep_chains_;  // eviction sweeps: arrays apart from the chains
  LinkScratch link_scratch_;  // sparse and wide chains' links on their way (write_chain)
  DeviceBuffer<std::uint32_t> cycles_;
  DeviceBuffer<std::uint32_t> indices_;
  DeviceBuffer<std::uint64_t> wide_indices_;  // records of wide launches
  // The records of a launch on the host, downloaded in one copy per array (then split per chase).
  std::vector<std::uint32_t> host_cycles_;
  std::vector<std::uint32_t> host_indices_;
  std::vector<std::uint64_t> host_wide_indices_;
  DeviceBuffer<ChaseJob> jobs_;
  DeviceBuffer<ChaseOutcome> outcomes_;
  DeviceBuffer<std::int32_t> job_of_sm_;
  DeviceBuffer<std::uint32_t> claims_;  // per job, then one more word: the arrival counter
  DeviceBuffer<std::uint32_t> l2_scratch_;
  StreamedWarm streamed_warm_;  // warm passes run by the warm kernel (warm_progression.hpp)
};

}  // namespace memtopo
