#include "analysis/linesize.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "analysis/stats.hpp"

namespace memtopo {

GapEstimate estimate_fetch_granularity(std::span<const double> cycles,
                                       std::span<const std::uint32_t> indices,
                                       double threshold_cycles, const GapRule& rule) {
  if (cycles.size() != indices.size()) {
    throw std::invalid_argument("fetch granularity: cycles and indices differ in length");
  }
  GapEstimate out;
  out.accesses = cycles.size();
  std::vector<double> gaps;
  bool have_previous = false;
  std::uint32_t previous = 0;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (!(cycles[i] > threshold_cycles)) continue;
    ++out.slow_accesses;
    if (have_previous && indices[i] > previous) {
      const std::uint64_t gap = std::uint64_t{indices[i] - previous} * 4;
      ++out.histogram[gap];
      gaps.push_back(static_cast<double>(gap));
    }
    previous = indices[i];
    have_previous = true;
  }
  out.gaps = gaps.size();
  std::size_t mode_count = 0;
  for (const auto& [gap, count] : out.histogram) {
    if (count > mode_count) {  // ties keep the smaller gap
      mode_count = count;
      out.mode_gap_bytes = gap;
    }
  }
  if (!gaps.empty()) {
    out.median_gap_bytes = median(gaps);
    out.consistency = static_cast<double>(mode_count) / static_cast<double>(gaps.size());
  }

  const double slow_fraction = out.accesses == 0 ? 0.0
                                                 : static_cast<double>(out.slow_accesses) /
                                                       static_cast<double>(out.accesses);
  if (out.slow_accesses == 0) {
    out.note = "no access was slow: the footprint did not miss";
  } else if (slow_fraction > rule.max_slow_fraction) {
    out.note = "nearly every access was slow: no hits between misses to measure a block by";
  } else if (out.gaps < rule.min_gaps) {
    out.note = "too few gaps between slow accesses (" + std::to_string(out.gaps) + ", need " +
               std::to_string(rule.min_gaps) + ")";
  } else if (out.consistency < rule.min_consistency) {
    out.note = "the gaps between slow accesses are not consistent (the mode describes " +
               std::to_string(static_cast<int>(std::lround(out.consistency * 100))) + " %)";
  } else {
    out.granularity_bytes = out.mode_gap_bytes;
  }
  return out;
}

Confidence gap_confidence(const GapEstimate& gaps) {
  return {share(gaps.consistency, "of the gaps between slow accesses (" +
                                      std::to_string(gaps.gaps) + ") equal the mode, " +
                                      std::to_string(gaps.mode_gap_bytes) + " B")};
}

namespace {

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

double log2_distance(double a, double b) {
  return std::abs(std::log2(a) - std::log2(b));
}

}  // namespace

std::vector<std::uint64_t> line_stride_ladder(std::uint64_t sector_bytes, std::uint64_t prime,
                                              std::uint64_t max_unit_bytes) {
  std::vector<std::uint64_t> strides;
  if (sector_bytes == 0 || !is_prime(prime) || prime == 2) return strides;
  for (std::uint64_t unit = sector_bytes; unit <= max_unit_bytes; unit *= 2) {
    strides.push_back(prime * unit);
  }
  return strides;
}

// How far (in octaves) the raw ratio may lie from the power of two it is rounded to: 0.1 octave
// is 7 %, far more than the one-line precision of the size search gives a modulo-mapped cache.
constexpr double kMaxOctavesOffPowerOfTwo = 0.1;

std::uint64_t nearest_power_of_two(double value) {
  if (!(value > 0)) throw std::invalid_argument("nearest power of two of a non-positive value");
  const double exponent = std::round(std::log2(value));
  return exponent <= 0 ? 1 : std::uint64_t{1} << static_cast<unsigned>(exponent);
}

const char* to_string(StrideClass c) {
  switch (c) {
    case StrideClass::below_line:
      return "below_line";
    case StrideClass::beyond_line:
      return "beyond_line";
    case StrideClass::aliased:
      return "aliased";
    case StrideClass::unsearched:
      return "unsearched";
  }
  return "?";
}

namespace {

// The strides sorted by size, each classified by its capacity; `beyond` receives the indices of
// those beyond the line.
std::vector<StrideVerdict> classify_strides(double size, std::uint64_t prime,
                                            std::span<const StrideCapacity> strides,
                                            double beyond_margin,
                                            std::vector<std::size_t>& beyond) {
  std::vector<StrideCapacity> sorted(strides.begin(), strides.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.stride_bytes < b.stride_bytes; });
  const double beyond_bytes = size * static_cast<double>(prime) * (1.0 - beyond_margin);
  std::vector<StrideVerdict> out;
  for (const auto& s : sorted) {
    if (s.stride_bytes == 0) throw std::invalid_argument("line inference: zero stride");
    StrideVerdict v;
    v.stride_bytes = s.stride_bytes;
    if (s.capacity_footprint_bytes && *s.capacity_footprint_bytes >= s.stride_bytes) {
      const std::uint64_t elements = *s.capacity_footprint_bytes / s.stride_bytes;
      v.capacity_elements = elements;
      v.line_estimate_bytes = size / static_cast<double>(elements);
      v.cls = static_cast<double>(*s.capacity_footprint_bytes) >= beyond_bytes
                  ? StrideClass::beyond_line
                  : StrideClass::below_line;
    } else {
      v.cls = s.fits_at_probe ? StrideClass::unsearched : StrideClass::below_line;
    }
    if (v.cls == StrideClass::beyond_line) beyond.push_back(out.size());
    out.push_back(v);
  }
  return out;
}

// No stride beyond the line: the line is at least twice the largest unit below it.
void conclude_without_beyond(LineInference& out, std::uint64_t prime) {
  std::uint64_t largest_below = 0;
  for (const auto& v : out.strides) {
    if (v.cls == StrideClass::below_line) {
      largest_below = std::max(largest_below, v.stride_bytes / prime * 2);
    }
  }
  if (largest_below > 0) out.lower_bound = largest_below;
  out.note = out.strides.empty()
                 ? "no stride was measured"
                 : "no stride held the prime times the size: the line is larger than the "
                   "largest unit tried, or the prime divides the number of sets";
}

// Whether a stride behaved as a unit of stride / prime predicts for `line`: below the line it
// holds less than the prime times the size; at or beyond it, that much or more (searched), or at
// least its probe footprint (unsearched).
bool agrees_with_line(const StrideVerdict& v, std::uint64_t line, std::uint64_t prime) {
  const bool at_or_beyond = v.stride_bytes >= prime * line;
  switch (v.cls) {
    case StrideClass::below_line:
      return !at_or_beyond;
    case StrideClass::beyond_line:
    case StrideClass::unsearched:
      return at_or_beyond;
    case StrideClass::aliased:
      return false;
  }
  return false;
}

// Names the strides that contradict the line (aliased above the first beyond one, a smaller one
// that fitted but was not searched) and returns the remarks for the note.
std::vector<std::string> name_contradictions(LineInference& out, std::uint64_t prime,
                                             std::uint64_t line) {
  std::vector<std::string> remarks;
  const std::uint64_t first = out.first_beyond_stride;
  if (first != prime * line) {
    remarks.push_back("the first stride holding the prime times the size is " +
                      std::to_string(first) + " B, not the prime times the line");
  }
  std::size_t beyond = 0;
  for (const auto& v : out.strides) beyond += v.cls == StrideClass::beyond_line ? 1 : 0;
  if (beyond == 1) remarks.push_back("a single stride beyond the line backs the value");
  for (auto& v : out.strides) {
    if (v.stride_bytes < first && v.cls == StrideClass::unsearched) {
      remarks.push_back("stride " + std::to_string(v.stride_bytes) +
                        " B fitted above the size but was not searched");
    } else if (v.stride_bytes > first && v.cls == StrideClass::below_line) {
      v.cls = StrideClass::aliased;
      remarks.push_back("stride " + std::to_string(v.stride_bytes) +
                        " B held less than the prime times the size although it exceeds the "
                        "line (set-index aliasing)");
    }
  }
  return remarks;
}

std::string joined(const std::vector<std::string>& remarks) {
  std::string text;
  for (const auto& r : remarks) text += (text.empty() ? "" : "; ") + r;
  return text;
}

}  // namespace

LineInference infer_line(std::uint64_t size_bytes, std::uint64_t sector_bytes, std::uint64_t prime,
                         std::span<const StrideCapacity> strides, double beyond_margin) {
  if (size_bytes == 0 || prime < 3) {
    throw std::invalid_argument("line inference needs a cache size and an odd prime");
  }
  LineInference out;
  const double size = static_cast<double>(size_bytes);
  std::vector<std::size_t> beyond;  // indices into out.strides
  out.strides = classify_strides(size, prime, strides, beyond_margin, beyond);
  if (beyond.empty()) {
    conclude_without_beyond(out, prime);
    return out;
  }

  const StrideVerdict& first = out.strides[beyond.front()];
  out.first_beyond_stride = first.stride_bytes;
  out.raw_ratio = *first.line_estimate_bytes;
  const std::uint64_t line = nearest_power_of_two(out.raw_ratio);
  if (log2_distance(out.raw_ratio, static_cast<double>(line)) > kMaxOctavesOffPowerOfTwo) {
    // A ratio between powers of two means the capacity did not level off the way a modulo set
    // mapping makes it (a hashed mapping fills sets unevenly at any stride): no line follows.
    out.note =
        "size / capacity in elements at the first stride holding the prime times the "
        "size is " +
        std::to_string(static_cast<long long>(out.raw_ratio)) +
        " B, not near a power of two: the set mapping does not behave as the strides "
        "assume (hashed set index?)";
    return out;
  }
  out.line_bytes = line;
  std::vector<std::string> remarks = name_contradictions(out, prime, line);
  const auto agreeing = static_cast<std::size_t>(
      std::count_if(out.strides.begin(), out.strides.end(),
                    [&](const StrideVerdict& v) { return agrees_with_line(v, line, prime); }));
  out.confidence = {
      octave_closeness(out.raw_ratio, "size / capacity in elements at stride " +
                                          std::to_string(first.stride_bytes) + " B:"),
      agreement(agreeing, out.strides.size(),
                "strides behaving as a " + std::to_string(line) + " B line predicts")};
  if (sector_bytes > 0 && line < sector_bytes) {
    out.confidence *= methods_agreeing(1, 2,
                                       "measurements (sector " + std::to_string(sector_bytes) +
                                           " B, line " + std::to_string(line) + " B) consistent");
    remarks.push_back("the line came out smaller than the measured sector: inconsistent");
  }
  out.sectored = sector_bytes > 0 && line > sector_bytes;
  out.note = joined(remarks);
  return out;
}

namespace {

// Whether a power-of-two stride behaved as `line` predicts: it holds more than the size exactly
// when it is at least twice the line.
bool pow2_agrees_with_line(const StrideCapacity& s, std::uint64_t line) {
  return s.fits_at_probe == (s.stride_bytes >= 2 * line);
}

}  // namespace

PowerOfTwoLine infer_line_from_power_of_two_strides(std::uint64_t size_bytes,
                                                    std::span<const StrideCapacity> strides) {
  if (size_bytes == 0) throw std::invalid_argument("line inference needs a cache size");
  std::vector<StrideCapacity> sorted(strides.begin(), strides.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.stride_bytes < b.stride_bytes; });
  PowerOfTwoLine out;
  const auto first = std::find_if(sorted.begin(), sorted.end(),
                                  [](const StrideCapacity& s) { return s.fits_at_probe; });
  if (first == sorted.end()) {
    out.note =
        "no power-of-two stride held more than the size: the set index reaches fewer "
        "sets at every stride beyond the line (modulo over an even set count), or the "
        "line exceeds the largest stride tried";
    return out;
  }
  out.first_beyond_stride = first->stride_bytes;
  if (!first->capacity_footprint_bytes || *first->capacity_footprint_bytes < first->stride_bytes) {
    out.note = "the capacity at the first power-of-two stride beyond the size was not found";
    return out;
  }
  const double elements =
      static_cast<double>(*first->capacity_footprint_bytes / first->stride_bytes);
  out.raw_ratio = static_cast<double>(size_bytes) / elements;
  const std::uint64_t line = nearest_power_of_two(out.raw_ratio);
  if (log2_distance(out.raw_ratio, static_cast<double>(line)) > kMaxOctavesOffPowerOfTwo) {
    out.note = "size / capacity in elements at the first power-of-two stride beyond the size is " +
               std::to_string(static_cast<long long>(out.raw_ratio)) +
               " B, not near a power of two";
    return out;
  }
  out.line_bytes = line;
  out.note = "a single power-of-two stride backs the value";
  if (first->stride_bytes != 2 * line) {
    out.note += "; the first stride holding more than the size is " +
                std::to_string(first->stride_bytes) + " B, not twice the line";
  }
  const auto agreeing = static_cast<std::size_t>(
      std::count_if(sorted.begin(), sorted.end(),
                    [&](const StrideCapacity& s) { return pow2_agrees_with_line(s, line); }));
  out.confidence = {
      octave_closeness(out.raw_ratio, "size / capacity in elements at stride " +
                                          std::to_string(first->stride_bytes) + " B:"),
      agreement(agreeing, sorted.size(),
                "power-of-two strides behaving as a " + std::to_string(line) + " B line predicts")};
  return out;
}

}  // namespace memtopo
