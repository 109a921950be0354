#pragma once
// Host entry point of the warm kernel (warm_kernel.cu). Plain C++: callers need no nvcc.
#include "backend/cuda/warm_job.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

// Launches the warm kernel of `path` (cg or cv: paths that do not allocate in the L1, whose
// lines a kernel boundary may drop) over `grid_blocks` one-warp blocks on the default stream;
// checks the launch, does not wait. Throws std::invalid_argument for any other path.
void launch_warm(LoadPath path, const WarmLaunch& launch, unsigned grid_blocks);

}  // namespace memtopo
