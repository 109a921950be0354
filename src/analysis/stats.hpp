#pragma once
// Summary statistics of repeated samples (latencies in cycles, mostly).
//
// Percentiles use linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and NumPy): for the sorted samples x[0] <= ... <= x[n-1] and q in [0, 1], let
// h = q * (n - 1); the q-percentile is x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] -
// x[floor(h)]). So p0 is the minimum, p100 the maximum, and p50 of an even count is the mean of the
// middle two.
#include <cstddef>
#include <span>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// p50, mean, sample stdev (n - 1 in the denominator; 0 for one sample), p5, p95, min, max and the
// count. Throws std::invalid_argument for no samples: a summary of nothing is a bug upstream.
Spread summarize(std::span<const double> samples);

// The spread of every sample multiplied by `factor` (a unit change, a ratio to a constant):
// exact, since percentiles, mean and stdev scale with the samples; a negative factor swaps the
// ends. Throws std::invalid_argument for a factor that is not finite.
Spread scaled(const Spread& spread, double factor);

// Every difference a - b of a sample a of `minuend` and a sample b of `subtrahend`: the
// distribution of a difference of two measurements each sampled on its own (a miss penalty as
// the level behind minus the level in front), whose spread holds both sides' variation. Throws
// std::invalid_argument when either is empty.
std::vector<double> pairwise_differences(std::span<const double> minuend,
                                         std::span<const double> subtrahend);

// The q-percentile (q in [0, 1]) of samples that are already sorted ascending, by the rule
// above. Throws std::invalid_argument when `sorted` is empty or q is outside [0, 1].
double percentile_of_sorted(std::span<const double> sorted, double q);

// The median (p50) of unsorted samples; throws std::invalid_argument when empty.
double median(std::span<const double> samples);

// 1.4826 times the median absolute deviation from the median: a consistent estimate of a
// Gaussian sigma that outliers hardly move; throws std::invalid_argument when empty.
double robust_sigma(std::span<const double> samples);

// How many samples are strictly greater than `threshold`, and that count as a fraction of all
// samples (0 for no samples).
std::size_t count_above(std::span<const double> samples, double threshold);
double fraction_above(std::span<const double> samples, double threshold);

// The fraction of samples within `relative` (e.g. 0.1 = 10 %) of `center`, inclusive (0 for no
// samples): how well one number describes the samples when they may fall into several levels.
double fraction_within(std::span<const double> samples, double center, double relative);

// Whether the samples summarised by `fast` are clearly faster than those of `slow`: the bulk of
// the two distributions does not overlap (fast.p95 < slow.p5) and the medians differ by at
// least `min_relative_gap` of the slower one. Two levels answering alike (an L1 that does not
// cache a path, so the path falls through to L2) fail this on jitter alone.
bool clearly_faster(const Spread& fast, const Spread& slow, double min_relative_gap = 0.1);

}  // namespace memtopo
