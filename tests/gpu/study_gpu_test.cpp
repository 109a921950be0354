// The stride and coalescing studies' requests on the GPU, small: sane shapes, no fixed values.
#include <cstdio>

#include "backend/strided_access.hpp"
#include "gpu_fixture.hpp"
#include "study/study.hpp"

namespace memtopo::testing {
namespace {

class StudyGpuTest : public GpuTest {
 protected:
  StridedAccessRunner& runner() {
    StridedAccessRunner* runner = backend().strided_access();
    EXPECT_NE(runner, nullptr);
    return *runner;
  }
  static StridedAccessSpec spec_of(AccessSpace space, std::uint32_t element, std::uint32_t stride,
                                   std::uint32_t start = 0) {
    StridedAccessSpec spec;
    spec.space = space;
    spec.element_bytes = element;
    spec.stride_elements = stride;
    spec.start_offset_bytes = start;
    spec.footprint_bytes = space == AccessSpace::shared     ? 32 * 1024
                           : space == AccessSpace::constant ? kConstantBankBytes
                           : space == AccessSpace::local
                               ? std::uint64_t{kLocalArrayElements} * element
                               : 8 << 20;
    spec.blocks_per_sm = 4;
    spec.requests_per_warp = 128;
    spec.timed_launches = 3;
    return spec;
  }
  double throughput(AccessSpace space, std::uint32_t element, std::uint32_t stride,
                    std::uint32_t start = 0) {
    const StridedAccessResult result = runner().run_strided(spec_of(space, element, stride, start));
    EXPECT_EQ(result.seconds.size(), 3u);
    double best = 0;
    for (double seconds : result.seconds) {
      best = std::max(best, static_cast<double>(result.requested_bytes) / seconds);
    }
    return best;
  }
};

TEST_F(StudyGpuTest, StrideOneBeatsStrideThirtyTwo) {
  for (AccessSpace space :
       {AccessSpace::ca, AccessSpace::cg, AccessSpace::nc, AccessSpace::tex, AccessSpace::shared}) {
    EXPECT_GT(throughput(space, 4, 1), 1.5 * throughput(space, 4, 32)) << to_string(space);
  }
}

// The constant cache broadcasts one address to the warp and serialises distinct ones: lanes all
// at one address deliver far more useful bytes than lanes at 32 addresses (32 passes).
TEST_F(StudyGpuTest, ConstantBroadcastBeatsThirtyTwoDistinctAddresses) {
  for (std::uint32_t element : {4u, 16u}) {
    const double broadcast = throughput(AccessSpace::constant, element, 0);
    const double distinct = throughput(AccessSpace::constant, element, 32);
    std::printf("const %u B: stride 0 %.3g B/s, stride 32 %.3g B/s (x%.1f)\n", element, broadcast,
                distinct, broadcast / distinct);
    EXPECT_GT(broadcast, 4 * distinct) << element << " B";
  }
}

// Local memory: every element size and a stride of 0, 1 and 64 elements run, move bytes and
// time their requests (the per-thread array of 8 to 32 KiB stays in local memory: LDL, which
// scripts/checks/check-stream-sass checks).
TEST_F(StudyGpuTest, LocalRowsRunWithThroughputAndLatency) {
  for (std::uint32_t element : kStridedElementBytes) {
    for (std::uint32_t stride : {0u, 1u, 64u}) {
      StridedAccessSpec spec = spec_of(AccessSpace::local, element, stride);
      spec.latency_requests = 16;
      const StridedAccessResult result = runner().run_strided(spec);
      ASSERT_EQ(result.seconds.size(), 3u);
      for (double seconds : result.seconds) EXPECT_GT(seconds, 0);
      EXPECT_GT(result.requested_bytes, 0u);
      ASSERT_EQ(result.latency_cycles.size(), 16u);
      for (double cycles : result.latency_cycles) EXPECT_GT(cycles, 0);
    }
  }
  // The same index in every thread is contiguous; one index per lane is a row per lane.
  EXPECT_GT(throughput(AccessSpace::local, 4, 0), 1.5 * throughput(AccessSpace::local, 4, 1));
}

TEST_F(StudyGpuTest, CoalescedRequestsAndASectorPerLane) {
  const double best = throughput(AccessSpace::ca, 4, 1);
  // The same pattern again: the ratio to itself is 1 within launch noise.
  EXPECT_NEAR(throughput(AccessSpace::ca, 4, 1) / best, 1.0, 0.1);
  // 32 words apart: 32 sectors per request (host arithmetic), and clearly slower.
  StridedAccessSpec spread;
  spread.stride_elements = 32;
  spread.footprint_bytes = 1 << 20;
  const auto offsets = lane_offsets(spread, 0);
  EXPECT_EQ(units_touched(offsets, 4, 32), 32u);
  EXPECT_LT(throughput(AccessSpace::ca, 4, 32), 0.5 * best);
}

TEST_F(StudyGpuTest, LatencyOfOneWarpIsRecordedPerRequest) {
  StridedAccessSpec spec;
  spec.footprint_bytes = 1 << 20;
  spec.timed_launches = 0;
  spec.latency_requests = 32;
  const StridedAccessResult result = runner().run_strided(spec);
  ASSERT_EQ(result.latency_cycles.size(), 32u);
  for (double cycles : result.latency_cycles) EXPECT_GT(cycles, 0);
}

TEST_F(StudyGpuTest, BothStudiesRunAndReportFindings) {
  for (const char* id : {"stride", "coalescing"}) {
    Topology header;
    study::StudyContext context{{.backend = backend(), .topology = header}};
    const study::StudyResult result = study::run_study(*study::find_study(id), context);
    EXPECT_EQ(result.status, "ok") << id << ": " << result.reason;
    EXPECT_FALSE(result.tables.empty()) << id;
  }
}

}  // namespace
}  // namespace memtopo::testing
