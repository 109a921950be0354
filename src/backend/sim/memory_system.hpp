#pragma once
// The memory an SM sees in one simulated chase: its sm-scope caches, the device caches, the
// TLBs, shared memory and DRAM, wired up by load path as the description says.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/sim/description.hpp"
#include "backend/sim/set_associative_array.hpp"
#include "backend/sim/tlb_hierarchy.hpp"

namespace memtopo::sim {

// The partition a line belongs to in a cache with `partitions` partitions: a Fibonacci hash of
// the line number, ((line * 0x9E3779B97F4A7C15) mod 2^64) >> 32, modulo partitions. It spreads
// consecutive lines over the partitions without a pattern a probe could lock onto.
std::uint32_t partition_of_line(std::uint64_t line, std::uint32_t partitions);

// What a load on one path by one chaser goes through, resolved once per chase.
struct Route {
  struct Level {
    SetAssociativeArray* array;
    std::uint32_t hit_latency;
    std::uint32_t partitions;
    std::uint32_t near_partition;
    std::uint32_t far_latency_extra;
  };
  bool shared = false;        // shared memory: no translation, no caches
  std::vector<Level> levels;  // the caches on the path, in description order
};

class MemorySystem {
 public:
  explicit MemorySystem(const SimDescription& description);

  // Starts a chase on SM `sm`: every cache and TLB cold, random replacement draws restarted
  // from `seed`, and a unified L1/shared cache configured for carveout step `carveout_step`
  // (an index into shared_memory.carveout_steps_bytes; see carveout.hpp).
  void start_chase(std::uint32_t sm, std::uint64_t seed, std::size_t carveout_step = 0);
  // The route of path `path` for chaser `chaser` (lane 0 of warp `chaser`, which uses instance
  // chaser mod instances_per_sm of each sm-scope cache). Valid until the next start_chase.
  Route route(LoadPath path, std::uint32_t chaser);
  // The cycles one load of `address` takes along `route`, timer overhead and noise excluded.
  std::uint32_t load_latency(const Route& route, std::uint64_t address);

 private:
  struct Cache {
    CacheDescription description;
    // One array set per carveout step (a single one unless it is the unified L1/shared cache):
    // per-SM split instances, or the device's one.
    std::vector<std::vector<SetAssociativeArray>> configurations;
    std::size_t active = 0;  // the configuration of the current chase
    std::vector<SetAssociativeArray>& instances() { return configurations[active]; }
  };
  std::vector<Cache> caches_;
  TlbHierarchy tlbs_;
  std::uint32_t dram_latency_;
  std::uint32_t shared_latency_;
  std::uint32_t sm_ = 0;
};

}  // namespace memtopo::sim
