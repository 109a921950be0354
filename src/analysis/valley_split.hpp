#pragma once
// Two latency modes told apart by the empty stretch between them, where split_two_modes cannot
// tell them: broad modes with a long tail. On an H200 a cold DRAM chase answers near 540 cycles
// (lines behind the near L2 partition) and near 715 (the far one, about the L2's 180 cycles of
// far-hit latency slower), each 40 % of the loads, and 18 % spread out to 2000 cycles: the
// least-squares split cuts off that tail, and the near/far split is 6 robust sigmas wide, short
// of split_two_modes' 8. Between the two modes the histogram holds under 2 % of their peaks.
#include <span>

#include "analysis/staircase.hpp"

namespace memtopo {

struct ValleySplitOptions {
  double min_share = 0.05;            // each side of the valley holds at least this share
  double max_valley_ratio = 0.25;     // the valley's density against the lower of the two peaks
  double min_peak_fraction = 0.1;     // each peak at least this share of the highest bin
  double bins_per_iqr = 16;           // bin width: the interquartile range over this
  double min_noise = 1.0;             // the narrowest bin (cycles): the clock's resolution
  std::size_t min_peak_gap_bins = 4;  // the peaks at least this many bins apart
  std::size_t min_samples = 100;      // fewer: no histogram to read a valley from
  // The slow peak at least this share above the fast one: closer modes are described by one
  // number within the band every latency confidence counts in (kDescribedBand), and a histogram
  // of whole cycles has empty bins between its few values.
  double min_relative_gap = 0.1;
};

// The deepest valley of the samples' histogram (3-bin moving average over the p1-p99 range)
// between two peaks, each side holding min_share of the samples and each peak at least
// min_peak_fraction of the highest bin, the slow peak min_relative_gap above the fast one;
// bimodal when that valley holds at most max_valley_ratio of the lower peak. The modes are the
// samples either side of the valley (the slow one with any tail beyond it); `reason` names the
// valley and its depth. A unimodal sample, however long its tail, has no such valley: its
// density falls off one way.
ModeSplit split_at_valley(std::span<const double> samples, const ValleySplitOptions& options = {});

// How clearly two modes stand apart at `threshold`: the density there over the lower of the
// highest densities either side, on split_at_valley's histogram (the same bins and smoothing). 0
// when no sample lies between the modes; the split_at_valley valley it found when the threshold
// is one; 1 (no dip) when the samples give no histogram or a side has no peak.
double valley_ratio(std::span<const double> samples, double threshold,
                    const ValleySplitOptions& options = {});

// split_two_modes, or where it finds one mode, split_at_valley: the split every latency with
// near and far modes uses (latency probes, latency-pattern rows, dram.latency_tlb_miss).
ModeSplit split_latency_modes(std::span<const double> samples);

}  // namespace memtopo
