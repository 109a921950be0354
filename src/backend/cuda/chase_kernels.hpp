#pragma once
// Host entry points of the chase kernel (chase_kernel.cu). Plain C++: callers need no nvcc.
#include <cstddef>
#include <cstdint>
#include <span>

#include "backend/cuda/chase_job.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

// Bytes of the constant bank the chain may use (the constant path's footprint limit).
std::uint64_t constant_chain_capacity_bytes();
// Copies a chain into the constant bank (cudaMemcpyToSymbol); one constant chase per launch.
void upload_constant_chain(std::span<const std::uint32_t> words);

// `wide` below: the kernel for wide chains (ChaseSpec::wide_indices; ca and cg only), which
// reads its chain's length and start from ChaseLaunch and runs one job per launch.

// Static shared memory of the chase kernel for `path` (the dynamic part is the caller's).
std::size_t chase_static_shared_bytes(LoadPath path, bool wide = false);
// Shared memory the kernel needs beyond its static part: the chain (shared path) and the
// record buffer. A launch adds its reserved_shared_bytes to this.
std::size_t chase_dynamic_shared_bytes(std::uint32_t shared_chain_words);

// Sets, for the kernel of `path`, the dynamic shared memory a launch asks for and the preferred
// shared-memory carveout in percent of the SM's shared memory (cudaSharedmemCarveoutMaxL1 = 0:
// the smallest). Before every launch, since launches differ in both (see chase_runner.cpp).
void configure_chase_kernel(LoadPath path, std::size_t dynamic_shared_bytes, int carveout_percent,
                            bool wide = false);

// Blocks of the chase kernel that fit on one SM with this configuration.
int chase_blocks_per_sm(LoadPath path, unsigned block_threads, std::size_t dynamic_shared_bytes,
                        bool wide = false);

// Launches the chase kernel for `path` on the default stream; checks the launch, does not wait.
void launch_chase(LoadPath path, const ChaseLaunch& launch, unsigned grid_blocks,
                  unsigned block_threads, std::size_t dynamic_shared_bytes, bool wide = false);

}  // namespace memtopo
