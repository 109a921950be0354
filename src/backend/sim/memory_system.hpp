#pragma once
// The memory the SMs of one simulated batch see: each SM's sm-scope caches and TLBs, the device
// caches, shared memory and DRAM, wired up by load path as the description says.
#include <cstddef>
#include <cstdint>
#include <span>
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
    SetAssociativeArray* array;  // the chaser's instance, or the SM's segment of a device cache
    std::uint32_t hit_latency;
    std::uint32_t partitions;
    std::uint32_t near_partition;
    std::uint32_t far_latency_extra;
    std::uint32_t home_partitions;  // the line's home for a miss (whatever the hit policy)
    std::uint32_t far_miss_latency_extra;
  };
  bool shared = false;           // shared memory: no translation, no caches
  TlbHierarchy* tlbs = nullptr;  // the SM's TLB levels (not used on the shared path)
  std::vector<Level> levels;     // the caches on the path, in description order
};

// One SM taking part in a batch: which SM, its random draws, its unified L1/shared carveout.
struct SmStart {
  std::uint32_t sm = 0;
  std::uint64_t seed = 0;
  std::size_t carveout_step = 0;  // an index into shared_memory.carveout_steps_bytes
};

class MemorySystem {
 public:
  explicit MemorySystem(const SimDescription& description);

  // Starts a chase on SM `sm`: every cache and TLB cold, random replacement draws restarted
  // from `seed`, and a unified L1/shared cache configured for carveout step `carveout_step`
  // (an index into shared_memory.carveout_steps_bytes; see carveout.hpp).
  void start_chase(std::uint32_t sm, std::uint64_t seed, std::size_t carveout_step = 0);
  // Starts chases that run together, slot i on SM slots[i].sm: each slot gets cold sm-scope
  // caches and TLBs of its own; the device caches start cold once, seeded from slot 0, and are
  // shared by every slot. One slot is start_chase.
  void start_chases(std::span<const SmStart> slots);
  // The route of path `path` for chaser `chaser` (lane 0 of warp `chaser`, which uses instance
  // chaser mod instances_per_sm of each sm-scope cache) of slot `slot`; a device cache with
  // segments routes to the slot's SM's segment. Valid until the next start_chase(s).
  Route route(LoadPath path, std::uint32_t chaser) { return route(0, path, chaser); }
  Route route(std::size_t slot, LoadPath path, std::uint32_t chaser);
  // The cycles one load of `address` takes along `route`, timer overhead and noise excluded.
  std::uint32_t load_latency(const Route& route, std::uint64_t address);

 private:
  // One copy of a cache: per-SM split instances, or a device cache's segments. One array set
  // per carveout step (a single one unless it is the unified L1/shared cache).
  struct Copy {
    std::vector<std::vector<SetAssociativeArray>> configurations;
    std::size_t active = 0;  // the configuration of the current chase
    std::vector<SetAssociativeArray>& instances() { return configurations[active]; }
  };
  struct Cache {
    CacheDescription description;
    // A device cache has one copy; an sm-scope cache one per slot that has run (only the SMs
    // of the current batch are simulated: chases of different batches are independent).
    std::vector<Copy> copies;
  };
  struct Slot {
    std::uint32_t sm = 0;
    TlbHierarchy tlbs;
  };
  Copy make_copy(const CacheDescription& cache) const;

  SharedMemoryDescription shared_description_;
  std::vector<TlbDescription> tlb_descriptions_;
  std::vector<Cache> caches_;
  std::vector<Slot> slots_;
  std::uint32_t dram_latency_;
  std::uint32_t shared_latency_;
};

}  // namespace memtopo::sim
