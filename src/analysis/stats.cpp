#include "analysis/stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace memtopo {

namespace {

// Up to this many samples std::sort is the faster way to order them.
constexpr std::size_t kSortedDirectly = 256;
// Counting stops (and std::sort orders the samples) when they hold more distinct values than
// one per this many samples.
constexpr std::size_t kSamplesPerDistinctValue = 16;

// How often each distinct value occurs, by its bits, in a table with open addressing sized for
// at most `max_distinct` values: one allocation, and a lookup a multiply and a probe or two
// (a std::unordered_map's were most of summarize's time).
class ValueCounts {
 public:
  explicit ValueCounts(std::size_t max_distinct)
      : slots_(std::bit_ceil(2 * max_distinct + 2)),
        shift_(64 - std::countr_zero(slots_.size())),
        max_distinct_(max_distinct) {}

  // Counts `bits` once more; false (and nothing counted) when it would be a value too many.
  bool add(std::uint64_t bits) {
    std::size_t slot = (bits * 0x9E3779B97F4A7C15ull) >> shift_;
    while (slots_[slot].count != 0 && slots_[slot].bits != bits) slot = (slot + 1) % slots_.size();
    if (slots_[slot].count == 0) {
      if (distinct_ == max_distinct_) return false;
      ++distinct_;
      slots_[slot].bits = bits;
    }
    ++slots_[slot].count;
    return true;
  }

  // The distinct values and their counts, ascending.
  std::vector<std::pair<double, std::size_t>> ascending() const {
    std::vector<std::pair<double, std::size_t>> values;
    values.reserve(distinct_);
    for (const Slot& slot : slots_) {
      if (slot.count != 0) values.emplace_back(std::bit_cast<double>(slot.bits), slot.count);
    }
    std::sort(values.begin(), values.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return values;
  }

 private:
  struct Slot {
    std::uint64_t bits = 0;
    std::size_t count = 0;  // 0: empty
  };
  std::vector<Slot> slots_;
  int shift_;
  std::size_t max_distinct_;
  std::size_t distinct_ = 0;
};

// The samples in ascending order: the very vector std::sort makes. Latencies take few distinct
// values (whole cycles less one overhead), so counting each distinct value and sorting only
// those is several times faster on the long traces the size and staircase probes summarise;
// equal values are the same double, so the expansion is identical. Values are told apart by
// their bits (+0 and -0 stay two values; their order among themselves is as unspecified as
// std::sort's, and only the sign of a zero percentile could show it).
std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  if (samples.size() <= kSortedDirectly) {
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }
  ValueCounts counts(samples.size() / kSamplesPerDistinctValue);
  for (const double x : samples) {
    if (!counts.add(std::bit_cast<std::uint64_t>(x))) {
      std::sort(sorted.begin(), sorted.end());
      return sorted;
    }
  }
  auto out = sorted.begin();
  for (const auto& [value, count] : counts.ascending()) out = std::fill_n(out, count, value);
  return sorted;
}

}  // namespace

double percentile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of no samples");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("percentile outside [0, 1]");
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(h));
  if (below + 1 >= sorted.size()) return sorted.back();
  const double weight = h - static_cast<double>(below);
  return sorted[below] + weight * (sorted[below + 1] - sorted[below]);
}

Spread summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  const std::vector<double> sorted = sorted_copy(samples);

  Spread s;
  s.samples = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.p5 = percentile_of_sorted(sorted, 0.05);
  s.p50 = percentile_of_sorted(sorted, 0.50);
  s.p95 = percentile_of_sorted(sorted, 0.95);
  const double n = static_cast<double>(sorted.size());
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  if (sorted.size() > 1) {
    // Two passes (mean first) keep the variance exact for large, nearly constant latencies.
    double squares = 0;
    for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(squares / (n - 1));
  }
  return s;
}

Spread scaled(const Spread& spread, double factor) {
  if (!std::isfinite(factor)) throw std::invalid_argument("spread scaled by a non-finite factor");
  Spread s = spread;
  s.p50 *= factor;
  s.mean *= factor;
  s.stdev *= std::abs(factor);
  s.p5 *= factor;
  s.p95 *= factor;
  s.min *= factor;
  s.max *= factor;
  if (factor < 0) {
    std::swap(s.p5, s.p95);
    std::swap(s.min, s.max);
  }
  return s;
}

std::vector<double> pairwise_differences(std::span<const double> minuend,
                                         std::span<const double> subtrahend) {
  if (minuend.empty() || subtrahend.empty())
    throw std::invalid_argument("differences of no samples");
  std::vector<double> out;
  out.reserve(minuend.size() * subtrahend.size());
  for (const double a : minuend) {
    for (const double b : subtrahend) out.push_back(a - b);
  }
  return out;
}

double median(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  return percentile_of_sorted(sorted_copy(samples), 0.5);
}

double robust_sigma(std::span<const double> samples) {
  const double centre = median(samples);
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (const double x : samples) deviations.push_back(std::abs(x - centre));
  return 1.4826 * median(deviations);
}

std::size_t count_above(std::span<const double> samples, double threshold) {
  return static_cast<std::size_t>(
      std::count_if(samples.begin(), samples.end(), [&](double x) { return x > threshold; }));
}

double fraction_above(std::span<const double> samples, double threshold) {
  if (samples.empty()) return 0;
  return static_cast<double>(count_above(samples, threshold)) / static_cast<double>(samples.size());
}

double fraction_within(std::span<const double> samples, double center, double relative) {
  if (samples.empty()) return 0;
  const double band = std::abs(center) * relative;
  const auto inside = std::count_if(samples.begin(), samples.end(),
                                    [&](double x) { return std::abs(x - center) <= band; });
  return static_cast<double>(inside) / static_cast<double>(samples.size());
}

bool clearly_faster(const Spread& fast, const Spread& slow, double min_relative_gap) {
  return fast.p95 < slow.p5 && fast.p50 < slow.p50 * (1.0 - min_relative_gap);
}

}  // namespace memtopo
