#pragma once
// Barrier kernels of the `sync` study: each block passes a number of barriers of one kind in a
// timed loop (sync_kernels.cu). Plain C++ interface; study_kernels_cuda.cpp drives it.
#include <cstdint>
#include <vector>

#include "backend/cuda/study_timing.hpp"
#include "backend/study_kernels.hpp"

namespace memtopo {

// Launches `blocks` blocks of `threads_per_block` threads (a cooperative launch for grid, a
// cluster launch of `cluster_size` for cluster) that each pass `barriers` barriers (a multiple
// of kBarrierUnroll) of `kind`, and returns thread 0's timing of every block. Waits for it.
std::vector<StudyTiming> launch_barrier_loop(BarrierKind kind, std::uint32_t threads_per_block,
                                             std::uint32_t blocks, std::uint32_t cluster_size,
                                             std::uint32_t barriers);

// Blocks of the kind's kernel with `threads_per_block` threads one SM holds at once.
std::uint32_t barrier_blocks_per_sm(BarrierKind kind, std::uint32_t threads_per_block);

// Clusters of `cluster_size` blocks of `threads_per_block` threads the device holds at once
// (0: that size cannot launch). Sizes above 8 are allowed as non-portable sizes.
std::uint32_t barrier_active_clusters(std::uint32_t cluster_size, std::uint32_t threads_per_block);

}  // namespace memtopo
