#include "analysis/line_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/stats.hpp"

namespace memtopo {

namespace {

// sqrt(sum of squares / degrees of freedom), 0 when none is left.
double residual_stdev(double residual_sum_of_squares, std::size_t points, std::size_t parameters) {
  if (points <= parameters) return 0;
  return std::sqrt(residual_sum_of_squares / static_cast<double>(points - parameters));
}

// The sums each group's centred least squares needs.
struct GroupSums {
  double x_sum = 0, y_sum = 0;
  std::size_t count = 0;
  double mean_x() const { return x_sum / static_cast<double>(count); }
  double mean_y() const { return y_sum / static_cast<double>(count); }
};

std::map<std::size_t, GroupSums> group_sums(std::span<const double> x, std::span<const double> y,
                                            std::span<const std::size_t> group) {
  std::map<std::size_t, GroupSums> groups;
  for (std::size_t i = 0; i < x.size(); ++i) {
    GroupSums& g = groups[group[i]];
    g.x_sum += x[i];
    g.y_sum += y[i];
    ++g.count;
  }
  return groups;
}

std::optional<LineFit> theil_sen(std::span<const double> x, std::span<const double> y) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
    }
  }
  if (slopes.empty()) return std::nullopt;
  LineFit fit;
  fit.points = x.size();
  fit.slope = median(slopes);
  std::vector<double> intercepts;
  for (std::size_t i = 0; i < x.size(); ++i) intercepts.push_back(y[i] - fit.slope * x[i]);
  fit.intercept = median(intercepts);
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  double residual = 0, total = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double off_line = y[i] - (fit.intercept + fit.slope * x[i]);
    const double off_mean = y[i] - mean_y;
    residual += off_line * off_line;
    total += off_mean * off_mean;
  }
  // The median line is not the least-squares one: it can explain less than the mean does.
  fit.r_squared = total > 0 ? std::max(0.0, 1 - residual / total) : 1.0;
  fit.residual_stdev = residual_stdev(residual, fit.points, 2);
  return fit;
}

}  // namespace

std::optional<ParallelLinesFit> fit_parallel_lines(std::span<const double> x,
                                                   std::span<const double> y,
                                                   std::span<const std::size_t> group) {
  if (x.empty() || y.size() != x.size() || group.size() != x.size()) return std::nullopt;
  const std::map<std::size_t, GroupSums> groups = group_sums(x, y, group);
  // Centred on each group's means, the groups share one slope: their pooled sums give it.
  double xy = 0, xx = 0, yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const GroupSums& g = groups.at(group[i]);
    const double dx = x[i] - g.mean_x();
    const double dy = y[i] - g.mean_y();
    xy += dx * dy;
    xx += dx * dx;
    yy += dy * dy;
  }
  if (xx <= 0) return std::nullopt;
  ParallelLinesFit fit;
  fit.points = x.size();
  fit.slope = xy / xx;
  for (const auto& [id, g] : groups) {
    fit.intercepts.emplace_back(id, (g.y_sum - fit.slope * g.x_sum) / static_cast<double>(g.count));
  }
  // Within the groups the residuals' sum of squares is yy - xy^2 / xx, and R^2 = xy^2 / (xx yy).
  fit.r_squared = yy > 0 ? (xy * xy) / (xx * yy) : 1.0;
  fit.residual_stdev =
      residual_stdev(std::max(0.0, yy - xy * xy / xx), fit.points, groups.size() + 1);
  return fit;
}

std::optional<LineFit> fit_line(std::span<const double> x, std::span<const double> y,
                                LineMethod method) {
  if (x.size() < 2 || y.size() != x.size()) return std::nullopt;
  if (method == LineMethod::theil_sen) return theil_sen(x, y);
  const std::vector<std::size_t> one_group(x.size(), 0);
  const std::optional<ParallelLinesFit> lines = fit_parallel_lines(x, y, one_group);
  if (!lines) return std::nullopt;
  return LineFit{lines->slope, lines->intercepts.front().second, lines->r_squared,
                 lines->residual_stdev, lines->points};
}

}  // namespace memtopo
