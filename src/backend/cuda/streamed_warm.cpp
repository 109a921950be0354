#include "backend/cuda/streamed_warm.hpp"

#include <algorithm>

#include "backend/cuda/warm_kernels.hpp"

namespace memtopo {
namespace {

template <typename T>
void grow_to(DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer = DeviceBuffer<T>(count);
}

}  // namespace

void StreamedWarm::upload(std::span<const WarmJob> jobs) {
  jobs_host_.assign(jobs.begin(), jobs.end());
  any_ = std::any_of(jobs.begin(), jobs.end(), [](const WarmJob& job) { return job.loads > 0; });
  if (!any_) return;
  grow_to(jobs_, jobs.size());
  grow_to(claims_, jobs.size());
  grow_to(warmed_, jobs.size());
  jobs_.upload(jobs);
}

void StreamedWarm::launch(LoadPath path, const std::int32_t* job_of_sm, std::uint32_t table_size,
                          unsigned grid_blocks) {
  if (!any_) return;
  claims_.fill_zero();
  warmed_.fill_zero();
  const WarmLaunch params{jobs_.data(), job_of_sm, table_size, claims_.data(), warmed_.data()};
  launch_warm(path, params, grid_blocks);
}

std::vector<bool> StreamedWarm::ready() const {
  std::vector<bool> out(jobs_host_.size(), true);
  if (!any_) return out;
  std::vector<std::uint32_t> warmed(jobs_host_.size());
  warmed_.download(std::span(warmed));
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = jobs_host_[k].loads == 0 || warmed[k] != 0;
  }
  return out;
}

}  // namespace memtopo
