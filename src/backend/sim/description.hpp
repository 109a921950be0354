#pragma once
// A simulated device as its description file states it (format: docs/sim-format.md). Plain data;
// the loader has validated it, so every invariant the models rely on holds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/sim/throughput.hpp"

namespace memtopo::sim {

// How an address selects the set of a set-associative array.
struct SetIndex {
  enum class Kind {
    modulo,  // line number modulo the number of sets
    bits,    // the listed byte-address bits, least significant first, form the set number
  };
  Kind kind = Kind::modulo;
  std::vector<std::uint32_t> bits;  // kind == bits
};

// Which way a full set gives up on a miss.
struct Replacement {
  // lip: LRU, but a filled line enters at the LRU position and only a hit promotes it, so a
  // stream of lines used once evicts only itself (scan-resistant, Qureshi et al., ISCA 2007).
  enum class Kind { lru, fifo, random, victim_weights, lip };
  Kind kind = Kind::lru;
  std::vector<double> victim_weights;  // kind == victim_weights: relative weight of each way
};

// The ways of a set-associative array: every set alike, or one count per set (unequal sets).
struct Associativity {
  std::uint32_t ways = 0;                   // every set alike; 0 = fully associative (one set)
  std::vector<std::uint32_t> ways_per_set;  // non-empty: unequal sets; `ways` is then unused
};

// The ways of each set of an array holding `entries` lines (or TLB entries) in total.
std::vector<std::uint32_t> ways_of_each_set(const Associativity& associativity,
                                            std::uint64_t entries);

enum class CacheScope {
  sm,      // instances_per_sm instances in every SM
  device,  // one instance shared by every SM
};

struct CacheDescription {
  std::string name;
  CacheScope scope = CacheScope::sm;
  std::uint32_t instances_per_sm = 1;
  std::uint64_t size_bytes = 0;
  std::uint32_t line_bytes = 0;
  std::uint32_t sector_bytes = 0;  // equal to line_bytes when the cache is unsectored
  Associativity associativity;
  SetIndex set_index;
  Replacement policy;
  std::uint32_t hit_latency = 0;
  std::vector<LoadPath> paths;
  std::uint32_t partitions = 1;  // device scope only
  std::uint32_t far_latency_extra = 0;
  // Device scope only: the cache is this many equal arrays of size_bytes / segments each, and a
  // load from SM s looks up and fills segment s mod segments only (one SM fills one segment).
  std::uint32_t segments = 1;
};

struct TlbDescription {
  std::string name;
  std::uint32_t entries = 0;
  Associativity associativity;
  std::uint64_t page_bytes = 0;
  std::uint32_t miss_latency_extra = 0;
};

struct SharedMemoryDescription {
  std::uint64_t bytes_per_sm = 0;
  std::uint32_t banks = 0;
  std::uint32_t bank_width_bytes = 0;
  std::uint32_t latency = 0;
  // A unified L1/shared array: the sm-scope cache named here gives up capacity to the shared
  // memory a block configures (its carveout). Empty: shared memory is an array of its own.
  std::string unified_with;
  // The shared-memory sizes (carveouts) the device can configure, strictly increasing; the
  // unified cache's size_bytes is its capacity at the first (smallest) step. Empty without
  // unified_with.
  std::vector<std::uint64_t> carveout_steps_bytes;
};

struct NoiseDescription {
  std::uint64_t seed = 0;
  std::uint32_t jitter_cycles = 0;
  double outlier_probability = 0;
  std::uint32_t outlier_cycles = 0;
};

struct SimDescription {
  std::string name;
  std::uint32_t sm_count = 0;
  std::uint64_t clock_khz = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint32_t dram_latency = 0;
  int cc_major = 9;
  int cc_minor = 0;
  std::uint32_t timing_overhead = 0;  // cycles the timer sequence adds to every record
  std::vector<CacheDescription> caches;
  std::vector<TlbDescription> tlbs;
  SharedMemoryDescription shared_memory;
  NoiseDescription noise;
  // false: every spec of a batch runs alone on a cold device. true: the specs of a batch run
  // together, taking turns load by load, and share the device-scope caches (cold at the batch's
  // start), as concurrent blocks on different SMs of a GPU do.
  bool batch_shares_device_caches = false;
  // What streams (bandwidth) run at; none: streams cannot run on this device.
  std::optional<ThroughputDescription> throughput;
};

}  // namespace memtopo::sim
