#include "study/trend.hpp"

namespace memtopo::study {

std::optional<LineFit> fit_line(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  if (n < 2 || y.size() != n) return std::nullopt;
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxx = 0;
  double sxy = 0;
  double syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    syy += (y[i] - mean_y) * (y[i] - mean_y);
  }
  if (sxx <= 0) return std::nullopt;
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  fit.r_squared = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  return fit;
}

PairCount non_decreasing_pairs(std::span<const double> values, double tolerance) {
  PairCount count;
  for (std::size_t i = 1; i < values.size(); ++i) {
    ++count.pairs;
    if (values[i] >= values[i - 1] * (1 - tolerance)) ++count.in_order;
  }
  return count;
}

}  // namespace memtopo::study
