#pragma once
// The experiments of the `sync` and `spilling` studies (study 001, 3.4.2 and 3.4.4): barriers
// timed in a loop, and one register-hungry kernel built under several register limits. Plain
// data and interfaces; the CUDA backend implements them (backend/cuda/study_kernels_cuda.cpp),
// a simulated device does not (it models neither barriers nor registers).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memtopo {

// The barrier a BarrierSpec times.
enum class BarrierKind {
  block,    // __syncthreads (bar.sync 0): every thread of the block
  warp,     // __syncwarp (full mask): the 32 lanes of a warp
  grid,     // cooperative_groups::this_grid().sync(): every thread of a cooperative launch
  cluster,  // cooperative_groups::this_cluster().sync() (barrier.cluster): sm_90 and later
};
std::string_view to_string(BarrierKind kind);

// One barrier configuration: `launches` launches of `blocks_per_sm` x SM count blocks (for
// `cluster`: as many clusters of `cluster_size` blocks as fit one per SM group) of
// `threads_per_block` threads, each block passing `barriers` barriers in a timed loop.
struct BarrierSpec {
  BarrierKind kind = BarrierKind::block;
  std::uint32_t threads_per_block = 32;
  std::uint32_t blocks_per_sm = 1;
  std::uint32_t cluster_size = 0;  // cluster kind only
  std::uint32_t barriers = 4096;   // a multiple of kBarrierUnroll
  std::uint32_t launches = 5;
};
// The timed loop passes this many barriers per trip, so that the loop's own branch is small
// beside them; BarrierSpec::barriers must be a multiple.
inline constexpr std::uint32_t kBarrierUnroll = 16;

// What one configuration measured: one sample per block and launch (thread 0's clock64 and
// %globaltimer around the loop, divided by the barriers passed).
struct BarrierRun {
  std::vector<double> cycles_per_barrier;
  std::vector<double> ns_per_barrier;
  std::uint32_t blocks_per_launch = 0;
  // Blocks of one launch seen on the busiest and the idlest SM used (%smid): whether the
  // blocks per SM asked for were what ran.
  std::uint32_t most_blocks_on_one_sm = 0;
  std::uint32_t fewest_blocks_on_one_sm = 0;
};

// Whether a kind can run here and with how many blocks per SM at most.
struct BarrierLimits {
  std::optional<std::string> unsupported;  // the reason, when the kind cannot run here
  std::uint32_t max_blocks_per_sm = 0;     // resident blocks of `threads_per_block` per SM
  std::uint32_t max_cluster_size = 0;      // cluster kind: the largest size that launches
};

// One build of the spilling kernel. The same source (a fixed live working set of 4-byte
// words, updated in a scrambled order every iteration) compiled under a register limit.
struct SpillVariant {
  std::uint32_t register_limit = 0;  // __maxnreg__ of this build (255: no practical limit)
  // Measured on the loaded module (cudaFuncGetAttributes): registers per thread and local
  // memory per thread (the spill slots; 0 where nothing spilled).
  std::uint32_t registers = 0;
  std::uint32_t local_bytes = 0;
  // ptxas -v of the same source at build time ("N bytes stack frame, S bytes spill stores,
  // L bytes spill loads"); nullopt where the build did not capture it.
  std::optional<std::uint32_t> ptxas_stack_bytes;
  std::optional<std::uint32_t> ptxas_spill_store_bytes;
  std::optional<std::uint32_t> ptxas_spill_load_bytes;
};
// Live 4-byte words the spilling kernel keeps across its iterations.
inline constexpr std::uint32_t kSpillLiveWords = 64;

struct SpillSpec {
  std::uint32_t variant = 0;  // index into StudyKernels::spill_variants()
  std::uint32_t threads_per_block = 32;
  std::uint32_t blocks_per_sm = 1;
  std::uint32_t iterations = 2048;
  std::uint32_t launches = 5;
  // The kernel's preferred shared-memory carveout, in percent of the unified L1/shared
  // storage (cudaFuncAttributePreferredSharedMemoryCarveout): 100 leaves L1 the least room for
  // the spilled words, 0 the most; kDefaultCarveout lets the driver choose.
  int shared_carveout_percent = kDefaultCarveout;
  static constexpr int kDefaultCarveout = -1;
};

// One sample per warp and launch: lane 0's clock64 and %globaltimer around the loop, divided
// by the iterations.
struct SpillRun {
  std::vector<double> cycles_per_iteration;
  std::vector<double> ns_per_iteration;
  std::uint32_t warps_per_launch = 0;
};

// A configuration this device cannot run (more blocks than fit, a cluster size it lacks).
class StudyExperimentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StudyKernels {
 public:
  virtual ~StudyKernels() = default;
  virtual BarrierLimits barrier_limits(BarrierKind kind, std::uint32_t threads_per_block) = 0;
  virtual BarrierRun run_barrier(const BarrierSpec& spec) = 0;
  virtual const std::vector<SpillVariant>& spill_variants() = 0;
  // Resident blocks of `threads_per_block` per SM for a variant (its registers limit them).
  virtual std::uint32_t spill_max_blocks_per_sm(std::uint32_t variant,
                                                std::uint32_t threads_per_block) = 0;
  virtual SpillRun run_spill(const SpillSpec& spec) = 0;
  // Where the variants' ptxas counts come from ("ptxas -v at build time, sm_90"), or why
  // they are missing.
  virtual std::string ptxas_counts_source() = 0;
};

}  // namespace memtopo
