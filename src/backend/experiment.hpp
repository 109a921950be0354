#pragma once
// Experiments are plain data: what a probe asks a backend to run, and what comes back.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memtopo {

// How a load reaches memory. Each maps to one PTX load form in the CUDA backend and to one
// `paths` entry in a simulated device description.
enum class LoadPath {
  ca,        // ld.global.ca: cache at all levels (L1 and L2)
  cg,        // ld.global.cg: cache in L2 only
  cv,        // ld.global.cv: volatile, fetch again (no cache)
  nc,        // ld.global.nc: read-only data path (__ldg)
  tex,       // tex1Dfetch through a texture object
  constant,  // ld.const from the constant bank ("const" in names and files)
  shared,    // ld.shared from the block's shared memory
};

inline constexpr LoadPath kAllLoadPaths[] = {LoadPath::ca,  LoadPath::cg,       LoadPath::cv,
                                             LoadPath::nc,  LoadPath::tex,      LoadPath::constant,
                                             LoadPath::shared};

std::string_view to_string(LoadPath path);
std::optional<LoadPath> parse_load_path(std::string_view name);

enum class ChaseOrder {
  sequential,          // element k points to element k+1 (k counted in strides), the last to 0
  random_permutation,  // one cycle through every element, shuffled with `seed`
  explicit_indices,    // visit `indices` in the given order, then back to the first
};

std::string_view to_string(ChaseOrder order);

enum class ChaserSchedule {
  sequential,  // chaser k starts after chaser k-1 has finished (block barrier between them)
  concurrent,  // all chasers run at the same time
};

// One fine-grained pointer chase. The chain lives in an array of 32-bit words: the word at
// index i holds the index of the next word to load. Indices are in words (4 bytes).
struct ChaseSpec {
  LoadPath path = LoadPath::ca;
  std::uint64_t footprint_bytes = 0;  // size of the array the chain lives in
  std::uint32_t stride_bytes = 4;     // distance between chained elements (sequential/random)
  ChaseOrder order = ChaseOrder::sequential;
  std::uint64_t seed = 0;              // for random_permutation
  std::vector<std::uint32_t> indices;  // for explicit_indices: word indices in visiting order
  std::uint32_t start_index = 0;       // word index the chase starts from (must be on the chain)
  std::uint32_t warm_passes = 1;       // untimed passes over the whole chain before timing
  std::uint32_t timed_loads = 0;       // recorded loads per chaser, after the warm passes
  std::uint32_t chasers = 1;           // chasing threads: lane 0 of warps 0..chasers-1
  ChaserSchedule schedule = ChaserSchedule::sequential;
  std::optional<std::uint32_t> sm;     // run on this SM; unset = any SM the backend picks
  bool flush_device_caches = false;    // evict device-wide caches (L2) before the chase starts
};

// Number of elements on the chain a spec describes (the chain length).
std::uint64_t chain_length(const ChaseSpec& spec);

// What one chase produced. With several chasers, chaser k's records are the k-th block of
// `timed_loads` entries in `cycles` and `indices`.
struct Trace {
  std::vector<std::uint32_t> cycles;   // per access: clock after the dependent store minus before
  std::vector<std::uint32_t> indices;  // per access: index of the word each timed load read
  std::uint32_t sm_id = 0;             // SM the chase ran on
  double overhead_cycles = 0;          // median timing overhead measured in the same kernel
  std::vector<std::uint32_t> overhead_samples;  // the raw overhead measurements
  double clock_khz = 0;                // SM clock during the chase (measured; 0 = unknown)
};

}  // namespace memtopo
