#pragma once
// The plain-data contract between the chase runner (.cpp) and the warm kernel (warm_kernel.cu):
// a chase's warm passes issued many loads at a time, in a kernel of its own, on the chase's SM
// (warm_progression.hpp says when and why). Fixed-width fields only, as in chase_job.hpp.
#include <cstdint>

namespace memtopo {

// One chase's warm passes: `loads` loads of the words first_word + position x step_words,
// from position start_position on, wrapping at `elements`. loads == 0: the chase warms itself.
struct alignas(16) WarmJob {
  const std::uint32_t* chain;  // the chase's array (the same words the chase will follow)
  std::uint64_t loads;
  std::uint32_t first_word;
  std::uint32_t step_words;
  std::uint32_t elements;
  std::uint32_t start_position;
};

// One launch of the warm kernel over the jobs of one chase launch (same indices).
struct WarmLaunch {
  const WarmJob* jobs;
  const std::int32_t* job_of_sm;  // %smid -> job index or kNoJob: the chase launch's table
  std::uint32_t job_of_sm_count;
  std::uint32_t* claims;  // per job: 0 until a block of this launch takes it
  // Per job: nonzero once its warm loads have all returned (the fold of their values, so that
  // ptxas keeps every load, with the low bit set).
  std::uint32_t* warmed;
};

static_assert(sizeof(WarmJob) == 32, "WarmJob layout must match on host and device");

}  // namespace memtopo
