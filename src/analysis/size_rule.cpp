#include "analysis/size_rule.hpp"

#include "analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memtopo {

FitRule fit_rule_for(const SizeBaseline& baseline) {
  FitRule rule;
  rule.threshold_cycles = 0.5 * (baseline.hit_cycles + baseline.next_level_cycles);
  return rule;
}

namespace {

// P(Poisson(lambda) <= k), summed in log space.
double poisson_cdf(std::size_t k, double lambda) {
  if (lambda <= 0) return 1.0;
  double cumulative = 0;
  const double log_lambda = std::log(lambda);
  for (std::size_t i = 0; i <= k; ++i) {
    const double id = static_cast<double>(i);
    cumulative += std::exp(-lambda + id * log_lambda - std::lgamma(id + 1));
  }
  return std::min(1.0, cumulative);
}

}  // namespace

double poisson_upper_bound(std::size_t observed, double tail) {
  // The cdf falls with the mean: bisect between the observation and far above it.
  double low = static_cast<double>(observed);
  double high = low + 20 * std::sqrt(low + 1) + 20;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (low + high);
    (poisson_cdf(observed, mid) > tail ? low : high) = mid;
  }
  return high;
}

FitRule with_measured_outlier_rate(FitRule rule, std::span<const double> hit_corrected_cycles) {
  if (hit_corrected_cycles.empty()) return rule;
  // Tail 10^-2: a baseline with fewer outliers than its true rate rarely leaves the bound
  // below it, and the 10^-6 tail of the allowances leaves room for the rest.
  constexpr double kRateBoundTail = 1e-2;
  std::size_t slow = 0;
  for (double c : hit_corrected_cycles) slow += c > rule.threshold_cycles;
  const double bound =
      poisson_upper_bound(slow, kRateBoundTail) / static_cast<double>(hit_corrected_cycles.size());
  rule.outlier_rate = std::max(rule.outlier_rate, bound);
  return rule;
}

std::size_t allowed_misses(double expected_outlier_misses, double tail) {
  const double lambda = std::max(0.0, expected_outlier_misses);
  if (lambda == 0) return 0;
  // Sum the Poisson probabilities in log space (exp(-lambda) underflows for large lambda) until
  // what is left above k is at most `tail`.
  double cumulative = 0;
  const double log_lambda = std::log(lambda);
  const auto last = static_cast<std::size_t>(lambda + 50 * std::sqrt(lambda) + 50);
  for (std::size_t k = 0; k <= last; ++k) {
    const double kd = static_cast<double>(k);
    cumulative += std::exp(-lambda + kd * log_lambda - std::lgamma(kd + 1));
    if (1.0 - cumulative <= tail) return k;
  }
  return last;
}

namespace {

// One element's timed accesses: how many, and how many slower than the threshold.
struct ElementAccesses {
  std::uint32_t passes = 0;
  std::uint32_t slow = 0;
};

// Counted in a table indexed by word when the words span at most this many times the accesses
// (a chain's elements a stride apart, visited on every pass: its words span stride / 4 times the
// elements); sorted otherwise. The table was the sort's 34 % of a simulated l1.size, and on an
// H200 the size and ways probes spent 190-250 ms each on the host between their chases.
constexpr std::uint64_t kTableSpanPerAccess = 64;

// Groups the accesses by word through a table over the words' span, in word order: what
// sorting them gives, in linear time.
std::vector<ElementAccesses> counted_in_a_table(std::span<const double> corrected_cycles,
                                                std::span<const std::uint32_t> indices,
                                                double threshold_cycles, std::uint32_t lowest,
                                                std::uint64_t span) {
  std::vector<ElementAccesses> table(span);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    ElementAccesses& element = table[indices[i] - lowest];
    element.passes += 1;
    element.slow += corrected_cycles[i] > threshold_cycles;
  }
  std::vector<ElementAccesses> elements;
  for (const ElementAccesses& element : table) {
    if (element.passes > 0) elements.push_back(element);
  }
  return elements;
}

// A chase visits its chain in the same order on every pass, so its accesses repeat one period of
// distinct words (the last pass perhaps cut short). Counted per position of that period, whose
// positions then go in word order: what the table or the sort below give, for the period's
// sort alone (on an H200 the line probe sorted 60 ms of accesses, the size probes' tables over
// their words' span took 0.1 s). Nullopt when the accesses are not such a repetition.
std::optional<std::vector<ElementAccesses>> counted_by_period(
    std::span<const double> corrected_cycles, std::span<const std::uint32_t> indices,
    double threshold_cycles) {
  const auto repeat = std::find(indices.begin() + 1, indices.end(), indices.front());
  const auto period = static_cast<std::size_t>(repeat - indices.begin());
  if (period == indices.size()) return std::nullopt;  // no pass repeats: nothing to share
  for (std::size_t i = period; i < indices.size(); ++i) {
    if (indices[i] != indices[i - period]) return std::nullopt;
  }
  std::vector<std::uint32_t> positions(period);
  std::iota(positions.begin(), positions.end(), 0u);
  std::sort(positions.begin(), positions.end(),
            [&](std::uint32_t a, std::uint32_t b) { return indices[a] < indices[b]; });
  for (std::size_t k = 1; k < period; ++k) {
    if (indices[positions[k]] == indices[positions[k - 1]]) return std::nullopt;
  }
  std::vector<ElementAccesses> by_position(period);
  for (std::size_t i = 0, at = 0; i < indices.size(); ++i, at = at + 1 == period ? 0 : at + 1) {
    by_position[at].passes += 1;
    by_position[at].slow += corrected_cycles[i] > threshold_cycles;
  }
  std::vector<ElementAccesses> elements;
  elements.reserve(period);
  for (const std::uint32_t position : positions) elements.push_back(by_position[position]);
  return elements;
}

// The accesses of one trace grouped by the word they loaded, in word order. Throws
// std::invalid_argument (naming `caller`) when the spans differ in length or are empty.
std::vector<ElementAccesses> accesses_by_element(std::span<const double> corrected_cycles,
                                                 std::span<const std::uint32_t> indices,
                                                 double threshold_cycles, const char* caller) {
  if (corrected_cycles.empty()) {
    throw std::invalid_argument(std::string(caller) + ": no timed accesses");
  }
  if (corrected_cycles.size() != indices.size()) {
    throw std::invalid_argument(std::string(caller) + ": cycles and indices differ in length");
  }
  if (auto elements = counted_by_period(corrected_cycles, indices, threshold_cycles)) {
    return std::move(*elements);
  }
  const auto [lowest, highest] = std::minmax_element(indices.begin(), indices.end());
  const std::uint64_t span = std::uint64_t{*highest} - *lowest + 1;
  if (span <= kTableSpanPerAccess * indices.size()) {
    return counted_in_a_table(corrected_cycles, indices, threshold_cycles, *lowest, span);
  }
  std::vector<std::pair<std::uint32_t, bool>> accesses(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    accesses[i] = {indices[i], corrected_cycles[i] > threshold_cycles};
  }
  std::sort(accesses.begin(), accesses.end());
  std::vector<ElementAccesses> elements;
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    if (i == 0 || accesses[i].first != accesses[i - 1].first) elements.emplace_back();
    elements.back().passes += 1;
    elements.back().slow += accesses[i].second;
  }
  return elements;
}

}  // namespace

FitVerdict judge_fit(std::span<const double> corrected_cycles,
                     std::span<const std::uint32_t> indices, const FitRule& rule) {
  FitVerdict verdict;
  double expected_outlier_misses = 0;
  verdict.min_passes = std::numeric_limits<std::uint32_t>::max();
  // The elements mostly share one pass count: its power is computed once per run of them.
  std::uint32_t powered_passes = 0;
  double power = 1;  // rate^powered_passes
  for (const ElementAccesses& element :
       accesses_by_element(corrected_cycles, indices, rule.threshold_cycles, "judge_fit")) {
    verdict.min_passes = std::min(verdict.min_passes, element.passes);
    verdict.elements += 1;
    verdict.missing += element.slow == element.passes;
    verdict.slow_accesses += element.slow;
    // An element whose every access is an outlier: probability rate^passes.
    if (element.passes != powered_passes) {
      powered_passes = element.passes;
      power = std::pow(rule.outlier_rate, element.passes);
    }
    expected_outlier_misses += power;
  }
  verdict.accesses = corrected_cycles.size();

  verdict.allowed = allowed_misses(expected_outlier_misses, rule.false_miss_probability);
  const double accesses_d = static_cast<double>(verdict.accesses);
  const double expected_outliers = rule.outlier_rate * accesses_d;
  verdict.allowed_slow = allowed_misses(expected_outliers, rule.false_miss_probability);
  const double elements = static_cast<double>(verdict.elements);
  const double surplus =
      std::max(0.0, static_cast<double>(verdict.slow_accesses) - expected_outliers);
  verdict.miss_fraction = static_cast<double>(verdict.missing) / elements;
  verdict.miss_score = std::max(verdict.miss_fraction, surplus / accesses_d);
  verdict.limit = static_cast<double>(verdict.allowed) / elements;
  verdict.fits =
      verdict.missing <= verdict.allowed && verdict.slow_accesses <= verdict.allowed_slow;
  return verdict;
}

std::size_t elements_slow_on_most_passes(std::span<const double> corrected_cycles,
                                         std::span<const std::uint32_t> indices,
                                         double threshold_cycles) {
  std::size_t missing = 0;
  for (const ElementAccesses& element : accesses_by_element(
           corrected_cycles, indices, threshold_cycles, "elements_slow_on_most_passes")) {
    missing += 2 * element.slow > element.passes;
  }
  return missing;
}

double edge_confidence(std::span<const ScanPoint> scan, std::uint64_t size_bytes) {
  std::size_t agreeing = 0;
  std::vector<double> below;  // miss fractions at or below the size
  std::vector<double> above;  // miss fractions above it
  for (const ScanPoint& point : scan) {
    const bool inside = point.footprint_bytes <= size_bytes;
    agreeing += (point.fits == inside);
    (inside ? below : above).push_back(point.miss_fraction);
  }
  if (below.empty() || above.empty()) return 0;
  const double agreement = static_cast<double>(agreeing) / static_cast<double>(scan.size());
  const double typical_above = median(above);
  const double contrast =
      typical_above > 0 ? std::clamp(1.0 - median(below) / typical_above, 0.0, 1.0) : 0.0;
  return agreement * contrast;
}

std::uint64_t fewest_contradictions_edge(std::span<const ScanPoint> verdicts) {
  std::uint64_t best_edge = 0;
  std::size_t best_contradictions = std::numeric_limits<std::size_t>::max();
  for (const ScanPoint& candidate : verdicts) {
    if (!candidate.fits) continue;
    std::size_t contradictions = 0;
    for (const ScanPoint& point : verdicts) {
      const bool inside = point.footprint_bytes <= candidate.footprint_bytes;
      contradictions += (point.fits != inside);
    }
    if (contradictions < best_contradictions ||
        (contradictions == best_contradictions && candidate.footprint_bytes < best_edge)) {
      best_contradictions = contradictions;
      best_edge = candidate.footprint_bytes;
    }
  }
  return best_edge;
}

}  // namespace memtopo
