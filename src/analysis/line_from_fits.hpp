#pragma once
// Line size of a large cache from one fit verdict per stride, with no capacity search: what an
// L2 can afford (every chase must hold more lines than the cache, and runs alone on the device).
//
// Strides are p x u for a fixed odd prime p and power-of-two units u (sector, 2 sector, ...).
// A footprint of F bytes at stride s holds F / s elements. With the cache's measured size S:
//   u >= line: every element takes a line of its own, and p (prime to the set count) walks the
//              sets evenly, so the cache holds S / line elements of p u bytes: p S (u / line) of
//              footprint under a hashed index, p S under a modulo index over an even set count
//              (a power-of-two multiple of the line reaches fewer sets): at least p S either way;
//   u < line:  each element still takes a line (p u >= 1.5 line at u = line / 2), but covers
//              only p u bytes of footprint: at most p S / 2.
// So a chase over (3/4) p S fits exactly when u >= line; the smallest unit that fits is the line.
// Plain power-of-two strides (p = 1) would need an evenly spread index: a modulo index over an
// even set count reaches half the sets at twice the line and never holds more than S.
// Cross-check at the line: a chase over (5/4) p S there misses, so the capacity in elements lies
// in [3/4, 5/4) x S / line and size / capacity-in-elements lies in (0.8, 1.33] x line.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"

namespace memtopo {

// The classifying footprint is kClassifyNumerator / kClassifyDenominator x p x size: between
// p S / 2 (held below the line) and p S (held at or beyond it).
inline constexpr std::uint64_t kClassifyNumerator = 3, kClassifyDenominator = 4;
// The cross-check footprint at the line: above p S, which no unit at the line can hold.
inline constexpr std::uint64_t kCrossCheckNumerator = 5, kCrossCheckDenominator = 4;

struct UnitFit {
  std::uint64_t unit_bytes = 0;
  bool fits = false;
  double miss_score = 0;  // FitVerdict::miss_score: 0 for a clean fit, up to 1 for all misses
};

struct FitLadderLine {
  std::optional<std::uint64_t> line_bytes;
  Confidence confidence;                    // with line_bytes only
  std::uint64_t smallest_fitting_unit = 0;  // 0 when none fitted
  std::uint64_t largest_missing_unit = 0;   // 0 when none missed
  // Contrast of the verdicts: 1 - (largest miss score of a fit) / (smallest of a miss).
  double contrast = 0;
  // size / capacity-in-elements at the line, bracketed by the classifying fit (upper end) and,
  // when it missed, the cross-check (lower end, exclusive); 0 when not known.
  double size_over_capacity_low_bytes = 0;
  double size_over_capacity_high_bytes = 0;
  bool cross_check_agrees = false;
  std::string note;  // why inconclusive, or remarks
};

// `fits`: the verdicts at the classifying footprint, any order. `min_line_bytes`: no line is
// smaller than this (the measured sector); a fit at that unit needs no miss below it.
// `cross_check`: the verdict at the cross-check footprint at the smallest fitting unit, when run.
// Inconclusive when no unit fits, when the verdicts flip more than once (a miss above a fit), or
// when the smallest fitting unit has no miss below it and is not min_line_bytes. Confidence
// (analysis/confidence): contrast of the verdicts (above) x agreement of the checks: every unit's
// verdict (each agrees, or the result is inconclusive) and the cross-check when it ran (agrees
// when it missed; one that fitted holds more elements than one line each allows). Fewer units,
// as when the line is min_line_bytes with no miss below it, or no cross-check, are fewer checks.
FitLadderLine infer_line_from_unit_fits(std::span<const UnitFit> fits, std::uint64_t min_line_bytes,
                                        std::optional<UnitFit> cross_check);

}  // namespace memtopo
