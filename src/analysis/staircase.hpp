#pragma once
// A latency staircase (thesis 004, 3.3): per-access latencies at ascending footprints, reduced
// to one series, cut into levels at its change points, every step tested and scored.
//
//   L1 hits ─────┐
//                └──── L1.5 hits ─────┐
//                                     └──── L2 hits ...
//
// Levels are plateaus of the reduced series; a step lies between footprint[i-1] (the last of
// the level before) and footprint[i] (the first of the level after). A gradual ramp (a cache
// whose replacement is not LRU misses more and more over several footprints) is one step,
// placed where the series crosses the midpoint of the two plateaus, with a confidence that
// drops with the share of the jump made outside that one interval.
//
// Also here: the split of one latency sample into two modes (near and far L2 partitions), the
// same change-point machinery applied to sorted samples.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/changepoint.hpp"
#include "analysis/kstest.hpp"
#include "analysis/reduction.hpp"
#include "model/topology.hpp"

namespace memtopo {

struct StaircaseOptions {
  Reduction reduction = Reduction::geometric;  // the series change points are searched on
  // Every trace is winsorised at this quantile before it is reduced: rare slow outliers
  // (interrupts, refreshes: ~0.1 % of accesses at +400 cycles) would otherwise lift the
  // quadratic mean of a 30-cycle level by several cycles, differently at every footprint.
  // A real level change makes more than 1 % of accesses slow, and then the quantile is slow too.
  double winsor_quantile = 0.99;
  ChangePointOptions change_points{};
  double ks_alpha = 0.05;
  // A jump of this many noise sigmas of the reduced series counts as fully clear (contrast 1).
  double clear_jump_sigmas = 10.0;
};

struct StaircaseLevel {
  std::size_t first = 0, last = 0;  // footprint indices, inclusive
  std::uint64_t from_bytes = 0, to_bytes = 0;
  double latency = 0;  // median of the per-footprint medians (cycles)
  double mean = 0;     // median of the per-footprint means: shifts exactly by a uniform penalty
  double reduced = 0;  // median of the reduced series over the level
  Spread spread;       // every access of the level's footprints, pooled
};

struct StaircaseStep {
  std::size_t index = 0;  // first footprint of the level after
  std::uint64_t before_bytes = 0, after_bytes = 0;
  double latency_before = 0, latency_after = 0;  // the two levels' plateau latencies
  double jump = 0;                               // reduced plateau after minus before (cycles)
  KsResult ks;              // trace at before_bytes against trace at after_bytes
  double significance = 0;  // 1 - KS p-value
  double contrast = 0;      // |jump| / (clear_jump_sigmas * noise), clamped to [0, 1]
  double sharpness = 0;     // share of the jump made between before_bytes and after_bytes
  double confidence = 0;    // significance * contrast * sharpness
};

struct Staircase {
  std::vector<std::uint64_t> footprints;
  // All three reductions, so evidence can compare them; `series` is the one analysed.
  // Each of the winsorised traces (see StaircaseOptions::winsor_quantile).
  std::vector<double> geometric, mean, rms_from_min;
  Reduction used = Reduction::geometric;
  std::vector<double> series;
  double noise_sigma = 0;                  // of `series`, as the change-point penalty uses it
  std::vector<std::size_t> change_points;  // PELT's, before ramps were merged
  std::vector<SeriesSegment> ramps;        // PELT's segments merged away as ramps
  std::vector<StaircaseLevel> levels;
  std::vector<StaircaseStep> steps;  // steps[k] lies between levels[k] and levels[k + 1]
};

// `cycles[i]` are the overhead-corrected per-access cycles at `footprints[i]` (ascending).
// Throws std::invalid_argument for sizes that differ, fewer than one footprint or an empty trace.
Staircase analyze_staircase(std::span<const std::uint64_t> footprints,
                            std::span<const std::vector<double>> cycles,
                            const StaircaseOptions& options = {});

std::string_view to_string(Reduction reduction);

struct ModeSplitOptions {
  double min_share = 0.05;             // each mode holds at least this share of the samples
  double min_separation_sigmas = 8.0;  // gap between the modes' medians in robust sigmas
  double min_noise = 1.0;              // sigma floor (cycles): the clock's resolution
};

// Two latency modes of one sample (e.g. near and far L2 partitions). The split is Opt's single
// change point of the sorted samples (least squares: Otsu's threshold); it is accepted when both
// modes hold a sizeable share and their medians lie many robust sigmas (1.4826 MAD, the larger
// of the two) apart, which jitter and rare outliers never do.
struct ModeSplit {
  bool bimodal = false;
  double threshold = 0;  // samples above it belong to the slow mode
  Spread fast, slow;     // the two modes (slow empty when unimodal: all in fast)
  double slow_share = 0;
  double separation_sigmas = 0;
  std::string reason;  // why it is or is not bimodal
};
ModeSplit split_two_modes(std::span<const double> samples, const ModeSplitOptions& options = {});

}  // namespace memtopo
