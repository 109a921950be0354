#pragma once
// Runs batches of warp accesses (backend/warp_access.hpp) on the GPU: one launch per word size,
// its block running the jobs one after the other, and the traces they recorded.
#include <cstddef>
#include <span>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/warp_access.hpp"

namespace memtopo {

// The dynamic shared memory a block may use (opt-in per block, less the kernel's static part)
// left for a warp access's area after its records, in bytes: the area_bytes limit.
std::size_t max_warp_access_area_bytes(std::size_t max_dynamic_shared_bytes);

// Runs `batch` (specs already checked: valid, area and timed accesses within the limits) and
// returns one trace per spec, in order. Throws std::runtime_error when a lane loaded anything
// but its own word (the device did not run the experiment as planned), CudaError & co. when
// CUDA fails.
std::vector<Trace> run_warp_accesses(std::span<const WarpAccessSpec> batch);

}  // namespace memtopo
