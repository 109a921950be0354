#pragma once
// A fake GPU for the sync and spilling studies on a host: its barrier and spilling
// experiments return exact, noise-free timings from simple formulas, so a test knows every
// p50, ratio and slope the studies must find.
#include <map>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/study_kernels.hpp"

namespace memtopo::study::testing {

// Ground truth of the fake.
inline constexpr double kBarrierBaseCycles = 20;      // a block barrier of one warp, less a warp
inline constexpr double kBarrierCyclesPerWarp = 2;    // each warp of the block adds this
inline constexpr double kWarpBarrierCycles = 3;       // __syncwarp
inline constexpr double kGridBarrierCycles = 2000;    // grid sync
inline constexpr double kClusterCyclesPerBlock = 50;  // cluster barrier, per block of the cluster
inline constexpr double kCyclesPerNs = 2;             // a 2 GHz clock
inline constexpr double kSpillBaseCycles = 130;       // an iteration without spills
inline constexpr double kSpillCyclesPerByte = 0.5;    // each local byte per thread adds this
inline constexpr double kSmallL1SpillFactor = 2;      // ... times this with L1 at its smallest
inline constexpr std::uint32_t kFakeSmCount = 4;
inline constexpr std::uint32_t kFakeThreadsPerSm = 2048;

class FakeStudyGpu final : public Backend, public StudyKernels {
 public:
  FakeStudyGpu();
  std::string_view kind() const override { return "fake"; }
  const DeviceFacts& facts() const override { return facts_; }
  BackendLimits limits() const override { return {}; }
  std::vector<Trace> run(std::span<const ChaseSpec>) override { return {}; }
  StudyKernels* study_kernels() override { return this; }

  BarrierLimits barrier_limits(BarrierKind kind, std::uint32_t threads_per_block) override;
  BarrierRun run_barrier(const BarrierSpec& spec) override;
  const std::vector<SpillVariant>& spill_variants() override { return variants_; }
  std::uint32_t spill_max_blocks_per_sm(std::uint32_t, std::uint32_t threads) override {
    return kFakeThreadsPerSm / threads;
  }
  SpillRun run_spill(const SpillSpec& spec) override;
  std::string ptxas_counts_source() override { return "fake ptxas"; }

  // Barrier kinds the fake lacks, with the reason.
  std::map<BarrierKind, std::string> unsupported;

 private:
  DeviceFacts facts_;
  std::vector<SpillVariant> variants_;
};

// The fake's cycles per barrier and per iteration, as the tests expect them.
double fake_barrier_cycles(const BarrierSpec& spec);
double fake_spill_cycles(const SpillVariant& variant, const SpillSpec& spec);

}  // namespace memtopo::study::testing
