#include "backend/sim/memory_system.hpp"

#include <algorithm>

#include "backend/sim/carveout.hpp"
#include "backend/sim/random_streams.hpp"

namespace memtopo::sim {

std::uint32_t partition_of_line(std::uint64_t line, std::uint32_t partitions) {
  return static_cast<std::uint32_t>(((line * 0x9E3779B97F4A7C15ull) >> 32) % partitions);
}

MemorySystem::MemorySystem(const SimDescription& description)
    : tlbs_(description.tlbs),
      dram_latency_(description.dram_latency),
      // A chaser is one lane of its warp, so its shared loads never conflict (degree 1).
      shared_latency_(description.shared_memory.latency) {
  const SharedMemoryDescription& shared = description.shared_memory;
  caches_.reserve(description.caches.size());
  for (const CacheDescription& cache : description.caches) {
    const std::uint32_t count = cache.scope == CacheScope::sm ? cache.instances_per_sm : 1;
    const bool unified = cache.name == shared.unified_with;
    const std::size_t steps = unified ? shared.carveout_steps_bytes.size() : 1;
    Cache modelled{cache, {}, 0};
    for (std::size_t step = 0; step < steps; ++step) {
      const std::uint64_t capacity = capacity_at_carveout(cache, shared, step);
      ArrayShape shape{cache.line_bytes, cache.sector_bytes,
                       ways_of_each_set(cache.associativity, capacity / cache.line_bytes),
                       cache.set_index};
      // Only the SM a chase runs on is simulated (chases are independent), so an sm-scope
      // cache needs just that SM's instances.
      modelled.configurations.emplace_back(count, SetAssociativeArray(shape, cache.policy));
    }
    caches_.push_back(std::move(modelled));
  }
}

void MemorySystem::start_chase(std::uint32_t sm, std::uint64_t seed, std::size_t carveout_step) {
  sm_ = sm;
  tlbs_.clear();
  std::uint64_t stream = 0;
  for (Cache& cache : caches_) {
    // Only the unified cache has a configuration per step; every other cache has just one.
    cache.active = cache.configurations.size() > 1 ? carveout_step : 0;
    for (SetAssociativeArray& instance : cache.instances()) {
      instance.clear(derive_seed(seed, stream++));
    }
  }
}

Route MemorySystem::route(LoadPath path, std::uint32_t chaser) {
  Route route;
  route.shared = path == LoadPath::shared;
  for (Cache& cache : caches_) {
    const CacheDescription& description = cache.description;
    if (std::find(description.paths.begin(), description.paths.end(), path) ==
        description.paths.end()) {
      continue;
    }
    route.levels.push_back(Route::Level{
        &cache.instances()[chaser % cache.instances().size()], description.hit_latency,
        description.partitions, sm_ % description.partitions, description.far_latency_extra});
  }
  return route;
}

std::uint32_t MemorySystem::load_latency(const Route& route, std::uint64_t address) {
  if (route.shared) return shared_latency_;
  std::uint32_t cycles = tlbs_.translate(address);
  // Every level before the one that hits has missed and, in access(), taken the data in.
  for (const Route::Level& level : route.levels) {
    if (level.array->access(address) != Lookup::hit) continue;
    cycles += level.hit_latency;
    if (level.partitions > 1 && partition_of_line(level.array->line_number(address),
                                                  level.partitions) != level.near_partition) {
      cycles += level.far_latency_extra;
    }
    return cycles;
  }
  return cycles + dram_latency_;
}

}  // namespace memtopo::sim
