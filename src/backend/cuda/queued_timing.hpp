#pragma once
// Timings of work queued behind a blocker, as nvbandwidth times its copies: a one-thread kernel
// holds the stream while the host queues the warm-up, the events and every timed repetition, then
// lets go, so that the repetitions run back to back. Timed one at a time instead (record, launch,
// record, wait), each repetition's window also holds the host's submission of the launch: on two
// H200s an SM read of the peer read 375.7 GB/s in 10 ms launches timed that way, 375.9 queued,
// 376.3 queued in 25 ms launches, nvbandwidth 376.1-376.3 in the same call
// (docs/results/nvidia-h200-x2/2026-11-29_87a53cb-p2p/).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "backend/cuda/cuda_event.hpp"

namespace memtopo {

// Holds `stream` with a one-thread kernel that waits for a flag in pinned host memory; release()
// or the destructor (also when queuing throws) lets it go. The kernel gives up by itself after
// kStreamBlockerLimitSeconds, so a host that never releases cannot hold the GPU.
class StreamBlocker {
 public:
  static constexpr double kStreamBlockerLimitSeconds = 10.0;
  explicit StreamBlocker(cudaStream_t stream);
  ~StreamBlocker();
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;
  void release();

 private:
  cudaStream_t stream_;
  int* flag_ = nullptr;  // pinned, mapped: 0 holds, 1 lets go
  bool released_ = false;
};

// Seconds of each of `repetitions` runs of `work`, queued on `stream` behind a blocker after
// `warmups` runs of `warm` (the first repetition starts right after them, as every later one
// starts right after the one before): one event between each two.
template <typename Warm, typename Work>
std::vector<double> time_queued(cudaStream_t stream, std::uint32_t warmups,
                                std::uint32_t repetitions, Warm&& warm, Work&& work) {
  std::deque<CudaEvent> marks(repetitions + 1);  // CudaEvent stays where it was made
  {
    StreamBlocker blocker(stream);
    for (std::uint32_t i = 0; i < warmups; ++i) warm();
    marks.front().record(stream);
    for (std::uint32_t i = 0; i < repetitions; ++i) {
      work();
      marks[i + 1].record(stream);
    }
    blocker.release();
  }
  std::vector<double> seconds;
  for (std::uint32_t i = 0; i < repetitions; ++i) {
    seconds.push_back(elapsed_seconds(marks[i], marks[i + 1]));
  }
  return seconds;
}

}  // namespace memtopo
