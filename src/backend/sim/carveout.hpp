#pragma once
// The unified L1/shared-memory array of a simulated SM (docs/sim-format.md, "Unified L1 and
// shared memory"): the shared memory a block uses is rounded up to a carveout step the device
// can configure, and the unified cache gives up that much capacity beyond the smallest step.
#include <cstddef>
#include <cstdint>

#include "backend/sim/description.hpp"

namespace memtopo::sim {

// The most shared memory one block may use: the last carveout step with a unified cache, the
// SM's shared memory otherwise.
std::uint64_t max_block_shared_bytes(const SharedMemoryDescription& shared);

// Index into carveout_steps_bytes of the carveout a block using `block_shared_bytes` gets: the
// smallest step at or above it; 0 without carveout steps. Throws ExperimentError beyond
// max_block_shared_bytes.
std::size_t carveout_step_for(const SharedMemoryDescription& shared,
                              std::uint64_t block_shared_bytes);

// Bytes the unified cache gives up at carveout step `step`: that step minus the smallest one.
std::uint64_t carveout_shrink_bytes(const SharedMemoryDescription& shared, std::size_t step);

// Capacity of `cache` at carveout step `step`: its size_bytes less the shrink when it is the
// unified cache, its size_bytes otherwise. The loader guarantees whole sets remain.
std::uint64_t capacity_at_carveout(const CacheDescription& cache,
                                   const SharedMemoryDescription& shared, std::size_t step);

}  // namespace memtopo::sim
