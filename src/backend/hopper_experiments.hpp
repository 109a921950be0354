#pragma once
// Experiments on what Hopper added around the memory hierarchy (thesis 004, 6.2 and 6.3):
// distributed shared memory across a thread-block cluster, TMA bulk copies global -> shared,
// and instruction fetch from straight-line code of growing size. Plain data, like ChaseSpec.
// A backend that runs them implements HopperExperiments besides Backend (the CUDA backend; on a
// GPU before compute capability 9.0 hopper_unsupported_reason() says why not); probes reach it
// through Backend::hopper(), which is nullptr for a backend without them (the simulated device
// models none of these).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memtopo {

class Backend;

// --- Distributed shared memory ------------------------------------------------------------

// Whether a cluster of `cluster_size` blocks of the latency and bandwidth kernels can launch,
// and what the occupancy API says about it.
struct ClusterLaunchCheck {
  std::uint32_t cluster_size = 0;
  bool launchable = false;
  std::uint32_t max_active_clusters = 0;  // cudaOccupancyMaxActiveClusters; 0: cannot launch
  bool non_portable = false;              // above the portable limit (needed the opt-in)
  std::string reason;                     // why not, when not launchable
};

// One block of a cluster (rank 0 times the others) chases a ring of shared::cluster addresses
// in the shared memory of each rank in turn: own rank first, then every other rank.
struct ClusterLatencySpec {
  std::uint32_t cluster_size = 2;
  std::uint32_t ring_bytes = 16384;      // each block's ring, in its own shared memory
  std::uint32_t stride_bytes = 128;      // between consecutive ring elements
  std::uint32_t warm_loads = 64;         // untimed loads before each rank's samples
  std::uint32_t loads_per_sample = 256;  // dependent loads timed together (clock64)
  std::uint32_t samples = 16;            // per rank
};

struct RankLatency {
  std::uint32_t rank = 0;               // %cluster_ctarank of the block chased
  std::uint32_t sm_id = 0;              // %smid of that block
  std::vector<double> cycles_per_load;  // one per sample: sample cycles / loads_per_sample
};

struct ClusterLatencyResult {
  std::uint32_t cluster_size = 0;
  std::vector<RankLatency> ranks;  // rank 0 (the timing block's own memory) first
};

// Every block of as many clusters as fit at once streams `bytes_per_block` of shared memory,
// `passes` times: its cluster neighbour's (rank + 1) when remote, its own otherwise.
struct ClusterBandwidthSpec {
  std::uint32_t cluster_size = 2;
  bool remote = true;
  std::uint32_t bytes_per_block = 32768;
  std::uint32_t threads = 1024;
  std::uint32_t passes = 256;
  std::uint32_t warm_launches = 1;
  std::uint32_t timed_launches = 5;
};

struct ClusterBandwidthResult {
  std::vector<double> bytes_per_second;        // per timed launch (events around the launch)
  std::vector<double> bytes_per_cycle_per_sm;  // per timed launch: median over the SMs used
  std::vector<double> sm_clock_khz;  // per timed launch: cycles / globaltimer ns, block median
  std::uint32_t clusters = 0, blocks = 0, sms_used = 0;
  std::uint64_t bytes_per_launch = 0;
};

// --- TMA ----------------------------------------------------------------------------------

enum class TileCopy {
  bulk_1d,      // cp.async.bulk (one contiguous tile), completion on an mbarrier
  tensor_2d,    // cp.async.bulk.tensor.2d through a tensor map (cuTensorMapEncodeTiled)
  plain_loads,  // every thread of a block: ld.global.cg v4 -> st.shared v4, then a barrier
};
const char* tile_copy_name(TileCopy method);

struct TileCopySpec {
  TileCopy method = TileCopy::bulk_1d;
  // The tile: rows x row_bytes (1D and plain loads: one row of the whole tile).
  std::uint32_t rows = 1;
  std::uint32_t row_bytes = 4096;
  // Latency: copies of tiles 0 .. samples-1, one after another by one block, after one untimed
  // copy of each (which leaves every tile in L2).
  std::uint32_t samples = 16;
  // Throughput: every SM's block copies `tiles_per_block` tiles of a source of `source_bytes`,
  // or more when a warm launch lasted less than `min_launch_seconds` (0: never more): enough
  // that the launch lasts that long, so that its start and end weigh little.
  std::uint64_t source_bytes = 8u << 20;
  // The source starts this far into its allocation (other physical pages).
  std::uint64_t source_offset_bytes = 0;
  std::uint32_t tiles_per_block = 64;
  double min_launch_seconds = 0;
  std::uint32_t timed_launches = 3;
};
inline std::uint64_t tile_bytes(const TileCopySpec& spec) {
  return std::uint64_t{spec.rows} * spec.row_bytes;
}

struct TileCopyLatencyResult {
  std::vector<double> cycles;  // per copy (tile), issue to completion
};

struct TileCopyThroughputResult {
  std::vector<double> bytes_per_second;        // per timed launch: bytes / its event time
  // Per timed launch: the sum over its blocks of each one's bytes over its own %globaltimer span
  // (cuda/block_rates.hpp): the copies' rate, without the launch's start and end.
  std::vector<double> block_bytes_per_second;
  std::vector<double> bytes_per_cycle_per_sm;  // per timed launch: median over the blocks
  std::vector<double> sm_clock_khz;  // per timed launch: cycles / globaltimer ns, block median
  std::uint32_t blocks = 0;
  std::uint32_t tiles_per_block = 0;  // as launched (see TileCopySpec::min_launch_seconds)
  std::uint64_t bytes_per_launch = 0;
};

// --- Instruction fetch ----------------------------------------------------------------------

// One warp runs the first `code_bytes` of a straight-line kernel body again and again.
struct CodeFetchSpec {
  std::uint32_t code_bytes = 0;  // a multiple of CodeFetchLayout::block_bytes
  std::uint32_t warm_iterations = 2;
  std::uint32_t timed_iterations = 16;
  // The %smid to run on (one of DeviceFacts::sm_ids); empty: wherever the block is scheduled.
  std::optional<std::uint32_t> sm_id;
  // Which copy of the code runs (below CodeFetchLayout::layouts): each lies elsewhere in the
  // kernel image, so that a step which depends on where the code lies moves between them.
  std::uint32_t layout = 0;
};

// What the compiled kernel offers: blocks of straight-line code, each ending in the check
// whether to loop back.
struct CodeFetchLayout {
  std::uint32_t block_bytes = 0;             // SASS bytes of one block
  std::uint32_t instructions_per_block = 0;  // SASS instructions of one block
  std::uint32_t max_code_bytes = 0;          // all blocks
  std::uint32_t layouts = 1;                 // copies of the code at different places
};

struct CodeFetchResult {
  std::vector<double> cycles_per_instruction;  // per timed iteration
  std::uint32_t sm_id = 0;                     // %smid of the warp that ran
};

class HopperExperiments {
 public:
  virtual ~HopperExperiments() = default;

  // Why this device runs none of these experiments ("" when it does): e.g. a compute
  // capability below 9.0.
  virtual std::string hopper_unsupported_reason() const = 0;

  virtual ClusterLaunchCheck check_cluster_launch(std::uint32_t cluster_size) = 0;
  // cudaOccupancyMaxPotentialClusterSize of the latency kernel (non-portable sizes allowed).
  virtual std::uint32_t occupancy_max_cluster_size() = 0;
  virtual ClusterLatencyResult run_cluster_latency(const ClusterLatencySpec& spec) = 0;
  virtual ClusterBandwidthResult run_cluster_bandwidth(const ClusterBandwidthSpec& spec) = 0;

  // Throw ExperimentError for a method this device or driver cannot run (the reason named).
  virtual TileCopyLatencyResult run_tile_copy_latency(const TileCopySpec& spec) = 0;
  virtual TileCopyThroughputResult run_tile_copy_throughput(const TileCopySpec& spec) = 0;

  virtual CodeFetchLayout code_fetch_layout() const = 0;
  virtual CodeFetchResult run_code_fetch(const CodeFetchSpec& spec) = 0;
};


}  // namespace memtopo
