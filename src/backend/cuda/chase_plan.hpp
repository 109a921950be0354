#pragma once
// Splitting a batch of chase specs into kernel launches, and sizing a launch's shared-memory
// carveout (pure host logic, no CUDA).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backend/experiment.hpp"

namespace memtopo {

struct PlannedJob {
  std::size_t spec_index = 0;  // position in the batch
  std::uint32_t sm_id = 0;     // the %smid the job must run on
};

// One launch of the chase kernel: one load path, one cache-flush setting, one shared-memory
// reservation (the launch's dynamic shared memory and carveout hold it for every block), at
// most one job per SM (a block claims its SM's job), and a single job when a job uses the
// constant bank, as its chase or its eviction sweep (the bank holds one chain at a time), or
// a wide chain (the wide kernel reads its chain's length and start from the launch).
struct PlannedLaunch {
  LoadPath path = LoadPath::ca;
  bool flush_device_caches = false;
  std::uint32_t reserved_shared_bytes = 0;
  std::vector<PlannedJob> jobs;
  bool wide = false;  // its one job is a wide chain (wide_chase_kernel)
};

// True when the spec's chase or its eviction sweep reads the constant bank.
bool uses_constant_bank(const ChaseSpec& spec);

// Device memory a spec's arrays take in a launch: the chase's and the sweep's, each rounded up
// to the 2 MiB boundary the runner starts every array on; nothing for the constant bank.
std::uint64_t launch_array_bytes(const ChaseSpec& spec);

// Groups `batch` into as few launches as these rules allow, in the order the specs' groups
// first appear. A spec with `sm` set runs on that SM; the others take free SMs in the order
// of `sm_ids` (the SM ids the device runs blocks on). Specs pinned to one SM go to separate
// launches. The caller has checked every pinned SM against `sm_ids`; `sm_ids` is not empty.
// A job joins a launch only while the launch's launch_array_bytes stay within
// `array_bytes_budget` (the free device memory): a batch of 8-16 GiB TLB chases then runs
// as several launches instead of failing for memory. A job over the budget on its own still
// gets a launch (the caller rejects specs too large for the device).
std::vector<PlannedLaunch> plan_launches(std::span<const ChaseSpec> batch,
                                         std::span<const std::uint32_t> sm_ids,
                                         std::uint64_t array_bytes_budget = UINT64_MAX);

// The smallest shared-memory carveout, in percent of the SM's shared memory
// (cudaDevAttrMaxSharedMemoryPerMultiprocessor, > 0), that holds one block using
// `block_shared_bytes` (static + dynamic + what the SM reserves per block); 100 when none does.
int smallest_carveout_percent(std::uint64_t block_shared_bytes, std::uint64_t shared_per_sm_bytes);

// Blocks of `block_shared_bytes` (> 0) that a carveout of `percent` holds, at least: the
// driver may round the carveout up to a larger configuration the SM supports.
std::uint64_t blocks_in_carveout(int percent, std::uint64_t block_shared_bytes,
                                 std::uint64_t shared_per_sm_bytes);

}  // namespace memtopo
