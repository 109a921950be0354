#pragma once
// Change points of a one-dimensional series (thesis 004, 3.3.3), e.g. latency against footprint.
//
// Convention: a change point t (0 < t < n) splits the series into [0, t) and [t, n); t is the
// index of the first sample after the change.
//
// Cost of a segment: the sum of squared deviations from the segment mean (a change in mean
// under Gaussian noise), O(1) per segment from prefix sums.
//
// Outliers (interrupts, refreshes: rare single accesses hundreds of cycles slow) would otherwise
// buy their own segments, since isolating one removes its squared excess from the cost, and an
// outlier next to a step pulls the split onto itself. With `robust` set, the series is first
// winsorised from above: every sample is lowered to at most running median + clip_sigmas * sigma,
// with the median over 2 * half_window + 1 neighbours and sigma the noise level below.
//  - Samples within the noise are untouched, so the penalty stays calibrated; an isolated
//    outlier is left worth at most clip_sigmas^2 sigma^2 of cost.
//  - Only the slow side is clipped: a disturbance (interrupt, refresh, TLB shootdown) only ever
//    adds cycles. This is also what keeps steps in place: next to a step a window may hold a
//    majority of the other level (an outlier tips it), but a sample is only ever lowered, and
//    only when the window's median lies far below it, which slow outliers cannot cause.
//  - A slow level held for no more than half_window consecutive samples is, by the same rule,
//    indistinguishable from a burst of outliers and is clipped away.
#include <cstddef>
#include <span>
#include <vector>

namespace memtopo {

struct ChangePointOptions {
  bool robust = true;           // winsorise around a running median first (above)
  std::size_t half_window = 3;  // running median over 7 samples: bursts of up to 3 are outliers
  double clip_sigmas = 3.0;     // winsorising bound above the running median, in sigmas
  // Floor of sigma, in the series' unit (cycles). Latencies are integers and often exactly
  // repeated, which gives a robust sigma of 0; without a floor any difference would be a change.
  double min_noise = 0.5;
  // The series' noise where the caller knows it better than the series alone tells (> 0): used
  // instead of the estimate for the clipping and the penalty. An adaptive grid's differences stand
  // for several intervals of its fine grid each (analysis/adaptive_grid: grid_noise_sigma).
  double known_sigma = 0;
  // Several change points: each costs beta = penalty_factor * sigma^2 * ln(n). 2 is BIC for a
  // change in mean (two parameters per change: the new mean and the location, each ln(n) in
  // -2 log-likelihood units, times sigma^2 for the sum of squares); 3 is a little stricter, since
  // sigma is estimated and latency noise is not Gaussian.
  double penalty_factor = 3.0;
  std::size_t min_segment = 2;  // fewest samples in a segment (1 is allowed)
};

// Sum of squared deviations from the mean of series[begin, end), from prefix sums.
class SquaredErrorCost {
 public:
  explicit SquaredErrorCost(std::span<const double> series);
  // Requires begin < end <= size(); 0 for a single sample.
  double operator()(std::size_t begin, std::size_t end) const;
  std::size_t size() const { return sum_.size() - 1; }

 private:
  double shift_ = 0;  // subtracted before summing: keeps S2 - S1^2 / n exact for large levels
  std::vector<double> sum_;
  std::vector<double> sum_of_squares_;
};

// Noise level sigma of a series with a few steps and outliers, from its first differences d
// (each sigma * sqrt(2) where the level holds). A scale first: s = 1.4826 * MAD(d), which a step
// or an outlier (a few large differences among many small ones) hardly moves. Then
// sigma^2 = mean((d - median d)^2) / 2 over the differences within 5 s of the median: the MAD
// alone is coarse for integer latencies (jitter uniform on [-2, 2] has sigma 1.41; the MAD says
// 1.05) and that error would weaken the penalty. 0 for fewer than 3 samples.
double robust_noise_sigma(std::span<const double> series);
// The same from the first differences themselves (at least 2 of them; else 0).
double robust_noise_sigma_of_differences(std::span<const double> differences);

// Each sample lowered to at most m + bound, m the median of itself and its neighbours within
// half_window on both sides (fewer at the ends).
std::vector<double> winsorize_above_running_median(std::span<const double> series,
                                                    std::size_t half_window, double bound);

// The series the costs are computed on: winsorised when options.robust, else a copy.
std::vector<double> prepared_series(std::span<const double> series,
                                    const ChangePointOptions& options);

// The noise sigma used for clipping and the penalty: max(robust sigma (or known_sigma when set),
// min_noise).
double noise_sigma(std::span<const double> series, const ChangePointOptions& options);

// Opt with exactly one change point (thesis Algorithm 1):
//   t* = argmin_t cost[0, t) + cost[t, n), min_segment <= t <= n - min_segment,
// the earliest on ties; O(n). Throws std::invalid_argument when no such t exists.
std::size_t opt_single_change_point(std::span<const double> series,
                                    const ChangePointOptions& options = {});

// Every change point, ascending: the segmentation minimising
//   sum over segments of cost + beta * (number of change points)
// (optimal partitioning), exact, with PELT pruning: usually O(n), O(n^2) at worst. An empty
// result means one level.
std::vector<std::size_t> change_points(std::span<const double> series,
                                       const ChangePointOptions& options = {});

// A run [begin, end) of a series between two change points.
struct SeriesSegment {
  std::size_t begin = 0, end = 0;
};

// The segments that ascending change points cut a series of n samples into (one without points).
std::vector<SeriesSegment> segments_between(std::span<const std::size_t> points, std::size_t n);

// beta for a series of n samples with noise sigma (see ChangePointOptions::penalty_factor).
double change_point_penalty(std::size_t n, double sigma, const ChangePointOptions& options);

}  // namespace memtopo
