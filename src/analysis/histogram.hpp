#pragma once
// The distribution of repeated samples (latencies in cycles) as a compact histogram, small
// enough to keep in a finding's evidence so that a report can draw it from the JSON alone.
#include <cstddef>
#include <span>
#include <vector>

namespace memtopo {

struct Histogram {
  double from = 0;       // lower edge of the first bin
  double bin_width = 1;  // a whole number of units (cycles), at least 1
  std::vector<std::size_t> counts;
  std::size_t below = 0;  // samples below `from`
  std::size_t above = 0;  // samples at or above the last bin's upper edge
};

// Equal bins over the samples' p0.5..p99.5 (percentile_of_sorted's rule), as narrow as a whole
// unit allows within `max_bins`, the first starting at a whole unit. Samples outside that range
// are counted in `below` and `above`, so that a rare outlier (an interrupt, a refresh) does not
// stretch every bin. No samples or max_bins 0: an empty histogram.
Histogram make_histogram(std::span<const double> samples, std::size_t max_bins);

}  // namespace memtopo
