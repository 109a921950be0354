// The warm kernel (backend/cuda/warm_kernel.cu) on a real GPU: a chase whose warm passes it
// streams visits its chain as before and meets the L2 as one that followed its chain to warm
// does; a chase without any warm does not (so the streamed loads are what warmed it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu_fixture.hpp"
#include "trace_helpers.hpp"

namespace memtopo::testing {
namespace {

using StreamedWarmOnGpu = GpuTest;

constexpr std::uint32_t kStride = 128;

// A sequential cg chase over an eighth of the API's L2 (well inside what one SM keeps on the
// H200, about 25 of 60 MiB), one warm pass, one timed pass.
ChaseSpec l2_chase(Backend& backend, bool stream_warm) {
  const std::uint64_t l2 = backend.facts().l2_bytes;
  ChaseSpec spec;
  spec.path = LoadPath::cg;
  spec.order = ChaseOrder::sequential;
  spec.footprint_bytes = std::max<std::uint64_t>(1 << 20, l2 / 8 / kStride * kStride);
  spec.stride_bytes = kStride;
  spec.start_index = 5 * kStride / 4;  // element 5: the progression starts mid-chain
  spec.warm_passes = 1;
  spec.timed_loads = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      spec.footprint_bytes / kStride, backend.limits().max_timed_loads));
  spec.stream_warm = stream_warm;
  return spec;
}

TEST_F(StreamedWarmOnGpu, LeavesTheL2AsFollowingTheChainDoes) {
  const ChaseSpec followed = l2_chase(backend(), false);
  const ChaseSpec streamed = l2_chase(backend(), true);
  ChaseSpec cold = l2_chase(backend(), true);
  cold.warm_passes = 0;
  cold.flush_device_caches = true;
  const Trace followed_trace = backend().run(std::vector{followed}).front();
  const Trace streamed_trace = backend().run(std::vector{streamed}).front();
  const Trace cold_trace = backend().run(std::vector{cold}).front();
  // The timed loads start where the warm passes left the chase: at its start, on its order.
  EXPECT_EQ(streamed_trace.indices, expected_visits(streamed));
  const double followed_median = median_of(followed_trace.cycles);
  const double streamed_median = median_of(streamed_trace.cycles);
  const double cold_median = median_of(cold_trace.cycles);
  RecordProperty("followed_median_cycles", std::to_string(followed_median));
  RecordProperty("streamed_median_cycles", std::to_string(streamed_median));
  RecordProperty("cold_median_cycles", std::to_string(cold_median));
  EXPECT_NEAR(streamed_median, followed_median, 0.05 * followed_median)
      << "followed " << followed_median << ", streamed " << streamed_median << ", cold "
      << cold_median;
  EXPECT_GT(cold_median, 1.3 * followed_median)
      << "a chase without warm should miss the L2: followed " << followed_median << ", cold "
      << cold_median;
}

}  // namespace
}  // namespace memtopo::testing
