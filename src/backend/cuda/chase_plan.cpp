#include "backend/cuda/chase_plan.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace memtopo {

namespace {

// Arrays start on 2 MiB boundaries (see kChainAlignmentBytes in chase_runner.cpp).
constexpr std::uint64_t kArrayAlignmentBytes = 2u << 20;

struct LaunchUnderConstruction {
  PlannedLaunch launch;
  std::set<std::uint32_t> used_sms;
  bool holds_constant_bank = false;  // a job of it uses the bank: no other job may join
  std::uint64_t array_bytes = 0;     // launch_array_bytes of its jobs
};

std::uint64_t device_array_bytes(LoadPath path, std::uint64_t footprint_bytes) {
  if (path == LoadPath::constant) return 0;
  return (footprint_bytes + kArrayAlignmentBytes - 1) / kArrayAlignmentBytes * kArrayAlignmentBytes;
}

bool same_group(const PlannedLaunch& launch, const ChaseSpec& spec) {
  return launch.path == spec.path && launch.flush_device_caches == spec.flush_device_caches &&
         launch.reserved_shared_bytes == spec.reserved_shared_bytes;
}

bool can_join(const LaunchUnderConstruction& candidate, const ChaseSpec& spec,
              std::uint64_t array_bytes_budget) {
  const std::uint64_t bytes = launch_array_bytes(spec);
  const bool fits =
      bytes <= array_bytes_budget && candidate.array_bytes <= array_bytes_budget - bytes;
  return same_group(candidate.launch, spec) && !candidate.holds_constant_bank &&
         !uses_constant_bank(spec) && !candidate.launch.wide && !is_wide(spec) && fits;
}

LaunchUnderConstruction& new_launch(std::vector<LaunchUnderConstruction>& launches,
                                    const ChaseSpec& spec) {
  launches.push_back(
      {PlannedLaunch{
           spec.path, spec.flush_device_caches, spec.reserved_shared_bytes, {}, is_wide(spec)},
       {}});
  return launches.back();
}

// The launch of the spec's group that can still take a job on `sm`, or a new one.
LaunchUnderConstruction& launch_with_free_sm(std::vector<LaunchUnderConstruction>& launches,
                                             const ChaseSpec& spec, std::uint32_t sm,
                                             std::uint64_t array_bytes_budget) {
  for (auto& candidate : launches) {
    if (can_join(candidate, spec, array_bytes_budget) && !candidate.used_sms.contains(sm)) {
      return candidate;
    }
  }
  return new_launch(launches, spec);
}

// The launch of the spec's group with an SM still free (and that SM), or a new launch.
std::pair<LaunchUnderConstruction*, std::uint32_t> launch_with_any_free_sm(
    std::vector<LaunchUnderConstruction>& launches, const ChaseSpec& spec,
    std::span<const std::uint32_t> sm_ids, std::uint64_t array_bytes_budget) {
  for (auto& candidate : launches) {
    if (!can_join(candidate, spec, array_bytes_budget)) continue;
    for (const std::uint32_t sm : sm_ids) {
      if (!candidate.used_sms.contains(sm)) return {&candidate, sm};
    }
  }
  return {&new_launch(launches, spec), sm_ids.front()};
}

void add_job(LaunchUnderConstruction& target, const ChaseSpec& spec, std::size_t spec_index,
             std::uint32_t sm) {
  target.launch.jobs.push_back({spec_index, sm});
  target.used_sms.insert(sm);
  target.holds_constant_bank = target.holds_constant_bank || uses_constant_bank(spec);
  target.array_bytes += launch_array_bytes(spec);
}

}  // namespace

bool uses_constant_bank(const ChaseSpec& spec) {
  return spec.path == LoadPath::constant ||
         (spec.eviction && spec.eviction->path == LoadPath::constant);
}

std::uint64_t launch_array_bytes(const ChaseSpec& spec) {
  std::uint64_t bytes = device_array_bytes(spec.path, spec.footprint_bytes);
  if (spec.eviction) {
    bytes += device_array_bytes(spec.eviction->path, spec.eviction->footprint_bytes);
  }
  return bytes;
}

std::vector<PlannedLaunch> plan_launches(std::span<const ChaseSpec> batch,
                                         std::span<const std::uint32_t> sm_ids,
                                         std::uint64_t array_bytes_budget) {
  if (sm_ids.empty()) throw std::invalid_argument("plan_launches: no SM ids");
  std::vector<LaunchUnderConstruction> launches;
  // Pinned specs first, so that a spec free to go anywhere never takes a pinned spec's SM.
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sm) {
      add_job(launch_with_free_sm(launches, batch[i], *batch[i].sm, array_bytes_budget), batch[i],
              i, *batch[i].sm);
    }
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sm) continue;
    auto [target, sm] = launch_with_any_free_sm(launches, batch[i], sm_ids, array_bytes_budget);
    add_job(*target, batch[i], i, sm);
  }
  std::vector<PlannedLaunch> plan;
  plan.reserve(launches.size());
  for (auto& built : launches) plan.push_back(std::move(built.launch));
  // Run groups in the order their first spec appears in the batch.
  std::stable_sort(plan.begin(), plan.end(), [](const PlannedLaunch& a, const PlannedLaunch& b) {
    const auto first = [](const PlannedLaunch& l) {
      std::size_t lowest = SIZE_MAX;
      for (const auto& job : l.jobs) lowest = std::min(lowest, job.spec_index);
      return lowest;
    };
    return first(a) < first(b);
  });
  return plan;
}

int smallest_carveout_percent(std::uint64_t block_shared_bytes, std::uint64_t shared_per_sm_bytes) {
  if (shared_per_sm_bytes == 0) {
    throw std::invalid_argument("smallest_carveout_percent: no shared memory per SM");
  }
  // Rounded up: the carveout must hold the whole block.
  const std::uint64_t percent =
      (100 * block_shared_bytes + shared_per_sm_bytes - 1) / shared_per_sm_bytes;
  return static_cast<int>(std::min<std::uint64_t>(percent, 100));
}

std::uint64_t blocks_in_carveout(int percent, std::uint64_t block_shared_bytes,
                                 std::uint64_t shared_per_sm_bytes) {
  if (block_shared_bytes == 0) throw std::invalid_argument("blocks_in_carveout: empty block");
  const std::uint64_t carveout_bytes =
      static_cast<std::uint64_t>(std::clamp(percent, 0, 100)) * shared_per_sm_bytes / 100;
  return carveout_bytes / block_shared_bytes;
}

}  // namespace memtopo
