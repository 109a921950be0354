#include "kernel_studies_fake.hpp"

#include <algorithm>

namespace memtopo::study::testing {
namespace {

constexpr std::uint32_t kWarpSize = 32;
constexpr std::uint32_t kMaxBlocksPerSm = 32;
constexpr std::uint32_t kFakeMaxClusterSize = 8;
constexpr std::uint32_t kThreadsWithoutContention = 32;

SpillVariant variant(std::uint32_t limit, std::uint32_t registers, std::uint32_t local,
                     std::uint32_t stores, std::uint32_t loads) {
  SpillVariant v;
  v.register_limit = limit;
  v.registers = registers;
  v.local_bytes = local;
  v.ptxas_stack_bytes = local;
  v.ptxas_spill_store_bytes = stores;
  v.ptxas_spill_load_bytes = loads;
  return v;
}

}  // namespace

FakeStudyGpu::FakeStudyGpu() {
  facts_.name = "fake study GPU";
  facts_.backend = "fake";
  facts_.cc_major = 9;
  facts_.sm_count = kFakeSmCount;
  facts_.max_threads_per_sm = kFakeThreadsPerSm;
  variants_ = {variant(255, 82, 0, 0, 0), variant(64, 64, 80, 136, 140),
               variant(32, 32, 328, 588, 632)};
}

double fake_barrier_cycles(const BarrierSpec& spec) {
  const double warps = static_cast<double>(spec.threads_per_block) / kWarpSize;
  switch (spec.kind) {
    case BarrierKind::block:
      // Blocks sharing an SM interleave: each block's barrier takes as many times longer.
      return (kBarrierBaseCycles + kBarrierCyclesPerWarp * warps) * spec.blocks_per_sm;
    case BarrierKind::warp:
      return kWarpBarrierCycles;
    case BarrierKind::grid:
      return kGridBarrierCycles;
    case BarrierKind::cluster:
      return kClusterCyclesPerBlock * spec.cluster_size;
  }
  return 0;
}

double fake_spill_cycles(const SpillVariant& variant, const SpillSpec& spec) {
  const double threads_per_sm = static_cast<double>(spec.threads_per_block) * spec.blocks_per_sm;
  const double contention = std::max(1.0, threads_per_sm / kThreadsWithoutContention);
  constexpr int kSmallestL1 = 100;
  const double per_byte =
      kSpillCyclesPerByte * (spec.shared_carveout_percent == kSmallestL1 ? kSmallL1SpillFactor : 1);
  return (kSpillBaseCycles + per_byte * variant.local_bytes) * contention;
}

BarrierLimits FakeStudyGpu::barrier_limits(BarrierKind kind, std::uint32_t threads_per_block) {
  BarrierLimits limits;
  if (const auto it = unsupported.find(kind); it != unsupported.end()) {
    limits.unsupported = it->second;
    return limits;
  }
  limits.max_blocks_per_sm = std::min(kMaxBlocksPerSm, kFakeThreadsPerSm / threads_per_block);
  if (kind == BarrierKind::cluster) limits.max_cluster_size = kFakeMaxClusterSize;
  return limits;
}

BarrierRun FakeStudyGpu::run_barrier(const BarrierSpec& spec) {
  BarrierRun run;
  run.blocks_per_launch = spec.blocks_per_sm * kFakeSmCount;
  run.most_blocks_on_one_sm = spec.blocks_per_sm;
  run.fewest_blocks_on_one_sm = spec.blocks_per_sm;
  const double cycles = fake_barrier_cycles(spec);
  const std::size_t samples = std::size_t{run.blocks_per_launch} * spec.launches;
  run.cycles_per_barrier.assign(samples, cycles);
  run.ns_per_barrier.assign(samples, cycles / kCyclesPerNs);
  return run;
}

SpillRun FakeStudyGpu::run_spill(const SpillSpec& spec) {
  SpillRun run;
  run.warps_per_launch = spec.threads_per_block / kWarpSize * spec.blocks_per_sm * kFakeSmCount;
  const double cycles = fake_spill_cycles(variants_.at(spec.variant), spec);
  const std::size_t samples = std::size_t{run.warps_per_launch} * spec.launches;
  run.cycles_per_iteration.assign(samples, cycles);
  run.ns_per_iteration.assign(samples, cycles / kCyclesPerNs);
  return run;
}

}  // namespace memtopo::study::testing
