#include "analysis/histogram.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/stats.hpp"

namespace memtopo {
namespace {

// The share of samples at each end left out of the bins (counted as below / above).
constexpr double kTailShare = 0.005;

}  // namespace

Histogram make_histogram(std::span<const double> samples, std::size_t max_bins) {
  Histogram histogram;
  if (samples.empty() || max_bins == 0) return histogram;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double low = percentile_of_sorted(sorted, kTailShare);
  const double high = percentile_of_sorted(sorted, 1 - kTailShare);
  histogram.from = std::floor(low);
  const double span = high - histogram.from;
  histogram.bin_width = std::max(1.0, std::ceil((span + 1) / static_cast<double>(max_bins)));
  const auto bins = std::min(max_bins, static_cast<std::size_t>(span / histogram.bin_width) + 1);
  histogram.counts.assign(bins, 0);
  for (double sample : sorted) {
    if (sample < histogram.from) {
      ++histogram.below;
      continue;
    }
    const auto bin = static_cast<std::size_t>((sample - histogram.from) / histogram.bin_width);
    if (bin >= bins) {
      ++histogram.above;
    } else {
      ++histogram.counts[bin];
    }
  }
  return histogram;
}

}  // namespace memtopo
