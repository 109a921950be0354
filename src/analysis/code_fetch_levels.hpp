#pragma once
// Instruction-cache levels from cycles per instruction at growing code sizes (thesis 004, 6.2).
//
// The series is a staircase, but not one of latencies: its unit is cycles per instruction
// (about 1 while the code fits the nearest level), and a level's edge is a ramp more often than a
// step. On an H200 (docs/results/nvidia-h200/2026-11-24_171c0b4 and _7ec9471) the cost rose from
// 1.27 to 2.22 over 33-39 KiB and from 2.22 to 5.65 over 128-146 KiB: each size misses a little
// more, as a cache that does not evict the least recently used line does. So:
//   - the change points (PELT, as for the data caches) are searched on the per-size medians with
//     a noise floor in cycles per instruction (kCodeFetchNoiseFloor), not the half cycle of a
//     latency;
//   - a segment between change points spanning at least kRampOctaves (one step of the coarse
//     sweep) is a plateau, a level; shorter ones are pieces of a ramp. Two consecutive plateaus
//     make one transition: its size is the last code size of the faster plateau (the largest code
//     that still ran at the level's speed, the ramp's onset);
//   - a transition's confidence = the KS significance of the faster plateau's last samples
//     against the slower plateau's first, times the contrast of the plateaus' difference against
//     10 noise sigmas (the staircase's rules). The generic staircase's ramp merging and sharpness
//     are not used: with them the H200 series gave no level (171c0b4), or lost the 24 KiB one
//     once more sizes were measured inside it (7ec9471).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace memtopo {

// Noise floor of the series (cycles per instruction): 1 % of a level at one instruction per
// cycle. Each size times at least 64 Ki instructions, so the clock's resolution is far finer.
inline constexpr double kCodeFetchNoiseFloor = 0.01;
// A segment spanning less than this many octaves of code size is a piece of a ramp.
inline constexpr double kRampOctaves = 0.25;
// A difference of this many noise sigmas between two plateaus counts as fully clear.
inline constexpr double kCodeFetchClearSigmas = 10;
// Neighbouring plateaus whose levels differ by less than this share of the clear difference are
// one level (a step there would have a contrast, and a confidence, below one half).
inline constexpr double kSameLevelContrast = 0.5;

struct CodeFetchTransition {
  std::uint64_t size_bytes = 0;          // the last code size at the faster level's speed
  std::uint64_t first_slower_bytes = 0;  // the next code size measured
  std::uint64_t ramp_end_bytes = 0;      // the first code size at the slower level's speed
  double cpi_before = 0, cpi_after = 0;  // the two plateaus (median of per-size medians)
  std::size_t ramp_sizes = 0;            // code sizes between the two plateaus
  double significance = 0;               // 1 - KS p-value, last faster against first slower
  double contrast = 0;                   // plateau difference / (10 noise sigmas), in [0, 1]
  double confidence = 0;                 // significance x contrast
  double ks_statistic = 0;
  std::size_t plateau_first = 0, plateau_last = 0;  // the faster level's size indices
  std::size_t slower_first = 0, slower_last = 0;    // the slower level's size indices
};

struct CodeFetchLevels {
  std::vector<double> medians;  // per code size
  double noise_sigma = 0;
  std::vector<std::size_t> change_points;
  std::vector<CodeFetchTransition> transitions;  // ascending code size, rising cost only
};

// `cycles_per_instruction[i]`: the per-iteration samples at `code_bytes[i]` (ascending). Throws
// std::invalid_argument for sizes that differ, no sizes, or an empty sample.
CodeFetchLevels analyze_code_fetch(std::span<const std::uint64_t> code_bytes,
                                   std::span<const std::vector<double>> cycles_per_instruction);

}  // namespace memtopo
