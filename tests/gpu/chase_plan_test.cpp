// How the CUDA backend splits a batch into launches (host logic; no GPU needed).
#include "backend/cuda/chase_plan.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

const std::vector<std::uint32_t> kSms = {0, 1, 2, 3};

ChaseSpec spec_on(LoadPath path, std::optional<std::uint32_t> sm = std::nullopt) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = 4096;
  spec.sm = sm;
  return spec;
}

std::set<std::uint32_t> sms_of(const PlannedLaunch& launch) {
  std::set<std::uint32_t> sms;
  for (const auto& job : launch.jobs) sms.insert(job.sm_id);
  return sms;
}

std::size_t jobs_in(const std::vector<PlannedLaunch>& plan) {
  std::size_t count = 0;
  for (const auto& launch : plan) count += launch.jobs.size();
  return count;
}

TEST(ChasePlan, UnpinnedSpecsShareALaunchOnDistinctSms) {
  const std::vector<ChaseSpec> batch(4, spec_on(LoadPath::ca));
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(sms_of(plan[0]), (std::set<std::uint32_t>{0, 1, 2, 3}));
}

TEST(ChasePlan, MoreSpecsThanSmsNeedMoreLaunches) {
  const std::vector<ChaseSpec> batch(9, spec_on(LoadPath::cg));
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(jobs_in(plan), 9u);
  for (const auto& launch : plan) EXPECT_EQ(sms_of(launch).size(), launch.jobs.size());
}

TEST(ChasePlan, PinnedSpecsGetTheirSmAndKeepItFromOthers) {
  const std::vector<ChaseSpec> batch = {spec_on(LoadPath::ca), spec_on(LoadPath::ca, 0),
                                        spec_on(LoadPath::ca, 0), spec_on(LoadPath::ca)};
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 2u) << "two specs pinned to SM 0 need two launches";
  for (const auto& launch : plan) {
    EXPECT_EQ(sms_of(launch).size(), launch.jobs.size());
    for (const auto& job : launch.jobs) {
      if (batch[job.spec_index].sm) {
        EXPECT_EQ(job.sm_id, *batch[job.spec_index].sm);
      }
    }
  }
  // The unpinned specs fit beside the first pinned one, on other SMs.
  EXPECT_EQ(plan[0].jobs.size(), 3u);
}

TEST(ChasePlan, PathsAndFlushSettingsDoNotShareLaunches) {
  ChaseSpec flushed = spec_on(LoadPath::ca);
  flushed.flush_device_caches = true;
  const std::vector<ChaseSpec> batch = {spec_on(LoadPath::ca), spec_on(LoadPath::tex), flushed,
                                        spec_on(LoadPath::ca)};
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].path, LoadPath::ca);
  EXPECT_FALSE(plan[0].flush_device_caches);
  EXPECT_EQ(plan[0].jobs.size(), 2u);
  EXPECT_EQ(plan[1].path, LoadPath::tex);
  EXPECT_TRUE(plan[2].flush_device_caches);
}

TEST(ChasePlan, DifferentSharedReservationsDoNotShareLaunches) {
  ChaseSpec reserving = spec_on(LoadPath::ca);
  reserving.reserved_shared_bytes = 64 * 1024;
  ChaseSpec reserving_more = spec_on(LoadPath::ca);
  reserving_more.reserved_shared_bytes = 128 * 1024;
  const std::vector<ChaseSpec> batch = {spec_on(LoadPath::ca), reserving, reserving_more, reserving,
                                        spec_on(LoadPath::ca)};
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].reserved_shared_bytes, 0u);
  EXPECT_EQ(plan[1].reserved_shared_bytes, 64u * 1024);
  EXPECT_EQ(plan[2].reserved_shared_bytes, 128u * 1024);
  EXPECT_EQ(plan[0].jobs.size(), 2u);
  EXPECT_EQ(plan[1].jobs.size(), 2u) << "equal reservations share a launch";
  EXPECT_EQ(plan[2].jobs.size(), 1u);
  for (const auto& launch : plan) {
    for (const auto& job : launch.jobs) {
      EXPECT_EQ(batch[job.spec_index].reserved_shared_bytes, launch.reserved_shared_bytes);
    }
  }
}

TEST(ChasePlan, AConstantEvictionSweepHasTheConstantBankToItself) {
  ChaseSpec swept = spec_on(LoadPath::ca);
  swept.eviction = EvictionSweep{LoadPath::constant, 4096, 128, 1};
  ChaseSpec texture_swept = spec_on(LoadPath::ca);
  texture_swept.eviction = EvictionSweep{LoadPath::tex, 4096, 128, 1};
  EXPECT_TRUE(uses_constant_bank(swept));
  EXPECT_TRUE(uses_constant_bank(spec_on(LoadPath::constant)));
  EXPECT_FALSE(uses_constant_bank(texture_swept));
  const std::vector<ChaseSpec> batch = {spec_on(LoadPath::ca), swept, swept, texture_swept};
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].jobs.size(), 2u) << "the tex sweep may share a launch with a plain chase";
  EXPECT_EQ(plan[1].jobs.size(), 1u);
  EXPECT_EQ(plan[2].jobs.size(), 1u);
}

TEST(ChaseCarveout, IsTheSmallestPercentageHoldingTheBlock) {
  const std::uint64_t sm = 233472;  // 228 KiB
  EXPECT_EQ(smallest_carveout_percent(0, sm), 0);
  EXPECT_EQ(smallest_carveout_percent(1, sm), 1);
  EXPECT_EQ(smallest_carveout_percent(sm / 2, sm), 50);
  EXPECT_EQ(smallest_carveout_percent(sm / 2 + 1, sm), 51);
  EXPECT_EQ(smallest_carveout_percent(sm, sm), 100);
  EXPECT_EQ(smallest_carveout_percent(2 * sm, sm), 100) << "never above 100";
  // 227 KiB opt-in plus the 1 KiB the SM reserves per block: all of it.
  EXPECT_EQ(smallest_carveout_percent(232448 + 1024, sm), 100);
  for (std::uint64_t block = 1024; block <= sm; block += 4093) {
    const int percent = smallest_carveout_percent(block, sm);
    EXPECT_GE(blocks_in_carveout(percent, block, sm), 1u) << block << " bytes, " << percent << "%";
    if (percent > 0) {
      EXPECT_EQ(blocks_in_carveout(percent - 1, block, sm), 0u) << "not the smallest: " << block;
    }
  }
  EXPECT_THROW(smallest_carveout_percent(1024, 0), std::invalid_argument);
}

TEST(ChaseCarveout, CountsTheBlocksItHolds) {
  const std::uint64_t sm = 100000;
  EXPECT_EQ(blocks_in_carveout(100, 30000, sm), 3u);
  EXPECT_EQ(blocks_in_carveout(50, 30000, sm), 1u);
  EXPECT_EQ(blocks_in_carveout(20, 30000, sm), 0u);
  EXPECT_THROW(blocks_in_carveout(50, 0, sm), std::invalid_argument);
}

TEST(ChasePlan, TheConstantPathRunsOneJobPerLaunch) {
  const std::vector<ChaseSpec> batch(3, spec_on(LoadPath::constant));
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  for (const auto& launch : plan) EXPECT_EQ(launch.jobs.size(), 1u);
}

TEST(ChasePlan, ArraysCountRoundedToTwoMiBAndNothingInTheConstantBank) {
  constexpr std::uint64_t kMiB = 1ull << 20;
  EXPECT_EQ(launch_array_bytes(spec_on(LoadPath::ca)), 2 * kMiB);
  EXPECT_EQ(launch_array_bytes(spec_on(LoadPath::shared)), 2 * kMiB) << "copied from global";
  EXPECT_EQ(launch_array_bytes(spec_on(LoadPath::constant)), 0u);
  ChaseSpec swept = spec_on(LoadPath::cg);
  swept.footprint_bytes = 6 * kMiB + 4;
  swept.eviction = EvictionSweep{LoadPath::tex, 3 * kMiB, 128, 1};
  EXPECT_EQ(launch_array_bytes(swept), 8 * kMiB + 4 * kMiB);
  swept.eviction->path = LoadPath::constant;
  EXPECT_EQ(launch_array_bytes(swept), 8 * kMiB);
}

TEST(ChasePlan, LaunchesKeepTheirArraysWithinTheBudget) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  ChaseSpec huge = spec_on(LoadPath::ca);
  huge.footprint_bytes = 4 * kGiB;
  ChaseSpec swept = huge;
  swept.eviction = EvictionSweep{LoadPath::nc, 4 * kGiB, 4096, 1};
  ChaseSpec too_large = huge;
  too_large.footprint_bytes = 12 * kGiB;
  // 4 + 4 fit a 10 GiB budget, a third does not; the swept spec is 8 GiB on its own.
  const std::vector<ChaseSpec> batch = {huge, huge, huge, swept, too_large, huge};
  const auto plan = plan_launches(batch, kSms, 10 * kGiB);
  EXPECT_EQ(jobs_in(plan), batch.size());
  for (const auto& launch : plan) {
    std::uint64_t bytes = 0;
    for (const auto& job : launch.jobs) bytes += launch_array_bytes(batch[job.spec_index]);
    if (launch.jobs.size() > 1) {
      EXPECT_LE(bytes, 10 * kGiB);
    }
    EXPECT_EQ(sms_of(launch).size(), launch.jobs.size());
  }
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].jobs.size(), 2u);
  EXPECT_EQ(plan[1].jobs.size(), 2u) << "the third 4 GiB spec and the last one";
  EXPECT_EQ(plan[2].jobs.size(), 1u) << "the swept spec fills a budget with no room for 4 GiB";
  EXPECT_EQ(plan[3].jobs.size(), 1u) << "over the budget alone: a launch of its own";
  // Without a budget all of them share one launch (4 SMs, 6 specs: two launches).
  EXPECT_EQ(plan_launches(batch, kSms).size(), 2u);
}

TEST(ChasePlan, SmIdsNeedNotBeContiguous) {
  const std::vector<std::uint32_t> sparse = {2, 5, 9};
  const std::vector<ChaseSpec> batch(3, spec_on(LoadPath::nc));
  const auto plan = plan_launches(batch, sparse);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(sms_of(plan[0]), (std::set<std::uint32_t>{2, 5, 9}));
}

}  // namespace
}  // namespace memtopo
