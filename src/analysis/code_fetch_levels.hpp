#pragma once
// Instruction-cache levels from cycles per instruction at growing code sizes (thesis 004, 6.2).
//
// The series is a staircase, but not one of latencies: its unit is cycles per instruction
// (about 1 while the code fits the nearest level), and a level's edge is a ramp more often than a
// step. On an H200 (docs/results/nvidia-h200/2026-11-24_171c0b4) the cost rose from 1.27 to 2.22
// over 33-39 KiB and from 2.22 to 5.65 over 128-146 KiB: each point of the ramp misses a little
// more, as a cache that does not evict the least recently used line does. So:
//   - the staircase's noise floor is in cycles per instruction (kCodeFetchNoiseFloor), not the
//     half cycle of a latency;
//   - steps separated only by ramp levels (levels spanning less than kRampOctaves, one step of the
//     coarse sweep) are one transition, whose size is the code before its first step: the
//     largest code that still ran at the level's speed, the onset of the ramp;
//   - a transition's confidence is its weakest step's KS significance times the whole jump's
//     contrast against the noise (the staircase's rules); the sharpness that a latency step is
//     charged for a ramp is not charged, because the size is the ramp's onset, not its middle.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/staircase.hpp"

namespace memtopo {

// Noise floor of the series (cycles per instruction): 1 % of a level at one instruction per
// cycle. Each point times at least 64 Ki instructions, so the clock's resolution is far finer.
inline constexpr double kCodeFetchNoiseFloor = 0.01;
// A level spanning less than this many octaves of code size is part of a ramp.
inline constexpr double kRampOctaves = 0.25;

struct CodeFetchTransition {
  std::uint64_t size_bytes = 0;          // the last code size at the faster level's speed
  std::uint64_t first_slower_bytes = 0;  // the first code size after the first step
  std::uint64_t ramp_end_bytes = 0;      // the first code size at the slower level's speed
  double cpi_before = 0, cpi_after = 0;  // the two plateaus (median of per-size medians)
  std::size_t steps = 0;                 // staircase steps merged into this transition
  double significance = 0;               // the weakest step's 1 - KS p-value
  double contrast = 0;                   // whole jump / (clear_jump_sigmas x noise), in [0, 1]
  double confidence = 0;                 // significance x contrast
  double ks_statistic = 0;               // of the first step
  std::size_t plateau_first = 0, plateau_last = 0;  // the faster level's size indices
};

struct CodeFetchLevels {
  Staircase staircase;
  std::vector<CodeFetchTransition> transitions;  // ascending code size, rising cost only
};

StaircaseOptions code_fetch_staircase_options();

// `cycles_per_instruction[i]`: the per-iteration samples at `code_bytes[i]` (ascending).
CodeFetchLevels analyze_code_fetch(std::span<const std::uint64_t> code_bytes,
                                   std::span<const std::vector<double>> cycles_per_instruction);

}  // namespace memtopo
