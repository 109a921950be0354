#include "analysis/valley_split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kMaxBins = 1024;

ModeSplit one_mode(std::span<const double> sorted, std::string reason) {
  ModeSplit split;
  split.fast = summarize(sorted.empty() ? std::vector<double>{0.0}
                                        : std::vector<double>(sorted.begin(), sorted.end()));
  split.reason = std::move(reason);
  return split;
}

// The samples' histogram over p1-p99 (bins of the interquartile range / bins_per_iqr, at least
// min_noise wide, at most kMaxBins of them), smoothed by a 3-bin moving average.
struct Density {
  double lo = 0;
  double width = 1;
  std::vector<double> values;  // per bin

  std::size_t bin_of(double x) const {
    if (x <= lo) return 0;
    return std::min(values.size() - 1, static_cast<std::size_t>((x - lo) / width));
  }
  double centre(std::size_t bin) const { return lo + (static_cast<double>(bin) + 0.5) * width; }
};

// Why there is no density to read (too few samples, no spread), or none.
std::optional<Density> density_of(std::span<const double> sorted,
                                  const ValleySplitOptions& options, std::string& why) {
  if (sorted.size() < options.min_samples) {
    why = "too few samples for a valley";
    return std::nullopt;
  }
  Density d;
  d.lo = percentile_of_sorted(sorted, 0.01);
  const double hi = percentile_of_sorted(sorted, 0.99);
  const double iqr = percentile_of_sorted(sorted, 0.75) - percentile_of_sorted(sorted, 0.25);
  d.width = std::max(options.min_noise, iqr / options.bins_per_iqr);
  d.width = std::max(d.width, (hi - d.lo) / static_cast<double>(kMaxBins));
  const auto bins = static_cast<std::size_t>((hi - d.lo) / d.width) + 1;
  if (bins < 2 * options.min_peak_gap_bins + 1) {
    why = "one mode: no spread";
    return std::nullopt;
  }
  std::vector<double> counts(bins, 0.0);
  for (const double v : sorted) {
    if (v < d.lo || v > hi) continue;
    counts[std::min(bins - 1, static_cast<std::size_t>((v - d.lo) / d.width))] += 1;
  }
  d.values.assign(bins, 0.0);
  for (std::size_t i = 0; i < bins; ++i) {
    const std::size_t from = i == 0 ? 0 : i - 1;
    const std::size_t to = std::min(bins - 1, i + 1);
    double sum = 0;
    for (std::size_t j = from; j <= to; ++j) sum += counts[j];
    d.values[i] = sum / static_cast<double>(to - from + 1);
  }
  return d;
}

struct Valley {
  double ratio = 2;  // valley density over the lower peak's (above 1: no valley)
  double threshold = 0;
};

}  // namespace

ModeSplit split_at_valley(std::span<const double> samples, const ValleySplitOptions& options) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  std::string why_not;
  const std::optional<Density> found = density_of(sorted, options, why_not);
  if (!found) return one_mode(sorted, why_not);
  const Density& d = *found;
  const std::vector<double>& density = d.values;
  const std::size_t bins = density.size();
  const double highest = *std::max_element(density.begin(), density.end());
  // Peaks either side of every bin: prefix and suffix maxima with their positions.
  std::vector<std::size_t> left_peak(bins), right_peak(bins);
  left_peak[0] = 0;
  for (std::size_t i = 1; i < bins; ++i) {
    left_peak[i] = density[i] > density[left_peak[i - 1]] ? i : left_peak[i - 1];
  }
  right_peak[bins - 1] = bins - 1;
  for (std::size_t i = bins - 1; i-- > 0;) {
    right_peak[i] = density[i] > density[right_peak[i + 1]] ? i : right_peak[i + 1];
  }
  const auto n = static_cast<double>(sorted.size());
  Valley best;
  for (std::size_t v = 1; v + 1 < bins; ++v) {
    const std::size_t l = left_peak[v - 1], r = right_peak[v + 1];
    if (v - l < options.min_peak_gap_bins / 2 || r - v < options.min_peak_gap_bins / 2 ||
        r - l < options.min_peak_gap_bins) {
      continue;
    }
    const double fast_peak = d.centre(l);
    const double slow_peak = d.centre(r);
    if (slow_peak - fast_peak < options.min_relative_gap * std::abs(fast_peak)) continue;
    const double lower_peak = std::min(density[l], density[r]);
    if (lower_peak < options.min_peak_fraction * highest || lower_peak <= 0) continue;
    const double threshold = d.centre(v);
    const auto below = static_cast<double>(
        std::upper_bound(sorted.begin(), sorted.end(), threshold) - sorted.begin());
    if (below < options.min_share * n || n - below < options.min_share * n) continue;
    const double ratio = density[v] / lower_peak;
    if (ratio < best.ratio) best = {ratio, threshold};
  }
  if (best.ratio > options.max_valley_ratio) {
    char why[160];
    std::snprintf(why, sizeof why,
                  best.ratio > 1 ? "one mode: no valley between two peaks"
                                 : "one mode: the deepest valley holds %.2f of the lower peak",
                  best.ratio);
    return one_mode(sorted, why);
  }
  const auto cut = std::upper_bound(sorted.begin(), sorted.end(), best.threshold);
  const std::span<const double> fast(sorted.data(), static_cast<std::size_t>(cut - sorted.begin()));
  const std::span<const double> slow(sorted.data() + fast.size(), sorted.size() - fast.size());
  ModeSplit split;
  split.bimodal = true;
  split.threshold = best.threshold;
  split.fast = summarize(fast);
  split.slow = summarize(slow);
  split.slow_share = static_cast<double>(slow.size()) / n;
  const double sigma = std::max({robust_sigma(fast), robust_sigma(slow), options.min_noise});
  split.separation_sigmas = (split.slow.p50 - split.fast.p50) / sigma;
  char why[200];
  std::snprintf(why, sizeof why,
                "two modes either side of a valley at %.0f cycles holding %.3f of the lower "
                "peak's density (%.1f-cycle bins)",
                best.threshold, best.ratio, d.width);
  split.reason = why;
  return split;
}

double valley_ratio(std::span<const double> samples, double threshold,
                    const ValleySplitOptions& options) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  std::string why_not;
  const std::optional<Density> found = density_of(sorted, options, why_not);
  if (!found) return 1;
  const Density& d = *found;
  const std::size_t at = d.bin_of(threshold);
  double fast_peak = 0, slow_peak = 0;
  for (std::size_t i = 0; i < d.values.size(); ++i) {
    if (i < at) fast_peak = std::max(fast_peak, d.values[i]);
    if (i > at) slow_peak = std::max(slow_peak, d.values[i]);
  }
  const double lower_peak = std::min(fast_peak, slow_peak);
  if (lower_peak <= 0) return 1;  // a side without a peak: nothing stands apart
  return d.values[at] / lower_peak;
}

ModeSplit split_latency_modes(std::span<const double> samples) {
  ModeSplit split = split_two_modes(samples);
  if (split.bimodal) return split;
  ModeSplit valley = split_at_valley(samples);
  if (valley.bimodal) return valley;
  split.reason += "; " + valley.reason;
  return split;
}

}  // namespace memtopo
