// Eviction sweeps, private segments and shared-memory reservations on a real GPU. No expected
// cycle counts: every hit/miss verdict compares with an L1 hit and an L2 hit measured by
// reference chases in the same batch, and every footprint derives from the device's facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "gpu_fixture.hpp"
#include "trace_helpers.hpp"

namespace memtopo::testing {
namespace {

using ChaseFeaturesOnGpu = GpuTest;

constexpr std::uint32_t kLineStride = 128;  // one load per 128-byte line, any L1 line size
constexpr std::uint64_t kSmallFootprint = 16 * 1024;  // fits any L1

// A warm chase on `path`: one load per line in random order, two warm passes, and timed loads
// that visit each line of a chaser's chain exactly once (a second visit of a line that
// missed would find it refilled and hit).
ChaseSpec warm_feature_chase(LoadPath path, std::uint64_t footprint, std::uint32_t chasers = 1) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint / kLineStride * kLineStride;
  spec.stride_bytes = kLineStride;
  spec.order = ChaseOrder::random_permutation;
  spec.seed = 7;
  spec.warm_passes = 2;
  spec.chasers = chasers;
  if (chasers > 1) {
    spec.private_segments = true;
    spec.schedule = ChaserSchedule::concurrent;
  }
  spec.timed_loads = static_cast<std::uint32_t>(chain_length(spec));
  return spec;
}

// The first two specs of every timing batch: an L1 hit (a small warm ca chase) and an L2 hit
// (a warm cg chase, which does not allocate in L1, over `l2_footprint`).
std::vector<ChaseSpec> reference_chases(std::uint64_t l2_footprint) {
  return {warm_feature_chase(LoadPath::ca, kSmallFootprint),
          warm_feature_chase(LoadPath::cg, l2_footprint)};
}

struct Reference {
  double hit = 0;  // p50 cycles of an L1 hit
  double l2 = 0;   // p50 cycles of an L2 hit
  // Half-way: below is a hit, above a miss served by L2.
  double threshold() const { return (hit + l2) / 2; }
};

Reference reference_of(const std::vector<Trace>& traces) {
  Reference reference{median_of(traces[0].cycles), median_of(traces[1].cycles)};
  std::cout << "reference p50 cycles: L1 hit " << reference.hit << ", L2 hit " << reference.l2
            << ", threshold " << reference.threshold() << "\n";
  return reference;
}

double chaser_median(const Trace& trace, const ChaseSpec& spec, std::uint32_t chaser) {
  return median_of(chaser_slice(trace.cycles, spec, chaser));
}

// Sweeps for the eviction tests: `footprint` bytes on `path`, a load per line, two passes.
EvictionSweep sweep_of(LoadPath path, std::uint64_t footprint) {
  return EvictionSweep{path, footprint, kLineStride, 2};
}

// Share of a chase's timed loads slower than the threshold: a sweep that evicts part of the
// chase shows here long before it moves the median.
double slow_share(const Trace& trace, double threshold) {
  const auto slow = std::count_if(trace.cycles.begin(), trace.cycles.end(),
                                  [&](std::uint32_t c) { return c > threshold; });
  return static_cast<double>(slow) / static_cast<double>(trace.cycles.size());
}

// Hopper's L1 resists scans: a sweep whose lines are never used again (a single pass, or a
// sweep larger than the L1) leaves a warm chase's lines in place (measured on an H100: 8 MiB
// x 16 passes evicted nothing of a 16 KiB chase). Lines the sweep reuses do compete, so the
// sweeps here fit the L1 on their own, are repeated 8 times, and together with the chase
// exceed it. The L1 size is not known here, so several sweep sizes between 0.6 and 0.95 of
// the shared memory per SM (the unified array holds at least that) are tried; at least one
// must evict a clear share of the chase, and the same sweeps through cg (no L1 allocation)
// and a 1 KiB sweep none.
TEST_F(ChaseFeaturesOnGpu, AnEvictionSweepEvictsTheL1OnlyWhenItFillsItOnAnL1Path) {
  const std::uint64_t shared_per_sm = backend().facts().shared_per_sm_bytes;
  ASSERT_GT(shared_per_sm, 0u) << "the device reports no shared memory per SM";
  const ChaseSpec chase = warm_feature_chase(LoadPath::ca, shared_per_sm / 4);
  std::vector<ChaseSpec> batch = reference_chases(kSmallFootprint);
  const std::vector<double> sweep_fractions = {0.6, 0.7, 0.8, 0.9, 0.95};
  for (const LoadPath path : {LoadPath::ca, LoadPath::cg}) {
    for (const double fraction : sweep_fractions) {
      ChaseSpec swept = chase;
      swept.eviction = EvictionSweep{
          path, static_cast<std::uint64_t>(fraction * shared_per_sm) / kLineStride * kLineStride,
          kLineStride, 8};
      batch.push_back(swept);
    }
  }
  ChaseSpec swept_tiny = chase;
  swept_tiny.eviction = EvictionSweep{LoadPath::ca, 1024, kLineStride, 8};
  batch.push_back(swept_tiny);

  const std::vector<Trace> traces = backend().run(batch);
  const Reference reference = reference_of(traces);
  ASSERT_LT(1.5 * reference.hit, reference.l2) << "no clear gap between an L1 and an L2 hit";
  const std::size_t n = sweep_fractions.size();
  double most_evicted_by_ca = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double by_ca = slow_share(traces[2 + i], reference.threshold());
    const double by_cg = slow_share(traces[2 + n + i], reference.threshold());
    std::cout << "sweep of " << sweep_fractions[i] << " x shared per SM, 8 passes: ca evicts "
              << by_ca << ", cg evicts " << by_cg << " of the chase\n";
    most_evicted_by_ca = std::max(most_evicted_by_ca, by_ca);
    EXPECT_LT(by_cg, 0.01) << "a cg sweep should not allocate in L1";
  }
  EXPECT_GT(most_evicted_by_ca, 0.1) << "no ca sweep that fits the L1 evicted the chase";
  EXPECT_LT(slow_share(traces.back(), reference.threshold()), 0.01)
      << "a 1 KiB sweep should leave the chase in L1";
  // The sweep does not move the chase: the timed loads go on where the warm passes ended.
  for (std::size_t i = 2; i < batch.size(); ++i) {
    EXPECT_EQ(traces[i].indices, expected_visits(batch[i])) << "spec " << i;
  }
}

TEST_F(ChaseFeaturesOnGpu, EverySweepPathRunsBetweenWarmAndTimedLoadsOnEveryChasePath) {
  std::vector<ChaseSpec> batch;
  for (const LoadPath chase_path :
       {LoadPath::ca, LoadPath::tex, LoadPath::constant, LoadPath::shared}) {
    for (const LoadPath sweep_path : {LoadPath::ca, LoadPath::cg, LoadPath::cv, LoadPath::nc,
                                      LoadPath::tex, LoadPath::constant}) {
      if (chase_path == LoadPath::constant && sweep_path == LoadPath::constant) continue;
      for (const ChaserSchedule schedule :
           {ChaserSchedule::sequential, ChaserSchedule::concurrent}) {
        ChaseSpec spec;
        spec.path = chase_path;
        spec.footprint_bytes = 8192;
        spec.stride_bytes = 64;
        spec.order = ChaseOrder::random_permutation;
        spec.seed = 3;
        spec.start_index = 64;
        spec.warm_passes = 1;
        spec.timed_loads = 300;
        spec.chasers = 2;
        spec.schedule = schedule;
        spec.eviction = EvictionSweep{sweep_path, 32 * 1024, 256, 3};
        batch.push_back(spec);
      }
    }
  }
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ChaseSpec& spec = batch[i];
    for (std::uint32_t chaser = 0; chaser < spec.chasers; ++chaser) {
      EXPECT_EQ(chaser_slice(traces[i].indices, spec, chaser), expected_visits(spec, chaser))
          << to_string(spec.path) << " chase, " << to_string(spec.eviction->path) << " sweep, "
          << (spec.schedule == ChaserSchedule::concurrent ? "concurrent" : "sequential")
          << ", chaser " << chaser;
    }
  }
}

TEST_F(ChaseFeaturesOnGpu, SweepsThatCannotRunAreRejected) {
  const BackendLimits limits = backend().limits();
  const auto rejected_for = [&](const ChaseSpec& spec, const std::string& reason) {
    try {
      backend().run(std::vector{spec});
      ADD_FAILURE() << "accepted a sweep that should fail on '" << reason << "'";
    } catch (const ExperimentError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  };
  ChaseSpec constant_sweep = warm_feature_chase(LoadPath::ca, 4096);
  constant_sweep.eviction =
      sweep_of(LoadPath::constant, limits.max_constant_footprint_bytes + 4096);
  rejected_for(constant_sweep, "constant bank");
  // 64 MiB of chase: a margin against the free memory moving between limits() and run().
  ChaseSpec too_much_memory = warm_feature_chase(LoadPath::ca, 64u << 20);
  too_much_memory.eviction = sweep_of(LoadPath::cg, limits.max_footprint_bytes / 128 * 128);
  rejected_for(too_much_memory, "together");
}

TEST_F(ChaseFeaturesOnGpu, PrivateSegmentsKeepEveryChaserInItsOwnSegment) {
  std::vector<ChaseSpec> batch;
  for (const LoadPath path : {LoadPath::ca, LoadPath::tex, LoadPath::constant, LoadPath::shared}) {
    for (const ChaserSchedule schedule : {ChaserSchedule::sequential, ChaserSchedule::concurrent}) {
      for (const ChaseOrder order : {ChaseOrder::sequential, ChaseOrder::random_permutation}) {
        ChaseSpec spec;
        spec.path = path;
        spec.footprint_bytes = 32 * 1024 + 100;  // segments rounded down to the stride
        spec.stride_bytes = 64;
        spec.order = order;
        spec.seed = 5;
        spec.start_index = 64;
        spec.warm_passes = 2;
        spec.timed_loads = 300;  // more than a segment's 128 elements: wraps around it
        spec.chasers = 4;
        spec.private_segments = true;
        spec.schedule = schedule;
        batch.push_back(spec);
      }
    }
  }
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ChaseSpec& spec = batch[i];
    const std::uint64_t segment_words = segment_bytes(spec) / 4;
    ASSERT_EQ(traces[i].indices.size(), std::size_t{spec.chasers} * spec.timed_loads);
    for (std::uint32_t chaser = 0; chaser < spec.chasers; ++chaser) {
      const std::vector<std::uint32_t> visited = chaser_slice(traces[i].indices, spec, chaser);
      const auto outside = std::count_if(visited.begin(), visited.end(), [&](std::uint32_t w) {
        return w / segment_words != chaser;
      });
      EXPECT_EQ(outside, 0) << "spec " << i << " (" << to_string(spec.path) << "), chaser "
                            << chaser << " left its segment";
      EXPECT_EQ(visited, expected_visits(spec, chaser)) << "spec " << i << ", chaser " << chaser;
    }
  }
}

TEST_F(ChaseFeaturesOnGpu, ConcurrentChasersOnPrivateSegmentsShareOneL1) {
  const std::uint64_t shared_per_sm = backend().facts().shared_per_sm_bytes;
  ASSERT_GT(shared_per_sm, 0u) << "the device reports no shared memory per SM";
  // With the smallest carveout the L1 holds at least the SM's shared memory (they are one
  // array, or the L1 is separate), and at most that plus a little: a segment of 3/4 of it
  // fits the L1 alone, four such segments are nearly three times the L1.
  const std::uint64_t alone = shared_per_sm * 3 / 4 / kLineStride * kLineStride;
  const std::uint64_t fitting_total = shared_per_sm / 2 / kLineStride * kLineStride;

  std::vector<ChaseSpec> batch = reference_chases(alone);
  batch.push_back(warm_feature_chase(LoadPath::ca, alone));             // [2] one chaser: fits
  batch.push_back(warm_feature_chase(LoadPath::ca, 4 * alone, 4));      // [3] 4 x `alone` at once
  batch.push_back(warm_feature_chase(LoadPath::ca, fitting_total, 4));  // [4] 4 segments that fit
  ASSERT_EQ(segment_bytes(batch[3]), alone);

  const std::vector<Trace> traces = backend().run(batch);
  const Reference reference = reference_of(traces);
  ASSERT_LT(1.5 * reference.hit, reference.l2) << "no clear gap between an L1 and an L2 hit";
  const double single = median_of(traces[2].cycles);
  std::cout << "p50 cycles of one chaser over " << alone << " B: " << single << "\n";
  ASSERT_LT(single, reference.threshold())
      << "precondition: " << alone << " B should fit the L1 of a single chaser";
  for (std::uint32_t chaser = 0; chaser < 4; ++chaser) {
    const double crowded = chaser_median(traces[3], batch[3], chaser);
    const double fitting = chaser_median(traces[4], batch[4], chaser);
    std::cout << "chaser " << chaser << " p50 cycles: 4 x " << alone << " B " << crowded << ", 4 x "
              << segment_bytes(batch[4]) << " B " << fitting << "\n";
    EXPECT_GT(crowded, reference.threshold())
        << "chaser " << chaser << ": four segments that only fit one at a time should miss";
    EXPECT_LT(fitting, reference.threshold())
        << "chaser " << chaser << ": four segments that fit together should hit";
  }
}

TEST_F(ChaseFeaturesOnGpu, ReservedSharedMemoryShrinksTheL1) {
  const DeviceFacts& facts = backend().facts();
  const BackendLimits limits = backend().limits();
  ASSERT_GT(facts.shared_per_sm_bytes, 0u) << "the device reports no shared memory per SM";
  // Most of what a block may opt in to.
  const std::uint64_t reserved = limits.max_reserved_shared_bytes;
  ASSERT_GT(reserved, facts.shared_per_block_optin_bytes * 3 / 4);
  // Fits the L1 with the smallest carveout (at least the SM's shared memory), but is several
  // times what the L1 keeps beside a block holding `reserved` bytes.
  const std::uint64_t footprint = facts.shared_per_sm_bytes / 2 / kLineStride * kLineStride;

  std::vector<ChaseSpec> batch = reference_chases(footprint);
  batch.push_back(warm_feature_chase(LoadPath::ca, footprint));  // [2] nothing reserved
  ChaseSpec reserving = warm_feature_chase(LoadPath::ca, footprint);
  reserving.reserved_shared_bytes = static_cast<std::uint32_t>(reserved);
  batch.push_back(reserving);  // [3]

  const std::vector<Trace> traces = backend().run(batch);
  const Reference reference = reference_of(traces);
  ASSERT_LT(1.5 * reference.hit, reference.l2) << "no clear gap between an L1 and an L2 hit";
  const double unreserved = median_of(traces[2].cycles);
  const double with_reservation = median_of(traces[3].cycles);
  std::cout << "p50 cycles over " << footprint << " B: nothing reserved " << unreserved << ", "
            << reserved << " B reserved " << with_reservation << "\n";
  ASSERT_LT(unreserved, reference.threshold())
      << "precondition: " << footprint << " B should fit the L1 with nothing reserved";
  EXPECT_GT(with_reservation, reference.threshold())
      << "reserving " << reserved << " B of shared memory should leave too little L1";
  EXPECT_EQ(traces[3].indices, expected_visits(batch[3]));
}

TEST_F(ChaseFeaturesOnGpu, ReservationsUpToTheLimitRunAndBeyondItAreRejected) {
  const DeviceFacts& facts = backend().facts();
  const BackendLimits limits = backend().limits();
  ASSERT_GT(limits.max_reserved_shared_bytes, 0u);
  ASSERT_LT(limits.max_reserved_shared_bytes, facts.shared_per_block_optin_bytes);
  const auto reserving = [](LoadPath path, std::uint64_t bytes) {
    ChaseSpec spec;
    spec.path = path;
    spec.footprint_bytes = 8192;
    spec.stride_bytes = 64;
    spec.order = ChaseOrder::random_permutation;
    spec.timed_loads = 600;
    spec.reserved_shared_bytes = static_cast<std::uint32_t>(bytes);
    return spec;
  };
  // On the shared path the chain (8 KiB here) counts against the reservation.
  const std::vector<ChaseSpec> batch = {
      reserving(LoadPath::ca, limits.max_reserved_shared_bytes), reserving(LoadPath::ca, 32 * 1024),
      reserving(LoadPath::shared, limits.max_reserved_shared_bytes - 8192),
      reserving(LoadPath::tex, 1024)};
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(traces[i].indices, expected_visits(batch[i])) << "spec " << i;
  }

  const auto rejected_naming_the_numbers = [&](const ChaseSpec& spec) {
    try {
      backend().run(std::vector{spec});
      ADD_FAILURE() << "accepted a reservation of " << spec.reserved_shared_bytes << " bytes";
    } catch (const ExperimentError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::to_string(spec.reserved_shared_bytes)), std::string::npos)
          << message;
      EXPECT_NE(message.find(std::to_string(facts.shared_per_block_optin_bytes)), std::string::npos)
          << message;
    }
  };
  rejected_naming_the_numbers(reserving(LoadPath::ca, limits.max_reserved_shared_bytes + 4));
  rejected_naming_the_numbers(reserving(LoadPath::shared, limits.max_reserved_shared_bytes - 8188));
}

}  // namespace
}  // namespace memtopo::testing
