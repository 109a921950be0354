#pragma once
// Trends along a sweep, for the `sync` and `spilling` studies: a least-squares line (cost per
// spilled byte) and how many neighbouring points keep a direction (cost rising with threads).
// Pure functions of numbers, tested with synthetic timings.
#include <cstddef>
#include <optional>
#include <span>

#include "analysis/line_fit.hpp"

namespace memtopo::study {

// The line fit is analysis/line_fit's (least squares by default).
using ::memtopo::fit_line;
using ::memtopo::LineFit;

// Of the n - 1 neighbouring pairs of `values` (in sweep order), how many do not fall by more
// than `tolerance` (a relative share: 0.1 lets the next value be 10 % lower).
struct PairCount {
  std::size_t in_order = 0;
  std::size_t pairs = 0;
};
PairCount non_decreasing_pairs(std::span<const double> values, double tolerance);

}  // namespace memtopo::study
