#pragma once
// CUDA events as RAII objects: one event, the seconds between two, and a timer of two events
// around work on a stream. Every timing of launches and copies in the backend goes through here.
#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_call.hpp"

namespace memtopo {

// One CUDA event, destroyed with its owner.
class CudaEvent {
 public:
  CudaEvent() { CUDA_CALL(cudaEventCreate(&event_)); }
  ~CudaEvent() { (void)cudaEventDestroy(event_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream = nullptr) { CUDA_CALL(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_{};
};

// Seconds from `start` to `stop`, both recorded; waits for `stop`.
inline double elapsed_seconds(const CudaEvent& start, const CudaEvent& stop) {
  constexpr double kSecondsPerMillisecond = 1e-3;
  CUDA_CALL(cudaEventSynchronize(stop.get()));
  float milliseconds = 0;
  CUDA_CALL(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
  return milliseconds * kSecondsPerMillisecond;
}

// Two events around work on one stream (the default stream unless given).
class EventTimer {
 public:
  void start(cudaStream_t stream = nullptr) { start_.record(stream); }
  void stop(cudaStream_t stream = nullptr) { stop_.record(stream); }
  double seconds() const { return elapsed_seconds(start_, stop_); }
  // Seconds that `work` (queued on `stream`) took.
  template <typename Work>
  double time(cudaStream_t stream, Work&& work) {
    start(stream);
    work();
    stop(stream);
    return seconds();
  }

 private:
  CudaEvent start_, stop_;
};

}  // namespace memtopo
