#pragma once
// The plain-data contract between the warp-access launcher (.cpp) and its kernel (.cu): what
// the host writes per experiment and what the kernel reports. Fixed-width fields only, so that
// both compilers lay them out alike (checked below).
#include <cstdint>

#include "backend/cuda/chase_job.hpp"  // kOverheadSamples, kRecordDrainNanoseconds, ChaseStatus
#include "backend/warp_access.hpp"

namespace memtopo {

// Timed accesses the kernel keeps in shared memory before flushing them to global memory: each
// needs a word per lane for the dependent store (the sink) and one for its cycles.
inline constexpr std::uint32_t kWarpRecordSlots = 64;

// One WarpAccessSpec as the kernel sees it.
struct alignas(16) WarpAccessJob {
  std::uint32_t lane_offsets[kWarpLanes];  // bytes into the area
  std::uint64_t record_offset;             // first record in WarpAccessLaunch::cycles/indices
  std::uint32_t area_words;                // the job's area (area_bytes / 4, rounded up)
  std::uint32_t warm_accesses;
  std::uint32_t timed_accesses;
  std::uint32_t padding[3];
};

// What the kernel reports about a job. status: kChaseDone, or kChaseLeftChain when a lane
// loaded anything but its own offset (then stray_lane and stray_value say what).
struct alignas(16) WarpAccessOutcome {
  std::uint32_t status;
  std::uint32_t sm_id;
  std::uint32_t stray_lane;
  std::uint32_t stray_value;
  std::uint32_t overhead[kOverheadSamples];
};

// Kernel parameters of one launch: every job of one word size, run one after the other by the
// launch's only block (one warp), so that nothing else uses the SM's shared memory meanwhile.
struct WarpAccessLaunch {
  const WarpAccessJob* jobs;
  WarpAccessOutcome* outcomes;  // per job
  std::uint32_t* cycles;        // records: cycles per timed access
  std::uint32_t* indices;       // records: word index (offset / 4) lane 0 loaded
  // %clock64 and %globaltimer when the block starts and ends: [clock start, clock end, ns
  // start, ns end]; the clock of every job of the launch.
  std::uint64_t* clock_window;
  std::uint32_t job_count;
  std::uint32_t area_words;  // room for the largest job's area, a multiple of 4
};

static_assert(sizeof(WarpAccessJob) == 4 * kWarpLanes + 32, "WarpAccessJob layout");
static_assert(sizeof(WarpAccessOutcome) == 16 + 4 * kOverheadSamples, "WarpAccessOutcome layout");

}  // namespace memtopo
