// The stride and coalescing studies' requests on the GPU, small: sane shapes, no fixed values.
#include "backend/strided_access.hpp"
#include "gpu_fixture.hpp"
#include "study/study.hpp"

namespace memtopo::testing {
namespace {

class StudyGpuTest : public GpuTest {
 protected:
  StridedAccessRunner& runner() {
    auto* runner = dynamic_cast<StridedAccessRunner*>(&backend());
    EXPECT_NE(runner, nullptr);
    return *runner;
  }
  double throughput(AccessSpace space, std::uint32_t element, std::uint32_t stride,
                    std::uint32_t start = 0) {
    StridedAccessSpec spec;
    spec.space = space;
    spec.element_bytes = element;
    spec.stride_elements = stride;
    spec.start_offset_bytes = start;
    spec.footprint_bytes = space == AccessSpace::shared ? 32 * 1024 : 8 << 20;
    spec.blocks_per_sm = 4;
    spec.requests_per_warp = 128;
    spec.timed_launches = 3;
    const StridedAccessResult result = runner().run_strided(spec);
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
    study::PhaseTimer phases(backend());
    study::StudyContext context{.backend = backend(),
                                .phases = phases,
                                .progress = [](const std::string&) {},
                                .interrupted = [] { return false; }};
    const study::StudyResult result = study::run_study(*study::find_study(id), context);
    EXPECT_EQ(result.status, "ok") << id << ": " << result.reason;
    EXPECT_FALSE(result.tables.empty()) << id;
  }
}

}  // namespace
}  // namespace memtopo::testing
