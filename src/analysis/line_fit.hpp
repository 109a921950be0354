#pragma once
// The one straight-line fit of the analysis: y = slope x + intercept through measured points,
// with how well the line explains them (R^2) and how far the points lie from it (residual
// standard deviation). Callers: the spilling study's cost per spilled byte (least squares), the
// TLB sets' ramp of miss counts (Theil-Sen: a bent stretch must not tilt the line), and the
// shared-memory banks' cost per conflict pass (least squares with one intercept per word size).
// Pure functions of numbers, tested with synthetic points of known truth.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace memtopo {

enum class LineMethod {
  // Ordinary least squares: the line of least squared vertical distance.
  least_squares,
  // Theil-Sen: the median of the slopes between every two points of different x, then the
  // median of the intercepts that slope leaves. Up to about 29 % of the points may lie anywhere
  // without moving the line far.
  theil_sen,
};

struct LineFit {
  double slope = 0;
  double intercept = 0;
  // Share of y's variance the line explains: 1 when every point is on it (or every y is equal:
  // nothing left to explain), 0 when it explains nothing (a Theil-Sen line that fits worse than
  // the mean is clamped to 0).
  double r_squared = 0;
  // sqrt(sum of squared residuals / (points - parameters)), in y's unit; 0 when no point is
  // left over beyond the parameters (two points, one line).
  double residual_stdev = 0;
  std::size_t points = 0;
};

// The line through (x[i], y[i]) by `method`. nullopt with fewer than two points, sizes that
// differ, or all x equal (no slope).
std::optional<LineFit> fit_line(std::span<const double> x, std::span<const double> y,
                                LineMethod method = LineMethod::least_squares);

// Parallel lines by least squares: one slope shared by every point, one intercept per group
// (y = slope x + intercepts[group]), for points whose offset depends on a category but whose
// cost per unit of x does not. r_squared is the share of the variance within the groups that
// the slope explains.
struct ParallelLinesFit {
  double slope = 0;
  // (group, intercept), groups in ascending order.
  std::vector<std::pair<std::size_t, double>> intercepts;
  double r_squared = 0;
  double residual_stdev = 0;  // points - groups - 1 degrees of freedom
  std::size_t points = 0;
};

// nullopt when the sizes differ, there are no points, or no group has two different x (no
// common slope).
std::optional<ParallelLinesFit> fit_parallel_lines(std::span<const double> x,
                                                   std::span<const double> y,
                                                   std::span<const std::size_t> group);

}  // namespace memtopo
