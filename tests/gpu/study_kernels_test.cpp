// The `sync` and `spilling` study kernels on a real GPU: barriers cost time and cost more
// with more threads to wait for, every barrier kind the device has runs, and the spilling
// kernel's builds spill what their register limits force (none without a limit, some under
// the tightest) and run slower for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/stats.hpp"
#include "backend/study_kernels.hpp"
#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

using StudyKernelsOnGpu = GpuTest;

// Barriers per block and launches: enough for a stable median, well under a second.
constexpr std::uint32_t kBarriers = 1024;
constexpr std::uint32_t kLaunches = 3;
// A barrier of more threads may measure a little cheaper than one of fewer (noise, scheduling);
// more than this share cheaper would mean the loop is not timing barriers.
constexpr double kNonDecreasingTolerance = 0.15;

StudyKernels& kernels(Backend& backend) {
  StudyKernels* kernels = backend.study_kernels();
  if (kernels == nullptr) throw std::runtime_error("the CUDA backend has no study kernels");
  return *kernels;
}

double median_cycles(const BarrierRun& run) {
  return median(run.cycles_per_barrier);
}

BarrierRun run_barrier(Backend& backend, BarrierKind kind, std::uint32_t threads,
                       std::uint32_t blocks_per_sm = 1, std::uint32_t cluster_size = 0) {
  BarrierSpec spec;
  spec.kind = kind;
  spec.threads_per_block = threads;
  spec.blocks_per_sm = blocks_per_sm;
  spec.cluster_size = cluster_size;
  spec.barriers = kBarriers;
  spec.launches = kLaunches;
  return kernels(backend).run_barrier(spec);
}

TEST_F(StudyKernelsOnGpu, SyncthreadsCostsTimeAndMoreWithMoreThreads) {
  double previous = 0;
  for (const std::uint32_t threads : {32u, 128u, 512u, 1024u}) {
    const BarrierRun run = run_barrier(backend(), BarrierKind::block, threads);
    const std::uint32_t sms = backend().facts().sm_count;
    EXPECT_EQ(run.blocks_per_launch, sms);
    EXPECT_EQ(run.cycles_per_barrier.size(), std::size_t{sms} * kLaunches);
    const double cycles = median_cycles(run);
    std::cout << "__syncthreads, " << threads << " threads: " << cycles << " cycles, "
              << median(run.ns_per_barrier) << " ns\n";
    EXPECT_GT(cycles, 0);
    EXPECT_GE(cycles, previous * (1 - kNonDecreasingTolerance)) << threads << " threads";
    previous = cycles;
  }
}

TEST_F(StudyKernelsOnGpu, MoreBlocksPerSmRunAsAsked) {
  const BarrierLimits limits = kernels(backend()).barrier_limits(BarrierKind::block, 256);
  ASSERT_FALSE(limits.unsupported);
  ASSERT_GE(limits.max_blocks_per_sm, 2u);
  const BarrierRun run = run_barrier(backend(), BarrierKind::block, 256, 2);
  EXPECT_EQ(run.blocks_per_launch, 2 * backend().facts().sm_count);
  EXPECT_GE(run.most_blocks_on_one_sm, 2u);
  EXPECT_GT(median_cycles(run), 0);
}

TEST_F(StudyKernelsOnGpu, SyncwarpRuns) {
  const BarrierRun run = run_barrier(backend(), BarrierKind::warp, 32);
  // __syncwarp of a converged warp may compile to almost nothing: only "not negative".
  EXPECT_GE(median_cycles(run), 0);
  std::cout << "__syncwarp: " << median_cycles(run) << " cycles\n";
}

TEST_F(StudyKernelsOnGpu, GridSyncCostsMoreThanSyncthreads) {
  const BarrierLimits limits = kernels(backend()).barrier_limits(BarrierKind::grid, 256);
  if (limits.unsupported) GTEST_SKIP() << *limits.unsupported;
  const BarrierRun grid = run_barrier(backend(), BarrierKind::grid, 256);
  const BarrierRun block = run_barrier(backend(), BarrierKind::block, 256);
  std::cout << "grid sync: " << median_cycles(grid)
            << " cycles, __syncthreads: " << median_cycles(block)
            << " cycles (256 threads, 1 block per SM)\n";
  EXPECT_GT(median_cycles(grid), median_cycles(block));
}

TEST_F(StudyKernelsOnGpu, ClusterBarrierRunsForEverySizeThatLaunches) {
  const BarrierLimits limits = kernels(backend()).barrier_limits(BarrierKind::cluster, 128);
  if (limits.unsupported) GTEST_SKIP() << *limits.unsupported;
  EXPECT_GE(limits.max_cluster_size, 8u) << "8 is the portable cluster size";
  for (std::uint32_t size = 2; size <= limits.max_cluster_size; size *= 2) {
    const BarrierRun run = run_barrier(backend(), BarrierKind::cluster, 128, 1, size);
    EXPECT_EQ(run.blocks_per_launch % size, 0u);
    EXPECT_GT(median_cycles(run), 0) << "cluster of " << size;
    std::cout << "cluster of " << size << ": " << median_cycles(run) << " cycles\n";
  }
}

TEST_F(StudyKernelsOnGpu, BadBarrierConfigurationsAreRejected) {
  BarrierSpec spec;
  spec.threads_per_block = 48;  // not a whole number of warps
  EXPECT_THROW(kernels(backend()).run_barrier(spec), StudyExperimentError);
  spec.threads_per_block = 1024;
  spec.blocks_per_sm = 1000;  // far more than an SM holds
  EXPECT_THROW(kernels(backend()).run_barrier(spec), StudyExperimentError);
}

double median_iteration_cycles(Backend& backend, std::uint32_t variant) {
  SpillSpec spec;
  spec.variant = variant;
  spec.threads_per_block = 32;
  spec.iterations = 512;
  spec.launches = kLaunches;
  return median(kernels(backend).run_spill(spec).cycles_per_iteration);
}

TEST_F(StudyKernelsOnGpu, TighterRegisterLimitsSpillAndRunSlower) {
  const std::vector<SpillVariant>& variants = kernels(backend()).spill_variants();
  ASSERT_GE(variants.size(), 2u);
  const SpillVariant& unlimited = variants.front();
  const SpillVariant& tightest = variants.back();
  std::cout << kernels(backend()).ptxas_counts_source() << "\n";
  for (const SpillVariant& variant : variants) {
    std::cout << "limit " << variant.register_limit << ": " << variant.registers << " registers, "
              << variant.local_bytes << " B local, ptxas spill stores "
              << variant.ptxas_spill_store_bytes.value_or(0) << " B\n";
    EXPECT_LE(variant.registers, variant.register_limit);
  }
  EXPECT_EQ(unlimited.local_bytes, 0u) << "the unlimited build must not spill";
  EXPECT_GT(tightest.local_bytes, 0u) << "the tightest build must spill";
  if (tightest.ptxas_spill_store_bytes) {
    EXPECT_GT(*tightest.ptxas_spill_store_bytes, 0u);
  }
  const double fast = median_iteration_cycles(backend(), 0);
  const double slow =
      median_iteration_cycles(backend(), static_cast<std::uint32_t>(variants.size() - 1));
  std::cout << "cycles per iteration: " << fast << " unlimited, " << slow << " tightest\n";
  EXPECT_GT(fast, 0);
  EXPECT_GT(slow, fast);
}

TEST_F(StudyKernelsOnGpu, SpillRunHasOneSamplePerWarpAndLaunch) {
  SpillSpec spec;
  spec.threads_per_block = 128;
  spec.iterations = 64;
  spec.launches = 2;
  const SpillRun run = kernels(backend()).run_spill(spec);
  EXPECT_EQ(run.warps_per_launch, 4 * backend().facts().sm_count);
  EXPECT_EQ(run.cycles_per_iteration.size(), std::size_t{run.warps_per_launch} * 2);
  EXPECT_EQ(run.ns_per_iteration.size(), run.cycles_per_iteration.size());
}

}  // namespace
}  // namespace memtopo::testing
