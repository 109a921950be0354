#pragma once
// A simulated device as its description file states it (format: docs/sim-format.md). Plain data;
// the loader has validated it, so every invariant the models rely on holds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/sim/multi_gpu.hpp"
#include "backend/sim/throughput.hpp"

namespace memtopo::sim {

// How an address selects the set of a set-associative array.
struct SetIndex {
  enum class Kind {
    modulo,  // line number modulo the number of sets
    bits,    // the listed byte-address bits, least significant first, form the set number
    // Bit k of the set number is the parity (XOR) of the byte-address bits in xor_masks[k]: a
    // hashed index, as CPU last-level caches and (by their behaviour) Hopper's caches have.
    xor_functions,
  };
  Kind kind = Kind::modulo;
  std::vector<std::uint32_t> bits;       // kind == bits
  std::vector<std::uint64_t> xor_masks;  // kind == xor_functions: one address-bit mask per set bit
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

// What the loader accepts (docs/sim-format.md, "Accepted ranges"). Generous for any GPU, but
// finite: a value beyond them is a typing mistake (2^32 - 1 cycles), would overflow the
// simulator's 32-bit cycle counts, or would make it allocate or search more than a test machine
// can give.
namespace limits {
// Every latency, extra and noise amplitude, in cycles: no load takes 50 us at 2 GHz, and a
// sum of all of them stays far below 2^32.
inline constexpr std::uint64_t kMaxCycles = 100'000;
inline constexpr std::uint64_t kMaxSmCount = 1024;
inline constexpr std::uint64_t kMaxClockKhz = 10'000'000;  // 10 GHz
// A memory clock as NVML reports it: GDDR6X and GDDR7 report half their data rate (an RTX
// 4090: 10,501,000 kHz), so the SM clock's limit would refuse real GPUs.
inline constexpr std::uint64_t kMaxMemoryClockKhz = 100'000'000;                // 100 GHz
inline constexpr std::uint64_t kMaxGlobalMemoryBytes = std::uint64_t{1} << 44;  // 16 TiB
inline constexpr std::uint64_t kMaxInstancesPerSm = 64;
inline constexpr std::uint64_t kMaxPartitions = 1024;
inline constexpr std::uint64_t kMaxSegments = 1024;
// Lines of one array (or entries of one TLB level): the simulator allocates every one.
inline constexpr std::uint64_t kMaxEntries = std::uint64_t{1} << 24;
// A lookup scans its set, so a fully associative array of millions of lines would take seconds
// per load.
inline constexpr std::uint64_t kMaxWaysPerSet = 4096;
inline constexpr std::uint64_t kMaxPageBytes = std::uint64_t{1} << 32;
// The smallest page any GPU's TLB translates.
inline constexpr std::uint64_t kMinPageBytes = 4096;
inline constexpr std::uint64_t kMaxSharedBytesPerSm = std::uint64_t{1} << 26;  // 64 MiB
inline constexpr std::uint64_t kMaxBanks = 1024;
inline constexpr std::uint64_t kMaxBankWidthBytes = 1024;
inline constexpr std::size_t kMaxCaches = 64;
inline constexpr std::size_t kMaxTlbLevels = 16;
inline constexpr std::size_t kMaxCarveoutSteps = 64;
inline constexpr double kMaxVictimWeight = 1e9;
// Throughput model: no level moves a megabyte per cycle, and no load path issues more than a
// few thousand loads per cycle; factors relate writes and copies to reads.
inline constexpr double kMaxBytesPerCycle = 1e6;
inline constexpr double kMaxLoadsPerCycle = 1e4;
inline constexpr double kMaxRateFactor = 100;
inline constexpr std::uint64_t kMaxThreadsPerSm = 65'536;
inline constexpr std::uint64_t kMaxBusWidthBits = 65'536;
inline constexpr std::size_t kMaxNameBytes = 256;
// The cache and TLB state the simulator may hold at once (simulator_state_bytes()).
inline constexpr std::uint64_t kMaxStateBytes = std::uint64_t{1} << 30;  // 1 GiB
// A description is a few kilobytes; the parser holds the whole document in memory.
inline constexpr std::size_t kMaxDescriptionBytes = std::size_t{4} << 20;
// Lists and objects inside each other: a description needs 4 levels. The limit keeps recursive
// code (printing a value in a message) far from the end of the stack.
inline constexpr int kMaxNesting = 32;
}  // namespace limits

// The ways of each set of an array holding `entries` lines (or TLB entries) in total.
std::vector<std::uint32_t> ways_of_each_set(const Associativity& associativity,
                                            std::uint64_t entries);

enum class CacheScope {
  sm,      // instances_per_sm instances in every SM
  device,  // one instance shared by every SM
};

enum class PartitionPolicy { home, copy_on_read };

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
  // Where a line answers near (docs/sim-format.md, Partitions): home: in the one partition its
  // address picks; copy_on_read: in the partition of every SM that has read it (an SM's first
  // read of a line only another partition holds answers far, its later reads near).
  PartitionPolicy partition_policy = PartitionPolicy::home;
  // The partition near each SM, by SM id (one entry per SM); empty: SM s is near s mod partitions.
  std::vector<std::uint32_t> sm_partitions;
  // Device scope only: the cache is this many equal arrays of size_bytes / segments each, and a
  // load from SM s looks up and fills segment_of(s) only (one SM fills one segment).
  std::uint32_t segments = 1;
};

// The partition near SM `sm` in `cache`.
std::uint32_t near_partition(const CacheDescription& cache, std::uint32_t sm);
// The segment SM `sm` fills: its near partition when the cache has as many segments as
// partitions (the segments are the partitions), else sm mod segments.
std::uint32_t segment_of(const CacheDescription& cache, std::uint32_t sm);

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
  // Several GPUs like this one and their links (the p2p family); none: one GPU, no host link.
  std::optional<MultiGpuDescription> multi_gpu;
};

// An upper bound on the bytes of cache and TLB state the simulator holds for `description`: every
// sm-scope cache and TLB once per concurrent chase (up to one per SM), with a copy per carveout
// step for the unified cache, and every device-scope cache once. The loader rejects a
// description above limits::kMaxStateBytes.
std::uint64_t simulator_state_bytes(const SimDescription& description);

// Why `description` is too large to simulate (its state above limits::kMaxStateBytes, naming
// the largest cache), or "" when it is not.
std::string too_large_to_simulate(const SimDescription& description);

}  // namespace memtopo::sim
