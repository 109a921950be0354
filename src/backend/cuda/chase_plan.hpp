#pragma once
// Splitting a batch of chase specs into kernel launches (pure host logic, no CUDA).
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

// One launch of the chase kernel: one load path, one cache-flush setting, at most one job
// per SM (a block claims its SM's job), and a single job on the constant path (the constant
// bank holds one chain at a time).
struct PlannedLaunch {
  LoadPath path = LoadPath::ca;
  bool flush_device_caches = false;
  std::vector<PlannedJob> jobs;
};

// Groups `batch` into as few launches as these rules allow, in the order the specs' groups
// first appear. A spec with `sm` set runs on that SM; the others take free SMs in the order
// of `sm_ids` (the SM ids the device runs blocks on). Specs pinned to one SM go to separate
// launches. The caller has checked every pinned SM against `sm_ids`; `sm_ids` is not empty.
std::vector<PlannedLaunch> plan_launches(std::span<const ChaseSpec> batch,
                                         std::span<const std::uint32_t> sm_ids);

}  // namespace memtopo
