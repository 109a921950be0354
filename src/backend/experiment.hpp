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

inline constexpr LoadPath kAllLoadPaths[] = {LoadPath::ca,    LoadPath::cg,  LoadPath::cv,
                                             LoadPath::nc,    LoadPath::tex, LoadPath::constant,
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

// A sweep through a second array on another load path, run by every chaser between its warm
// passes and its timed loads (thesis 004, 4.5): warm cache A with the chase, sweep through B,
// then time A again. If B's loads evicted A's lines, A and B hold their lines in one array.
// The sweep walks a sequential chain of its own (eviction_chain_spec), in a separate buffer.
struct EvictionSweep {
  LoadPath path = LoadPath::ca;       // any path but shared; constant only if the chase is not
  std::uint64_t footprint_bytes = 0;  // the second array
  std::uint32_t stride_bytes = 128;   // one load every stride_bytes, in address order
  std::uint32_t passes = 1;           // sweeps over the whole array
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
  // false: every chaser walks the one chain from start_index. true: the footprint is split into
  // `chasers` segments of segment_bytes(spec) each, segment k holds its own chain (the same
  // order and stride, shifted by k segments) and chaser k walks segment k only, starting at
  // start_index + k * segment_bytes / 4. Sequential and random orders only. What the per-SM
  // instance test needs (thesis 004, 4.6): chasers that do not share a single line.
  bool private_segments = false;
  ChaserSchedule schedule = ChaserSchedule::sequential;
  std::optional<std::uint32_t> sm;        // run on this SM; unset = any SM the backend picks
  bool flush_device_caches = false;       // evict device-wide caches (L2) before the chase starts
  std::optional<EvictionSweep> eviction;  // see EvictionSweep; none by default
  // Shared memory the chase's block reserves on top of what it uses itself. Where L1 and shared
  // memory are one array per SM, the L1 left to the chase shrinks accordingly: how the
  // carveout table is measured. 0 = the smallest carveout the device allows.
  std::uint32_t reserved_shared_bytes = 0;
  // A wide chain, for arrays past 2^32 words (16 GiB; the TLB probes chase up to most of device
  // memory): the chain's elements are 64-bit, each at an even word index (8-byte aligned) and
  // holding the word index of the next, visited in this order (word indices), from the first.
  // Non-empty only with order explicit_indices and `indices` empty, on the ca or cg path, and
  // without an eviction sweep or private segments. Traces then report `wide_indices`.
  std::vector<std::uint64_t> wide_indices;
  // The warm passes may load the chain's words in their visiting order without following it,
  // many loads at once, where that order is a progression (sequential chains and evenly spaced
  // explicit ones) on a path that does not allocate in the L1 (cg, cv): the CUDA backend runs
  // them in a kernel of its own on the chase's SM just before the chase (warm_progression.hpp
  // says why). The same lines in the same order, so the L2 and the TLBs end in the same state;
  // an L2 size chase over 25 MiB spent ~46 of its ~50 ms on an H200 in a warm pass of one L2
  // latency per load. Opt-in per probe: the L2 row, segments, line and ways ask for it.
  bool stream_warm = false;
  // A hint: the next chase needs arrays about as large as this one's. The CUDA backend then
  // keeps them allocated after the run (it frees arrays over 1 GiB after every run otherwise),
  // so that a series of 100 GiB chases does not allocate 100 GiB again for every one; a wide
  // chain's array, the first time it grows, is sized for the largest wide chain a probe may plan
  // (plannable_bytes of the wide limit), so that a row of growing chains allocates it once. Any
  // other kind of experiment frees kept arrays first. Why: on an H200 a cudaMalloc after a
  // cudaFree of 128 GiB waited 0.36-0.38 s (the driver clears memory given back before it hands
  // any out again) where the first 128 GiB took 4 ms; such pairs were 1.9 s of a 13.6 s run.
  bool keep_arrays = false;
};

// True for a wide chain (ChaseSpec::wide_indices).
inline bool is_wide(const ChaseSpec& spec) {
  return !spec.wide_indices.empty();
}

// Number of elements on the chain one chaser walks (the chain length; with private segments,
// the length of one segment's chain).
std::uint64_t chain_length(const ChaseSpec& spec);

// Bytes of one chaser's segment with private_segments: footprint / chasers rounded down to the
// stride. The whole footprint otherwise.
std::uint64_t segment_bytes(const ChaseSpec& spec);

// The spec of the sequential chain an eviction sweep walks (path, footprint and stride of the
// sweep, one element per stride). Requires spec.eviction.
ChaseSpec eviction_chain_spec(const ChaseSpec& spec);

// Loads a chase makes on the device, per chaser: warm passes, eviction sweeps and timed loads.
std::uint64_t loads_per_chaser(const ChaseSpec& spec);

// What one chase produced. With several chasers, chaser k's records are the k-th block of
// `timed_loads` entries in `cycles` and `indices`.
struct Trace {
  std::vector<std::uint32_t> cycles;   // per access: clock after the dependent store minus before
  std::vector<std::uint32_t> indices;  // per access: index of the word each timed load read
  std::uint32_t sm_id = 0;             // SM the chase ran on
  double overhead_cycles = 0;          // median timing overhead measured in the same kernel
  std::vector<std::uint32_t> overhead_samples;  // the raw overhead measurements
  double clock_khz = 0;                         // SM clock during the chase (measured; 0 = unknown)
  // Wide chains (is_wide): the word index each timed load read; `indices` stays empty then.
  std::vector<std::uint64_t> wide_indices;
  // The virtual address of the chain's word 0 on the device (0: unknown, or a simulated one):
  // evidence for what depends on where the allocator put the array (TLB sets indexed by it).
  std::uint64_t chain_address = 0;
};

}  // namespace memtopo
