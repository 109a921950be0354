// The stream blocker and queued timings (backend/cuda/queued_timing.hpp) on a real GPU: work
// queued behind the blocker waits for it, every repetition gets its time, and a throw while
// queuing lets the stream go. Skips where there is no GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/queued_timing.hpp"
#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

constexpr std::size_t kWorkBytes = std::size_t{64} << 20;

class QueuedTiming : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    buffer_ = DeviceBuffer<unsigned char>(kWorkBytes);
  }
  void TearDown() override {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  void work() { ASSERT_EQ(cudaMemsetAsync(buffer_.data(), 1, kWorkBytes, stream_), cudaSuccess); }

  cudaStream_t stream_ = nullptr;
  DeviceBuffer<unsigned char> buffer_;
};

TEST_F(QueuedTiming, WorkQueuedBehindTheBlockerWaitsForItsRelease) {
  StreamBlocker blocker(stream_);
  work();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cudaStreamQuery(stream_), cudaErrorNotReady);
  blocker.release();
  EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaSuccess);
}

TEST_F(QueuedTiming, EveryRepetitionHasItsOwnTime) {
  int warm = 0;
  const std::vector<double> seconds = time_queued(
      stream_, 2, 5,
      [&] {
        ++warm;
        work();
      },
      [&] { work(); });
  EXPECT_EQ(warm, 2);
  ASSERT_EQ(seconds.size(), 5u);
  // 64 MiB set at no more than 100 TB/s, and well under a second.
  for (const double s : seconds) {
    EXPECT_GT(s, kWorkBytes / 1e14);
    EXPECT_LT(s, 1.0);
  }
}

TEST_F(QueuedTiming, AThrowWhileQueuingLetsTheStreamGo) {
  const auto start = std::chrono::steady_clock::now();
  int calls = 0;
  EXPECT_THROW(time_queued(
                   stream_, 1, 3, [&] { work(); },
                   [&] {
                     if (++calls == 2) throw std::runtime_error("queuing failed");
                     work();
                   }),
               std::runtime_error);
  EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  // Released at once, not after the blocker's own limit.
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, StreamBlocker::kStreamBlockerLimitSeconds / 2);
}

}  // namespace
}  // namespace memtopo::testing
