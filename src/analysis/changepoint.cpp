#include "analysis/changepoint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/stats.hpp"

namespace memtopo {

SquaredErrorCost::SquaredErrorCost(std::span<const double> series)
    : sum_(series.size() + 1, 0.0), sum_of_squares_(series.size() + 1, 0.0) {
  if (!series.empty()) shift_ = series.front();
  for (std::size_t i = 0; i < series.size(); ++i) {
    const double x = series[i] - shift_;
    sum_[i + 1] = sum_[i] + x;
    sum_of_squares_[i + 1] = sum_of_squares_[i] + x * x;
  }
}

double SquaredErrorCost::operator()(std::size_t begin, std::size_t end) const {
  const double n = static_cast<double>(end - begin);
  const double s = sum_[end] - sum_[begin];
  const double cost = (sum_of_squares_[end] - sum_of_squares_[begin]) - s * s / n;
  return std::max(cost, 0.0);  // rounding may leave a constant segment a hair below zero
}

double robust_noise_sigma(std::span<const double> series) {
  if (series.size() < 3) return 0.0;
  std::vector<double> diffs(series.size() - 1);
  for (std::size_t i = 0; i + 1 < series.size(); ++i) diffs[i] = series[i + 1] - series[i];
  return robust_noise_sigma_of_differences(diffs);
}

double robust_noise_sigma_of_differences(std::span<const double> diffs) {
  if (diffs.size() < 2) return 0.0;
  const double centre = median(diffs);
  std::vector<double> deviations(diffs.size());
  for (std::size_t i = 0; i < diffs.size(); ++i) deviations[i] = std::abs(diffs[i] - centre);
  // 1.4826 makes the MAD a consistent estimate of a Gaussian sigma.
  const double limit = 5.0 * 1.4826 * median(deviations);
  double squares = 0;
  std::size_t kept = 0;
  for (double dev : deviations) {
    if (dev > limit) continue;  // a step or an outlier
    squares += dev * dev;
    ++kept;
  }
  // kept >= half of the differences: at least half lie within the MAD itself.
  return std::sqrt(squares / static_cast<double>(kept) / 2.0);
}

std::vector<double> winsorize_above_running_median(std::span<const double> series,
                                                    std::size_t half_window, double bound) {
  std::vector<double> out(series.begin(), series.end());
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::size_t begin = i > half_window ? i - half_window : 0;
    const std::size_t end = std::min(series.size(), i + half_window + 1);
    const double centre = median(series.subspan(begin, end - begin));
    out[i] = std::min(series[i], centre + bound);
  }
  return out;
}

double noise_sigma(std::span<const double> series, const ChangePointOptions& options) {
  if (options.known_sigma > 0) return std::max(options.known_sigma, options.min_noise);
  return std::max(robust_noise_sigma(series), options.min_noise);
}

std::vector<double> prepared_series(std::span<const double> series,
                                    const ChangePointOptions& options) {
  if (!options.robust) return {series.begin(), series.end()};
  const double bound = options.clip_sigmas * noise_sigma(series, options);
  return winsorize_above_running_median(series, options.half_window, bound);
}

double change_point_penalty(std::size_t n, double sigma, const ChangePointOptions& options) {
  return options.penalty_factor * sigma * sigma * std::log(static_cast<double>(n));
}

std::size_t opt_single_change_point(std::span<const double> series,
                                    const ChangePointOptions& options) {
  const std::size_t n = series.size();
  const std::size_t min_seg = std::max<std::size_t>(1, options.min_segment);
  if (n < 2 * min_seg) throw std::invalid_argument("series too short for a change point");
  const SquaredErrorCost cost(prepared_series(series, options));
  std::size_t best = min_seg;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t t = min_seg; t + min_seg <= n; ++t) {
    const double c = cost(0, t) + cost(t, n);
    if (c < best_cost) {
      best_cost = c;
      best = t;
    }
  }
  return best;
}

std::vector<std::size_t> change_points(std::span<const double> series,
                                       const ChangePointOptions& options) {
  const std::size_t n = series.size();
  const std::size_t min_seg = std::max<std::size_t>(1, options.min_segment);
  if (n < 2 * min_seg) return {};
  const SquaredErrorCost cost(prepared_series(series, options));
  const double beta = change_point_penalty(n, noise_sigma(series, options), options);

  // best[s]: least penalised cost of series[0, s); last[s]: start of its last segment.
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, kNone);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;  // the first segment opens no change point

  // Candidate last-segment starts. PELT drops t once best[t] + cost[t, s) > best[s]: for any
  // later s', starting the last segment at s instead is then no worse (the cost is additive
  // and splitting never raises it). With a minimum segment length the alternative through s
  // is only allowed once s' >= s + min_seg, so the drop takes effect from there.
  struct Candidate {
    std::size_t start;
    std::size_t drop_from;  // n + 1: not dropped
  };
  std::vector<Candidate> candidates{{0, n + 1}};
  for (std::size_t s = min_seg; s <= n; ++s) {
    for (const auto& c : candidates) {
      if (c.start + min_seg > s || c.drop_from <= s) continue;
      const double total = best[c.start] + cost(c.start, s) + beta;
      if (total < best[s]) {
        best[s] = total;
        last[s] = c.start;
      }
    }
    std::erase_if(candidates, [&](const Candidate& c) { return c.drop_from <= s; });
    for (auto& c : candidates) {
      if (c.start + min_seg > s || c.drop_from <= n) continue;
      if (best[c.start] + cost(c.start, s) > best[s]) c.drop_from = s + min_seg;
    }
    if (s + min_seg <= n) candidates.push_back({s, n + 1});
  }

  std::vector<std::size_t> points;
  for (std::size_t s = n; last[s] > 0; s = last[s]) points.push_back(last[s]);
  std::reverse(points.begin(), points.end());
  return points;
}

std::vector<SeriesSegment> segments_between(std::span<const std::size_t> points, std::size_t n) {
  std::vector<SeriesSegment> segments;
  std::size_t begin = 0;
  for (std::size_t p : points) {
    segments.push_back({begin, p});
    begin = p;
  }
  segments.push_back({begin, n});
  return segments;
}

}  // namespace memtopo
