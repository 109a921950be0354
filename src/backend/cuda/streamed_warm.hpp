#pragma once
// The warm passes a chase launch hands to the warm kernel (warm_kernel.cu): which jobs, and
// whether each one's warm ran on its SM before its chase (warm_progression.hpp says why).
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/warm_job.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

class StreamedWarm {
 public:
  // Per job of the next launch: its warm job (loads 0: the chase warms itself).
  void upload(std::span<const WarmJob> jobs);
  // Whether any job of the launch is warmed by the warm kernel.
  bool any() const { return any_; }
  // Launches the warm kernel over the jobs that `job_of_sm` (the chase launch's table on the
  // device) places, before the chase kernel on the same stream; forgets earlier warms.
  void launch(LoadPath path, const std::int32_t* job_of_sm, std::uint32_t table_size,
              unsigned grid_blocks);
  // After the launch has finished: per job, whether it is ready to be timed (it needed no warm
  // kernel, or the last launch warmed it on its SM).
  std::vector<bool> ready() const;

 private:
  bool any_ = false;
  std::vector<WarmJob> jobs_host_;
  DeviceBuffer<WarmJob> jobs_;
  DeviceBuffer<std::uint32_t> claims_;
  DeviceBuffer<std::uint32_t> warmed_;
};

}  // namespace memtopo
