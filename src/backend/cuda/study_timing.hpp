#pragma once
// What the study kernels (sync_kernels.cu, spill_kernels.cu) record per timed unit (a block's
// thread 0, a warp's lane 0): the SM's cycles and the global timer's nanoseconds around the
// timed loop, and the SM it ran on. Plain C++: the host converts these into study results.
#include <cstdint>

namespace memtopo {

struct StudyTiming {
  std::uint64_t cycles = 0;
  std::uint64_t nanoseconds = 0;
  std::uint32_t sm_id = 0;
  std::uint32_t unused = 0;  // keeps the record 8-byte aligned in arrays
};

}  // namespace memtopo
