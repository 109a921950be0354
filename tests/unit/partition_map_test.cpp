// The L2 partition map from cross-SM first touches (analysis/partition_map.hpp), on synthetic
// launches whose truth is known: which partition is near each SM, and how an SM answers.
#include "analysis/partition_map.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <vector>

namespace memtopo {
namespace {

constexpr double kNear = 280;
constexpr double kFar = 420;
constexpr std::size_t kLines = 32;
constexpr std::size_t kMaxLaunches = 8;

// Whether `reader`'s line `line` answers far when `warmer` brought it in.
using FarRule = std::function<bool(std::uint32_t warmer, std::uint32_t reader, std::size_t line)>;

FirstTouchLaunch launch_of(std::uint32_t warmer, std::uint32_t sms, const FarRule& far) {
  FirstTouchLaunch launch;
  launch.warmer_sm = warmer;
  for (std::uint32_t sm = 0; sm < sms; ++sm) {
    if (sm == warmer) continue;
    ReaderFirstTouch reader;
    reader.sm = sm;
    for (std::size_t i = 0; i < kLines; ++i) {
      // A little jitter, so that the two modes have a spread.
      const double jitter = static_cast<double>((sm * 7 + i * 3) % 9) - 4;
      reader.first.push_back((far(warmer, sm, i) ? kFar : kNear) + jitter);
      reader.second.push_back(kNear + jitter);
    }
    launch.readers.push_back(reader);
  }
  return launch;
}

// Launches as the probe makes them: from SM 0, then wherever next_warmer says.
std::vector<FirstTouchLaunch> run_sequence(std::uint32_t sms, const FarRule& far) {
  std::vector<FirstTouchLaunch> launches{launch_of(0, sms, far)};
  for (;;) {
    const auto next = next_warmer(map_partitions(launches), launches, kMaxLaunches);
    if (!next) return launches;
    launches.push_back(launch_of(*next, sms, far));
  }
}

FarRule by_partition(const std::vector<std::uint32_t>& partition_of) {
  return [partition_of](std::uint32_t warmer, std::uint32_t reader, std::size_t) {
    return partition_of[warmer] != partition_of[reader];
  };
}

// The map as a set of groups: partition numbers do not matter, which SMs share one does.
std::vector<std::vector<std::uint32_t>> groups_of(const std::vector<std::uint32_t>& partition_of) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> by;
  for (std::uint32_t sm = 0; sm < partition_of.size(); ++sm) by[partition_of[sm]].push_back(sm);
  std::vector<std::vector<std::uint32_t>> groups;
  for (auto& [partition, sms] : by) groups.push_back(sms);
  std::sort(groups.begin(), groups.end());
  return groups;
}

std::vector<std::vector<std::uint32_t>> sorted(std::vector<std::vector<std::uint32_t>> groups) {
  std::sort(groups.begin(), groups.end());
  return groups;
}

const std::vector<std::uint32_t> kTwoHalves = {0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1,
                                               0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};

TEST(PartitionMap, TwoPartitionsAreFoundAndEachCheckedFromASecondWarmer) {
  const auto launches = run_sequence(24, by_partition(kTwoHalves));
  ASSERT_EQ(launches.size(), 4u);  // SM 0, the first far SM, then one more of each partition
  EXPECT_EQ(launches[1].warmer_sm, 2u);
  const PartitionMap map = map_partitions(launches);
  ASSERT_TRUE(map.conclusive) << map.reason;
  EXPECT_EQ(sorted(map.partitions), groups_of(kTwoHalves));
  EXPECT_TRUE(map.unclear.empty());
  EXPECT_EQ(map.agreeing, map.checked);
  EXPECT_EQ(map.checked, 4u * 23u);
  EXPECT_NEAR(map.split.fast.p50, kNear, 4);
  EXPECT_NEAR(map.split.slow.p50, kFar, 4);
}

// As an H100 answered (docs/results/nvidia-h100/2026-11-24_partition-map-lines): readers on
// the warmer's side find every line near; readers on the other side find about half of their
// lines far (those homed, by address, on the warmer's side).
TEST(PartitionMap, ReadersOnTheOtherSideFindHalfTheirLinesFar) {
  const FarRule half = [](std::uint32_t warmer, std::uint32_t reader, std::size_t line) {
    return kTwoHalves[warmer] != kTwoHalves[reader] && (line * 7 + reader) % 2 == 0;
  };
  const auto launches = run_sequence(24, half);
  ASSERT_EQ(launches.size(), 4u);
  const PartitionMap map = map_partitions(launches);
  ASSERT_TRUE(map.conclusive) << map.reason;
  EXPECT_EQ(sorted(map.partitions), groups_of(kTwoHalves));
  EXPECT_EQ(map.mixed, 0u);
}

TEST(PartitionMap, ThreePartitionsNeedAWarmerInEach) {
  const std::vector<std::uint32_t> truth = {0, 1, 2, 2, 1, 0, 0, 2, 1, 1, 2, 0,
                                            2, 2, 0, 1, 0, 1, 2, 0, 1, 1, 0, 2};
  const auto launches = run_sequence(24, by_partition(truth));
  EXPECT_EQ(launches.size(), 6u);
  const PartitionMap map = map_partitions(launches);
  ASSERT_TRUE(map.conclusive) << map.reason;
  EXPECT_EQ(sorted(map.partitions), groups_of(truth));
}

// As SM 124 on an H200: near for some warmers of the other partition, far for others. It is
// measured again, and it stays out of both partitions if its answers do not settle.
TEST(PartitionMap, AnSmThatAnswersByTheWarmerIsMeasuredAgainAndLeftUnclear) {
  const std::uint32_t odd = 11;  // in partition 1 by the table; answers near to even warmers
  const FarRule far = [&](std::uint32_t warmer, std::uint32_t reader, std::size_t line) {
    if (reader == odd) return warmer % 2 != 0;
    return by_partition(kTwoHalves)(warmer, reader, line);
  };
  const auto launches = run_sequence(24, far);
  EXPECT_EQ(launches.size(), 6u);  // 4, then 2 to measure SM 11 again
  const PartitionMap map = map_partitions(launches);
  ASSERT_TRUE(map.conclusive) << map.reason;
  EXPECT_EQ(map.unclear, std::vector<std::uint32_t>{odd});
  EXPECT_LT(map.agreeing, map.checked);
  for (const auto& partition : map.partitions) {
    EXPECT_EQ(std::count(partition.begin(), partition.end(), odd), 0);
  }
}

// Lines with a home partition by address: every reader finds some near and some far.
TEST(PartitionMap, LinesThatAnswerByAddressGiveNoMap) {
  const FarRule by_address = [](std::uint32_t, std::uint32_t reader, std::size_t line) {
    return (line + reader) % 2 == 1;
  };
  const std::vector<FirstTouchLaunch> launches = {launch_of(0, 16, by_address),
                                                  launch_of(5, 16, by_address)};
  const PartitionMap map = map_partitions(launches);
  EXPECT_FALSE(map.conclusive);
  for (const auto& launch : map.verdicts) {
    EXPECT_EQ(std::count(launch.begin(), launch.end(), TouchVerdict::near), 0);
  }
  EXPECT_NE(map.reason.find("their address"), std::string::npos) << map.reason;
  EXPECT_FALSE(next_warmer(map, launches, kMaxLaunches).has_value());
}

TEST(PartitionMap, FirstTouchesThatAnswerAlikeAreOnePartitionCheckedOnce) {
  const FarRule never = [](std::uint32_t, std::uint32_t, std::size_t) { return false; };
  const auto launches = run_sequence(16, never);
  ASSERT_EQ(launches.size(), 2u);
  const PartitionMap map = map_partitions(launches);
  ASSERT_TRUE(map.conclusive) << map.reason;
  ASSERT_EQ(map.partitions.size(), 1u);
  EXPECT_EQ(map.partitions[0].size(), 16u);
  EXPECT_FALSE(map.split.bimodal);
}

// As the H200 answered the first version of the probe: readers' medians in three clusters
// (about 290, 360 and 415 cycles), no two modes 8 sigmas apart, yet far from one mode.
TEST(PartitionMap, FirstTouchesSpreadWithoutTwoModesAreNoAnswer) {
  const FarRule unused = [](std::uint32_t, std::uint32_t, std::size_t) { return false; };
  std::vector<FirstTouchLaunch> launches = {launch_of(0, 40, unused), launch_of(9, 40, unused)};
  for (FirstTouchLaunch& launch : launches) {
    for (ReaderFirstTouch& reader : launch.readers) {
      const double level = reader.sm % 3 == 0 ? 290 : reader.sm % 3 == 1 ? 360 : 415;
      for (std::size_t i = 0; i < reader.first.size(); ++i) {
        reader.first[i] = level + static_cast<double>((reader.sm * 5 + i * 7) % 41) - 20;
      }
    }
  }
  const PartitionMap map = map_partitions(launches);
  EXPECT_FALSE(map.split.bimodal);
  EXPECT_FALSE(map.conclusive);
  EXPECT_TRUE(map.partitions.empty());
  EXPECT_NE(map.reason.find("neither one partition nor a map"), std::string::npos) << map.reason;
}

TEST(PartitionMap, NoLaunchesNoMap) {
  const PartitionMap map = map_partitions({});
  EXPECT_FALSE(map.conclusive);
  EXPECT_TRUE(map.partitions.empty());
}

TEST(PartitionMap, SmRangesJoinRuns) {
  EXPECT_EQ(sm_ranges(std::vector<std::uint32_t>{0, 1, 2, 3, 8, 10, 11, 12}), "0-3, 8, 10-12");
  EXPECT_EQ(sm_ranges(std::vector<std::uint32_t>{}), "");
  EXPECT_EQ(sm_ranges(std::vector<std::uint32_t>{7}), "7");
}

}  // namespace
}  // namespace memtopo
