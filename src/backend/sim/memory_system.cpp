#include "backend/sim/memory_system.hpp"

#include <algorithm>

#include "backend/sim/carveout.hpp"
#include "backend/sim/random_streams.hpp"

namespace memtopo::sim {

std::uint32_t partition_of_line(std::uint64_t line, std::uint32_t partitions) {
  return static_cast<std::uint32_t>(((line * 0x9E3779B97F4A7C15ull) >> 32) % partitions);
}

MemorySystem::MemorySystem(const SimDescription& description)
    : shared_description_(description.shared_memory),
      tlb_descriptions_(description.tlbs),
      dram_latency_(description.dram_latency),
      // A chaser is one lane of its warp, so its shared loads never conflict (degree 1).
      shared_latency_(description.shared_memory.latency) {
  caches_.reserve(description.caches.size());
  for (const CacheDescription& cache : description.caches) {
    caches_.push_back(Cache{cache, {make_copy(cache)}});
  }
  slots_.push_back(Slot{0, TlbHierarchy(tlb_descriptions_)});
}

MemorySystem::Copy MemorySystem::make_copy(const CacheDescription& cache) const {
  const bool device = cache.scope == CacheScope::device;
  const std::uint32_t count = device ? cache.segments : cache.instances_per_sm;
  const bool unified = cache.name == shared_description_.unified_with;
  const std::size_t steps = unified ? shared_description_.carveout_steps_bytes.size() : 1;
  Copy copy;
  for (std::size_t step = 0; step < steps; ++step) {
    // A segment holds its share of the cache (the loader checked it is whole sets).
    const std::uint64_t capacity =
        capacity_at_carveout(cache, shared_description_, step) / (device ? cache.segments : 1);
    ArrayShape shape{cache.line_bytes, cache.sector_bytes,
                     ways_of_each_set(cache.associativity, capacity / cache.line_bytes),
                     cache.set_index};
    copy.configurations.emplace_back(count, SetAssociativeArray(shape, cache.policy));
  }
  return copy;
}

void MemorySystem::start_chase(std::uint32_t sm, std::uint64_t seed, std::size_t carveout_step) {
  const SmStart slot{sm, seed, carveout_step};
  start_chases(std::span(&slot, 1));
}

void MemorySystem::start_chases(std::span<const SmStart> slots) {
  while (slots_.size() < slots.size()) slots_.push_back(Slot{0, TlbHierarchy(tlb_descriptions_)});
  for (Cache& cache : caches_) {
    if (cache.description.scope == CacheScope::device) continue;
    while (cache.copies.size() < slots.size()) cache.copies.push_back(make_copy(cache.description));
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    slots_[i].sm = slots[i].sm;
    slots_[i].tlbs.clear();
    // Streams numbered over every cache and instance in description order, per slot: a single
    // slot draws exactly as a chase alone always has.
    std::uint64_t stream = 0;
    for (Cache& cache : caches_) {
      const bool device = cache.description.scope == CacheScope::device;
      Copy& copy = cache.copies[device ? 0 : i];
      // Only the unified cache has a configuration per step; every other cache has just one.
      copy.active = copy.configurations.size() > 1 ? slots[i].carveout_step : 0;
      for (SetAssociativeArray& instance : copy.instances()) {
        const std::uint64_t instance_seed = derive_seed(slots[i].seed, stream++);
        if (!device || i == 0) instance.clear(instance_seed);
      }
    }
  }
}

Route MemorySystem::route(std::size_t slot, LoadPath path, std::uint32_t chaser) {
  Route route;
  route.shared = path == LoadPath::shared;
  route.tlbs = &slots_[slot].tlbs;
  const std::uint32_t sm = slots_[slot].sm;
  for (Cache& cache : caches_) {
    const CacheDescription& description = cache.description;
    if (std::find(description.paths.begin(), description.paths.end(), path) ==
        description.paths.end()) {
      continue;
    }
    const bool device = description.scope == CacheScope::device;
    std::vector<SetAssociativeArray>& instances = cache.copies[device ? 0 : slot].instances();
    const std::uint32_t instance =
        device ? segment_of(description, sm) : chaser % static_cast<std::uint32_t>(instances.size());
    // copy_on_read: a chase reads lines it brought in (or copied) itself, which its own
    // partition holds; only another SM's lines answer far, the first time (run_l2_first_touch).
    const std::uint32_t partitions =
        description.partition_policy == PartitionPolicy::copy_on_read ? 1 : description.partitions;
    route.levels.push_back(Route::Level{&instances[instance], description.hit_latency, partitions,
                                        near_partition(description, sm),
                                        description.far_latency_extra, description.partitions,
                                        description.far_miss_latency_extra});
  }
  return route;
}

std::uint32_t MemorySystem::load_latency(const Route& route, std::uint64_t address) {
  if (route.shared) return shared_latency_;
  std::uint32_t cycles = route.tlbs->translate(address);
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
  // A miss everywhere: memory answers through the line's home partition of each cache.
  for (const Route::Level& level : route.levels) {
    if (level.far_miss_latency_extra > 0 && level.home_partitions > 1 &&
        partition_of_line(level.array->line_number(address), level.home_partitions) !=
            level.near_partition) {
      cycles += level.far_miss_latency_extra;
    }
  }
  return cycles + dram_latency_;
}

}  // namespace memtopo::sim
