// The sync study (issue 13, study 2; study 001, 3.4.2): what a barrier costs. __syncthreads
// against threads per block (32 to 1024) and blocks per SM (1 to what an SM holds), then
// __syncwarp, a grid-wide cooperative-groups sync and, from sm_90 on, the cluster barrier as
// extra rows. Each block's thread 0 times a loop of barriers with clock64 and %globaltimer;
// a row is the p50 over every block of every launch.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "study/kernel_study.hpp"
#include "study/studies.hpp"
#include "study/sync/sync_rows.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kSyncThreadsPerBlock[] = {32, 64, 128, 256, 512, 1024};
constexpr std::uint32_t kSyncBlocksPerSm[] = {1, 2, 4, 8, 16, 32};
// The blocks-per-SM finding reads this row of the sweep.
constexpr std::uint32_t kBlocksFindingThreads = 256;
constexpr std::uint32_t kWarpThreads[] = {32, 1024};
constexpr std::uint32_t kGridThreads[] = {32, 256, 1024};
constexpr std::uint32_t kClusterThreads = 128;
// Barriers per block and launch: a grid sync takes microseconds, a block barrier tens of
// cycles; each launch stays near a millisecond or below.
constexpr std::uint32_t kBlockBarriers = 4096;
constexpr std::uint32_t kGridBarriers = 256;
constexpr std::uint32_t kClusterBarriers = 1024;
constexpr std::uint32_t kLaunches = 5;
// A cost may fall this much from one thread count to the next and still count as rising.
constexpr double kRisingTolerance = 0.1;

BarrierSpec spec_of(BarrierKind kind, std::uint32_t threads, std::uint32_t blocks_per_sm,
                    std::uint32_t cluster_size = 0) {
  BarrierSpec spec;
  spec.kind = kind;
  spec.threads_per_block = threads;
  spec.blocks_per_sm = blocks_per_sm;
  spec.cluster_size = cluster_size;
  spec.barriers = kind == BarrierKind::grid      ? kGridBarriers
                  : kind == BarrierKind::cluster ? kClusterBarriers
                                                 : kBlockBarriers;
  spec.launches = kLaunches;
  return spec;
}

// Blocks per SM of the sweep that fit, and the most that fit when it is not in the sweep.
std::vector<std::uint32_t> blocks_per_sm_sweep(std::uint32_t most) {
  std::vector<std::uint32_t> sweep;
  for (const std::uint32_t blocks : kSyncBlocksPerSm) {
    if (blocks <= most) sweep.push_back(blocks);
  }
  if (most > 0 && (sweep.empty() || sweep.back() != most)) sweep.push_back(most);
  return sweep;
}

void syncthreads_sweep(StudyContext& context, StudyKernels& kernels, SyncTables& tables) {
  for (const std::uint32_t threads : kSyncThreadsPerBlock) {
    const BarrierLimits limits = kernels.barrier_limits(BarrierKind::block, threads);
    for (const std::uint32_t blocks : blocks_per_sm_sweep(limits.max_blocks_per_sm)) {
      context.check_interrupted();
      tables.measure(context, spec_of(BarrierKind::block, threads, blocks));
    }
  }
}

// The extra rows of one kind; a kind this device lacks becomes a note.
void other_kind(StudyContext& context, StudyKernels& kernels, SyncTables& tables, BarrierKind kind,
                std::span<const std::uint32_t> threads_list) {
  for (const std::uint32_t threads : threads_list) {
    const BarrierLimits limits = kernels.barrier_limits(kind, threads);
    if (limits.unsupported) {
      tables.note(std::string(to_string(kind)) + ": not measured: " + *limits.unsupported);
      return;
    }
    std::vector<std::uint32_t> blocks_list = {1};
    if (kind == BarrierKind::grid && limits.max_blocks_per_sm > 1) {
      blocks_list.push_back(limits.max_blocks_per_sm);
    }
    for (const std::uint32_t blocks : blocks_list) {
      if (kind != BarrierKind::cluster) {
        context.check_interrupted();
        tables.measure(context, spec_of(kind, threads, blocks));
        continue;
      }
      for (std::uint32_t size = 2; size <= limits.max_cluster_size; size *= 2) {
        context.check_interrupted();
        tables.measure(context, spec_of(kind, threads, blocks, size));
      }
    }
  }
}

void run_sync(StudyContext& context, StudyResult& result) {
  StudyKernels& kernels = context.study_kernels("barriers");
  result.parameters = {{"threads_per_block", kSyncThreadsPerBlock},
                       {"blocks_per_sm", kSyncBlocksPerSm},
                       {"barriers_per_launch",
                        {{"syncthreads", kBlockBarriers},
                         {"syncwarp", kBlockBarriers},
                         {"grid", kGridBarriers},
                         {"cluster", kClusterBarriers}}},
                       {"barrier_unroll", kBarrierUnroll},
                       {"timed_launches", kLaunches},
                       {"syncwarp_threads_per_block", kWarpThreads},
                       {"grid_threads_per_block", kGridThreads},
                       {"cluster_threads_per_block", kClusterThreads}};
  SyncTables tables(result);
  context.phase("syncthreads", [&] {
    context.progress("sync: __syncthreads against threads per block and blocks per SM");
    syncthreads_sweep(context, kernels, tables);
  });
  context.phase("other barriers", [&] {
    context.progress("sync: __syncwarp, grid sync, cluster barrier");
    other_kind(context, kernels, tables, BarrierKind::warp, kWarpThreads);
    other_kind(context, kernels, tables, BarrierKind::grid, kGridThreads);
    const std::uint32_t cluster_threads[] = {kClusterThreads};
    other_kind(context, kernels, tables, BarrierKind::cluster, cluster_threads);
  });
  tables.finish(context, kBlocksFindingThreads, kRisingTolerance);
}

}  // namespace

Study sync_study() {
  return Study{
      .id = "sync",
      .title =
          "cost of __syncthreads against threads per block and blocks per SM; __syncwarp, "
          "grid and cluster barriers",
      .needs = "a CUDA GPU (the simulated device does not model barriers); cluster rows sm_90+",
      .run = run_sync,
  };
}

}  // namespace memtopo::study
