#include "backend/sim/description.hpp"

#include <algorithm>

namespace memtopo::sim {
namespace {

// What one line (or TLB entry) of a SetAssociativeArray costs: its way (line, stamp, sectors:
// 24 bytes) plus, at most, a set of its own (first way and generation: 8 bytes).
constexpr std::uint64_t kStateBytesPerLine = 32;

std::uint64_t array_bytes(std::uint64_t lines) {
  return lines * kStateBytesPerLine;
}

}  // namespace

std::uint32_t near_partition(const CacheDescription& cache, std::uint32_t sm) {
  if (sm < cache.sm_partitions.size()) return cache.sm_partitions[sm];
  return sm % cache.partitions;
}

std::uint32_t segment_of(const CacheDescription& cache, std::uint32_t sm) {
  if (cache.segments > 1 && cache.segments == cache.partitions) return near_partition(cache, sm);
  return sm % cache.segments;
}

std::vector<std::uint32_t> ways_of_each_set(const Associativity& associativity,
                                            std::uint64_t entries) {
  if (!associativity.ways_per_set.empty()) return associativity.ways_per_set;
  if (associativity.ways == 0) return {static_cast<std::uint32_t>(entries)};
  return std::vector<std::uint32_t>(entries / associativity.ways, associativity.ways);
}

std::uint64_t simulator_state_bytes(const SimDescription& description) {
  // The loader bounds every factor (limits::), so no product below overflows 64 bits.
  std::uint64_t per_sm = 0;
  std::uint64_t device = 0;
  for (const CacheDescription& cache : description.caches) {
    const std::uint64_t lines = cache.size_bytes / cache.line_bytes;
    if (cache.scope == CacheScope::device) {
      device += array_bytes(lines);
      continue;
    }
    const bool unified = cache.name == description.shared_memory.unified_with;
    const std::uint64_t copies =
        unified ? std::max<std::size_t>(1, description.shared_memory.carveout_steps_bytes.size())
                : 1;
    per_sm += array_bytes(lines) * cache.instances_per_sm * copies;
  }
  for (const TlbDescription& tlb : description.tlbs) per_sm += array_bytes(tlb.entries);
  return per_sm * description.sm_count + device;
}

std::string too_large_to_simulate(const SimDescription& description) {
  const std::uint64_t bytes = simulator_state_bytes(description);
  if (bytes <= limits::kMaxStateBytes) return "";
  const auto footprint = [](const CacheDescription& cache) {
    return cache.size_bytes * cache.instances_per_sm;
  };
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  // Tenths of a MiB, rounded up: "1024 MiB (at most 1024 MiB)" said too little.
  const std::uint64_t tenths = (bytes * 10 + kMiB - 1) / kMiB;
  std::string what = "too large to simulate: its caches and TLBs need " +
                     std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) +
                     " MiB of simulator state (at most " +
                     std::to_string(limits::kMaxStateBytes / kMiB) +
                     " MiB; every SM holds its own copy of each sm-scope cache and TLB)";
  const auto largest = std::max_element(description.caches.begin(), description.caches.end(),
                                        [&](const CacheDescription& a, const CacheDescription& b) {
                                          return footprint(a) < footprint(b);
                                        });
  if (largest != description.caches.end()) {
    what += "; the largest cache is caches[" +
            std::to_string(largest - description.caches.begin()) + "] \"" + largest->name + "\"";
  }
  return what;
}

}  // namespace memtopo::sim
