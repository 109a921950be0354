#pragma once
// The spilling kernel of the `spilling` study, built once per register limit
// (spill_kernels.cu). Plain C++ interface; study_kernels_cuda.cpp drives it.
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/study_timing.hpp"

namespace memtopo {

// The register limits the kernel is built under (__maxnreg__), most registers first; the
// first is 255, the architectural maximum, so that build spills only what the code needs.
std::span<const std::uint32_t> spill_register_limits();

// What the loaded module says about the build for `limit_index`: registers per thread and
// local memory per thread (cudaFuncGetAttributes).
struct SpillBuildAttributes {
  std::uint32_t registers = 0;
  std::uint32_t local_bytes = 0;
};
SpillBuildAttributes spill_build_attributes(std::size_t limit_index);

// Resident blocks of `threads_per_block` per SM for the build.
std::uint32_t spill_blocks_per_sm(std::size_t limit_index, std::uint32_t threads_per_block);

// Launches the build for `limit_index` once with `blocks` blocks of `threads_per_block` threads
// (a multiple of 32), each thread running `iterations` iterations, under the preferred
// shared-memory carveout `carveout_percent` (-1: the driver's default); returns lane 0's
// timing of every warp. Waits for it.
std::vector<StudyTiming> launch_spill_loop(std::size_t limit_index, std::uint32_t threads_per_block,
                                           std::uint32_t blocks, std::uint32_t iterations,
                                           int carveout_percent);

}  // namespace memtopo
