#pragma once
// Which L2 partition is near each SM, from cross-SM first touches (backend/l2_first_touch.hpp).
// In each launch one SM (the warmer) loads lines another SM wrote, and every other SM times its
// first load of its own lines: all near when it shares the warmer's partition; otherwise part
// of them far. Launch by
// launch, a warmer that was far in every earlier launch opens a new partition; every SM then
// joins the partition whose launches its answers agree with most.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/staircase.hpp"

namespace memtopo {

// One reader's overhead-corrected cycles, per line.
struct ReaderFirstTouch {
  std::uint32_t sm = 0;
  std::vector<double> first;
  std::vector<double> second;
};

struct FirstTouchLaunch {
  std::uint32_t warmer_sm = 0;
  std::vector<ReaderFirstTouch> readers;
};

enum class TouchVerdict { near, far, mixed };
const char* to_string(TouchVerdict verdict);

// A reader is near when at most kNearShareLimit of its lines answered far, far when at least
// kFarShareLimit did, mixed between. Far readers find only part of their lines far: on an H100
// about half (those homed in the other partition), so "far" starts well below one half.
inline constexpr double kNearShareLimit = 0.1;
inline constexpr double kFarShareLimit = 0.25;
// Two modes 6 robust sigmas apart, not the default 8: a far first touch spreads over 400-500
// cycles, which widens the far mode's sigma; on an H200 the modes lay 7.5 sigmas apart with no
// line between 320 and 400 cycles among 8,384. The verdicts and their agreement guard the rest.
inline constexpr ModeSplitOptions kFirstTouchModes{0.05, 6.0, 1.0};

struct SmPartition {
  std::uint32_t sm = 0;
  std::optional<std::uint32_t> partition;  // none: unclear
  std::size_t agreeing = 0;                // verdicts (launches it read in) agreeing with it
  std::size_t verdicts = 0;                // near or far verdicts it gave
};

struct PartitionMap {
  // Of every first touch of every launch, or of the readers' medians where only those split.
  ModeSplit split;
  // Per launch: the warmer's partition (none when the warmer is unclear) and each reader's verdict.
  std::vector<std::optional<std::uint32_t>> warmer_partition;
  std::vector<std::vector<TouchVerdict>> verdicts;  // [launch][reader], readers in launch order
  std::vector<std::vector<std::uint32_t>> partitions;  // SMs per partition, sorted
  std::vector<SmPartition> sms;                        // every SM seen, sorted by id
  std::vector<std::uint32_t> unclear;                  // SMs in no partition
  std::size_t mixed = 0;                               // mixed verdicts, all launches
  std::size_t total_verdicts = 0;                      // reader verdicts, all launches
  std::size_t agreeing = 0;                            // near/far verdicts agreeing with the map
  std::size_t checked = 0;                             // near/far verdicts of assigned SMs
  // No reader was near in any of two or more launches: lines answer by their address, not by
  // the side of the SM that loaded them (inconclusive; more launches would not help).
  bool by_address = false;
  bool conclusive = false;
  std::string reason;  // why not conclusive, or what the map rests on
};

PartitionMap map_partitions(std::span<const FirstTouchLaunch> launches);

// The SM a next launch should warm from, or nullopt when the map needs none: first an SM that
// was far in every launch so far (a partition no warmer was in yet), then, for each partition
// with more than one SM, a member that has not warmed yet (a check of the partition), then a
// member of the partition of each SM that disagrees with its map (it is measured again).
// `max_launches` caps the whole sequence.
std::optional<std::uint32_t> next_warmer(const PartitionMap& map,
                                         std::span<const FirstTouchLaunch> launches,
                                         std::size_t max_launches);

// "0-3, 8, 10-12": sorted SM ids as ranges.
std::string sm_ranges(std::span<const std::uint32_t> sms);

}  // namespace memtopo
