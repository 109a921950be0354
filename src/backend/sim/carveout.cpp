#include "backend/sim/carveout.hpp"

#include <algorithm>
#include <string>

#include "backend/backend.hpp"

namespace memtopo::sim {

std::uint64_t max_block_shared_bytes(const SharedMemoryDescription& shared) {
  if (shared.carveout_steps_bytes.empty()) return shared.bytes_per_sm;
  return shared.carveout_steps_bytes.back();
}

std::size_t carveout_step_for(const SharedMemoryDescription& shared,
                              std::uint64_t block_shared_bytes) {
  if (block_shared_bytes > max_block_shared_bytes(shared)) {
    throw ExperimentError("chase spec: a block may use at most " +
                          std::to_string(max_block_shared_bytes(shared)) +
                          " bytes of shared memory on this device, the chase needs " +
                          std::to_string(block_shared_bytes));
  }
  const auto& steps = shared.carveout_steps_bytes;
  if (steps.empty()) return 0;
  return static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), block_shared_bytes) -
                                  steps.begin());
}

std::uint64_t carveout_shrink_bytes(const SharedMemoryDescription& shared, std::size_t step) {
  const auto& steps = shared.carveout_steps_bytes;
  if (steps.empty()) return 0;
  return steps.at(step) - steps.front();
}

std::uint64_t capacity_at_carveout(const CacheDescription& cache,
                                   const SharedMemoryDescription& shared, std::size_t step) {
  if (cache.name != shared.unified_with) return cache.size_bytes;
  return cache.size_bytes - carveout_shrink_bytes(shared, step);
}

}  // namespace memtopo::sim
