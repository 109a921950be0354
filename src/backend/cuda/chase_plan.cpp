#include "backend/cuda/chase_plan.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace memtopo {

namespace {

struct LaunchUnderConstruction {
  PlannedLaunch launch;
  std::set<std::uint32_t> used_sms;
};

bool same_group(const PlannedLaunch& launch, const ChaseSpec& spec) {
  return launch.path == spec.path && launch.flush_device_caches == spec.flush_device_caches;
}

LaunchUnderConstruction& new_launch(std::vector<LaunchUnderConstruction>& launches,
                                    const ChaseSpec& spec) {
  launches.push_back({PlannedLaunch{spec.path, spec.flush_device_caches, {}}, {}});
  return launches.back();
}

// The launch of the spec's group that can still take a job on `sm`, or a new one.
LaunchUnderConstruction& launch_with_free_sm(std::vector<LaunchUnderConstruction>& launches,
                                             const ChaseSpec& spec, std::uint32_t sm) {
  if (spec.path != LoadPath::constant) {
    for (auto& candidate : launches) {
      if (same_group(candidate.launch, spec) && !candidate.used_sms.contains(sm)) {
        return candidate;
      }
    }
  }
  return new_launch(launches, spec);
}

// The launch of the spec's group with an SM still free (and that SM), or a new launch.
std::pair<LaunchUnderConstruction*, std::uint32_t> launch_with_any_free_sm(
    std::vector<LaunchUnderConstruction>& launches, const ChaseSpec& spec,
    std::span<const std::uint32_t> sm_ids) {
  if (spec.path != LoadPath::constant) {
    for (auto& candidate : launches) {
      if (!same_group(candidate.launch, spec)) continue;
      for (const std::uint32_t sm : sm_ids) {
        if (!candidate.used_sms.contains(sm)) return {&candidate, sm};
      }
    }
  }
  return {&new_launch(launches, spec), sm_ids.front()};
}

void add_job(LaunchUnderConstruction& target, std::size_t spec_index, std::uint32_t sm) {
  target.launch.jobs.push_back({spec_index, sm});
  target.used_sms.insert(sm);
}

}  // namespace

std::vector<PlannedLaunch> plan_launches(std::span<const ChaseSpec> batch,
                                         std::span<const std::uint32_t> sm_ids) {
  if (sm_ids.empty()) throw std::invalid_argument("plan_launches: no SM ids");
  std::vector<LaunchUnderConstruction> launches;
  // Pinned specs first, so that a spec free to go anywhere never takes a pinned spec's SM.
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sm)
      add_job(launch_with_free_sm(launches, batch[i], *batch[i].sm), i, *batch[i].sm);
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sm) continue;
    auto [target, sm] = launch_with_any_free_sm(launches, batch[i], sm_ids);
    add_job(*target, i, sm);
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

}  // namespace memtopo
