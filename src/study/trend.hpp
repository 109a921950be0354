#pragma once
// Trends along a sweep, for the `sync` and `spilling` studies: a least-squares line (cost per
// spilled byte) and how many neighbouring points keep a direction (cost rising with threads).
// Pure functions of numbers, tested with synthetic timings.
#include <cstddef>
#include <optional>
#include <span>

namespace memtopo::study {

struct LineFit {
  double slope = 0;
  double intercept = 0;
  double r_squared = 0;  // 1: every point on the line; 0: the line explains nothing
};

// Least-squares y = slope x + intercept. nullopt with fewer than two points, sizes that
// differ, or all x equal. r_squared is 1 when every y is equal (nothing left to explain).
std::optional<LineFit> fit_line(std::span<const double> x, std::span<const double> y);

// Of the n - 1 neighbouring pairs of `values` (in sweep order), how many do not fall by more
// than `tolerance` (a relative share: 0.1 lets the next value be 10 % lower).
struct PairCount {
  std::size_t in_order = 0;
  std::size_t pairs = 0;
};
PairCount non_decreasing_pairs(std::span<const double> values, double tolerance);

}  // namespace memtopo::study
