#pragma once
// The plain-data contract between the host launcher (.cpp, g++) and the chase kernel (.cu,
// nvcc): descriptors the host writes, outcomes the kernel writes. Fixed-width fields only, so
// both compilers lay them out identically (checked by the static_asserts below).
#include <cstdint>

namespace memtopo {

// Overhead samples per experiment: iterations of the timed sequence without the load.
inline constexpr std::uint32_t kOverheadSamples = 32;
// Records a block keeps in shared memory before flushing them to global memory. Shared
// memory and L1 are one array on Hopper, so every byte here is a byte of L1 less: 512
// records of {loaded index, cycles} are 4 KiB, split among the chasers that run at once.
inline constexpr std::uint32_t kRecordBufferRecords = 512;
// Pause after flushing a chunk of records, so the flush's stores have left the SM before the
// next timed load (about 2 us; a flush happens once per kRecordBufferRecords loads).
inline constexpr unsigned kRecordDrainNanoseconds = 2000;
inline constexpr std::int32_t kNoJob = -1;

enum ChaseStatus : std::uint32_t {
  kChaseNotRun = 0,          // no block of the launch ran on the job's SM
  kChaseDone = 1,            // ran to the end
  kChaseLeftChain = 2,       // a load returned an index outside the array; the chase stopped
  kChaseSweepLeftChain = 3,  // an eviction sweep load did the same in the sweep's array
  kChaseBadSweepPath = 4,    // the descriptor names a sweep path the kernel cannot load from
};

// One experiment (one ChaseSpec) as the kernel sees it.
struct alignas(16) ChaseJob {
  const std::uint32_t* chain;   // the array in global memory (the shared path copies it)
  std::uint64_t texture;        // cudaTextureObject_t over `chain`, tex path only
  std::uint64_t warm_loads;     // untimed loads per chaser before the timed ones
  std::uint64_t record_offset;  // first record of chaser 0 in ChaseLaunch::cycles/indices
  std::uint32_t chain_words;    // array length in words; a loaded index >= this is stray
  std::uint32_t start_index;    // where chaser 0 starts
  std::uint32_t timed_loads;    // per chaser
  std::uint32_t chasers;        // lane 0 of warps 0 .. chasers-1
  std::uint32_t concurrent;     // 1: chasers run at once; 0: chaser k after chaser k-1
  // Words between the starts of chaser k and chaser k+1: a segment with private segments
  // (each chaser then walks its own chain), 0 when every chaser walks the one chain.
  std::uint32_t chaser_start_step;
  // The eviction sweep every chaser walks between its warm and its timed loads: a sequential
  // chain of `sweep_words` words from word 0, `sweep_loads` loads (whole passes) on
  // `sweep_path`. sweep_loads == 0: no sweep.
  std::uint32_t sweep_path;          // a LoadPath, never shared; const: the constant bank's chain
  std::uint32_t sweep_words;         // a loaded sweep index >= this is stray
  const std::uint32_t* sweep_chain;  // ca, cg, cv, nc, tex: the sweep's array in global memory
  std::uint64_t sweep_texture;       // tex: cudaTextureObject_t over `sweep_chain`
  std::uint64_t sweep_loads;         // per chaser
  std::uint64_t padding;
};

// What the block that ran a job reports about it.
struct alignas(16) ChaseOutcome {
  std::uint32_t status;       // ChaseStatus
  std::uint32_t sm_id;        // %smid of the block that ran it
  std::uint32_t stray_index;  // the index that left the chain (kChaseBadSweepPath: the path)
  std::uint32_t reserved;
  std::uint64_t clock_start;  // %clock64 when the first chaser started
  std::uint64_t clock_end;    // %clock64 when the last chaser finished
  std::uint64_t ns_start;     // %globaltimer at the same two moments
  std::uint64_t ns_end;
  std::uint32_t overhead[kOverheadSamples];
};

// Kernel parameters of one launch (one load path, up to one job per SM). Shared memory a
// launch reserves (ChaseSpec::reserved_shared_bytes) is dynamic shared memory after the
// records that the kernel never touches: only the launch's size knows about it.
struct ChaseLaunch {
  const ChaseJob* jobs;
  const std::int32_t* job_of_sm;  // indexed by %smid: the job to run there, or kNoJob
  std::uint32_t job_of_sm_count;
  std::uint32_t shared_chain_words;  // shared path: room for the largest chain in the launch
  std::uint32_t* claims;             // per job: 0 until a block claims it (atomicCAS)
  std::uint32_t* arrived;            // blocks that have looked for a job
  ChaseOutcome* outcomes;            // per job
  std::uint32_t* cycles;             // records: cycles per timed load
  std::uint32_t* indices;            // records: index of the word each timed load read
  std::uint64_t quiesce_timeout_ns;  // how long a job waits for the launch's idle blocks
  // A wide launch (wide_chase_kernel, ChaseSpec::wide_indices) runs one job, whose 64-bit chain
  // these describe (its ChaseJob's chain_words and start_index are unused): the array's length
  // in words, the word its chasers start at, and where the 64-bit index records go (`indices`
  // is unused). Kept here rather than in ChaseJob so that the 32-bit kernels stay as they are.
  std::uint64_t wide_chain_words;
  std::uint64_t wide_start_index;
  std::uint64_t* wide_indices;
};

// Concurrent chasers split the record buffer: even 32 of them get 16 records each.
static_assert(kRecordBufferRecords / 32 >= 16, "record chunks too small for 32 chasers");
static_assert(sizeof(ChaseJob) == 96, "ChaseJob layout must match on host and device");
static_assert(sizeof(ChaseOutcome) == 48 + 4 * kOverheadSamples, "ChaseOutcome layout");

}  // namespace memtopo
