// How the CUDA backend splits a batch into launches (host logic; no GPU needed).
#include "backend/cuda/chase_plan.hpp"

#include <gtest/gtest.h>

#include <set>
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

TEST(ChasePlan, TheConstantPathRunsOneJobPerLaunch) {
  const std::vector<ChaseSpec> batch(3, spec_on(LoadPath::constant));
  const auto plan = plan_launches(batch, kSms);
  ASSERT_EQ(plan.size(), 3u);
  for (const auto& launch : plan) EXPECT_EQ(launch.jobs.size(), 1u);
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
