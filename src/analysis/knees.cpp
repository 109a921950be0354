#include "analysis/knees.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats.hpp"

namespace memtopo {
namespace {

std::vector<double> running_median_of_three(std::span<const double> values) {
  std::vector<double> smoothed(values.begin(), values.end());
  for (std::size_t i = 1; i + 1 < values.size(); ++i) {
    double window[] = {values[i - 1], values[i], values[i + 1]};
    std::sort(std::begin(window), std::end(window));
    smoothed[i] = window[1];
  }
  return smoothed;
}

double median_of(std::span<const double> values, std::size_t first, std::size_t last) {
  return median(values.subspan(first, last - first + 1));
}

// The last index of the plateau that starts at `first`.
std::size_t plateau_end(std::span<const double> b, std::size_t first, double band) {
  std::size_t last = first;
  while (last + 1 < b.size() && b[last + 1] >= median_of(b, first, last) * (1 - band) &&
         b[last + 1] <= median_of(b, first, last) * (1 + band)) {
    ++last;
  }
  return last;
}

// From the first point below a plateau, the index where the fall stops.
std::size_t fall_end(std::span<const double> b, std::size_t first, double step) {
  std::size_t last = first;
  while (last + 1 < b.size() && b[last + 1] < b[last] * (1 - step)) ++last;
  return last;
}

// The footprint where the curve crosses `level` between points `from` and `to` (log-log).
double crossing(std::span<const double> f, std::span<const double> b, std::size_t from,
                std::size_t to, double level) {
  for (std::size_t i = from; i < to; ++i) {
    if (b[i] >= level && b[i + 1] <= level) {
      const double span = std::log(b[i]) - std::log(b[i + 1]);
      const double t = span > 0 ? (std::log(b[i]) - std::log(level)) / span : 0.5;
      return std::exp(std::log(f[i]) + t * (std::log(f[i + 1]) - std::log(f[i])));
    }
  }
  return std::sqrt(f[from] * f[to]);
}

}  // namespace

std::vector<Knee> find_knees(std::span<const double> footprints, std::span<const double> bandwidths,
                             const KneeOptions& options) {
  if (footprints.size() != bandwidths.size()) {
    throw std::invalid_argument("find_knees: one bandwidth per footprint");
  }
  for (std::size_t i = 0; i < footprints.size(); ++i) {
    if (!(footprints[i] > 0) || (i > 0 && !(footprints[i] > footprints[i - 1]))) {
      throw std::invalid_argument("find_knees: footprints must be positive and ascend");
    }
  }
  std::vector<Knee> knees;
  if (footprints.size() < 3) return knees;
  const std::vector<double> smoothed = running_median_of_three(bandwidths);
  const std::span<const double> b(smoothed);
  std::size_t first = 0;
  while (first < b.size()) {
    const std::size_t high_end = plateau_end(b, first, options.plateau_band);
    if (high_end + 1 >= b.size()) break;
    const double upper = median_of(b, first, high_end);
    const std::size_t low_start = fall_end(b, high_end + 1, options.fall_step);
    const std::size_t low_end = plateau_end(b, low_start, options.plateau_band);
    const double lower = median_of(b, low_start, low_end);
    if (lower <= upper * (1 - options.min_drop)) {
      Knee knee;
      knee.upper_bandwidth = upper;
      knee.lower_bandwidth = lower;
      knee.last_high_bytes = footprints[high_end];
      knee.first_low_bytes = footprints[low_start];
      knee.footprint_bytes = crossing(footprints, b, high_end, low_start, std::sqrt(upper * lower));
      knees.push_back(knee);
    }
    first = low_start;
  }
  return knees;
}

double sweep_resolution(std::span<const double> footprints) {
  double ratio = 1;
  for (std::size_t i = 1; i < footprints.size(); ++i) {
    ratio = std::max(ratio, footprints[i] / footprints[i - 1]);
  }
  return ratio;
}

double knee_resolution(std::span<const double> footprints, const Knee& knee) {
  double ratio = 1;
  for (const double bound : {knee.last_high_bytes, knee.first_low_bytes}) {
    const auto at = std::lower_bound(footprints.begin(), footprints.end(), bound);
    if (at == footprints.end() || *at != bound) return sweep_resolution(footprints);
    if (at != footprints.begin()) ratio = std::max(ratio, *at / *(at - 1));
    if (at + 1 != footprints.end()) ratio = std::max(ratio, *(at + 1) / *at);
  }
  return ratio;
}

bool knee_agrees(const Knee& knee, double size_bytes, double resolution) {
  return size_bytes >= knee.last_high_bytes / resolution &&
         size_bytes <= knee.first_low_bytes * resolution;
}

const Knee* nearest_knee(std::span<const Knee> knees, double size_bytes) {
  const Knee* nearest = nullptr;
  double best = 0;
  for (const Knee& knee : knees) {
    const double distance = std::fabs(std::log(knee.footprint_bytes / size_bytes));
    if (!nearest || distance < best) {
      nearest = &knee;
      best = distance;
    }
  }
  return nearest;
}

}  // namespace memtopo
