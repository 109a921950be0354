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

// Whether the plateau in front of a transition (the level's own: the code sizes that ran at its
// speed) is flat: every size's median within `band` of the plateau's level, `band` being half
// the clear difference (kSameLevelContrast x kCodeFetchClearSigmas noise sigmas, 0.05 cycles per
// instruction at the noise floor): points that differ more from the level than two plateaus that
// count as one level are not one level. On an H200 the "L1" plateau read 1.21-1.30 around 1.28
// (its first size half-way up the ramp from 1.09, the rest falling), the others within 0.01-0.02.
struct PlateauFlatness {
  double level = 0;     // the plateau's cycles per instruction (the transition's cpi_before)
  double lowest = 0;    // the smallest and largest per-size median on it
  double highest = 0;
  double band = 0;      // the largest deviation from `level` a flat plateau has
  bool flat = false;
};
PlateauFlatness plateau_flatness(const CodeFetchLevels& levels, const CodeFetchTransition& t);

// The transition of `repetition` (the analysis of one SM's, one code layout's series) that shows
// the same step as `step`: of confidence at least `min_confidence`, a rise, its size within
// kRampOctaves (one step of the coarse sweep) of `step`'s. nullptr when there is none.
const CodeFetchTransition* repeated_step(const CodeFetchTransition& step,
                                         const CodeFetchLevels& repetition,
                                         double min_confidence);

// Whether a step of the pooled series is a cache level: its plateau is flat, and the same step
// shows in the series of every repetition (each SM and each code layout measured on its own),
// of which there are at least two. Otherwise the level is inconclusive, with this as evidence.
struct LevelVerdict {
  PlateauFlatness flatness;
  // Per repetition, in order: its step matching this one (repeated_step), or nullptr.
  std::vector<const CodeFetchTransition*> repeats;
  std::size_t repeated = 0;  // repetitions that showed the step
  bool conclusive = false;
};
LevelVerdict judge_level(const CodeFetchLevels& pooled, const CodeFetchTransition& step,
                         std::span<const CodeFetchLevels> repetitions, double min_confidence);

}  // namespace memtopo
