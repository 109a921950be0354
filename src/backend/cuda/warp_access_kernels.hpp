#pragma once
// Host entry points of the warp-access kernel (warp_access_kernel.cu). Plain C++.
#include <cstddef>
#include <cstdint>

#include "backend/cuda/warp_access_job.hpp"

namespace memtopo {

// Dynamic shared memory a launch needs for areas of `area_words` words: the area, then the
// sinks and the cycle records of kWarpRecordSlots accesses.
std::size_t warp_access_dynamic_shared_bytes(std::uint32_t area_words);

// Launches the kernel for loads of `word_bytes` (4, 8 or 16) with one block of one warp and
// `dynamic_shared_bytes`, after raising the kernel's dynamic shared memory limit to it; checks
// the launch, does not wait.
void launch_warp_access(std::uint32_t word_bytes, const WarpAccessLaunch& launch,
                        std::size_t dynamic_shared_bytes);

}  // namespace memtopo
