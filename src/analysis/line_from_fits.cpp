#include "analysis/line_from_fits.hpp"

#include <algorithm>
#include <limits>

namespace memtopo {
namespace {

// A miss score runs from 0 (a clean fit) to this (every access missed).
constexpr double kFullMissScore = 1.0;

void add_remark(std::string& note, const std::string& remark) {
  note += (note.empty() ? "" : "; ") + remark;
}

}  // namespace

FitLadderLine infer_line_from_unit_fits(std::span<const UnitFit> fits, std::uint64_t min_line_bytes,
                                        std::optional<UnitFit> cross_check) {
  std::vector<UnitFit> sorted(fits.begin(), fits.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const UnitFit& a, const UnitFit& b) { return a.unit_bytes < b.unit_bytes; });
  FitLadderLine out;
  const auto first_fit =
      std::find_if(sorted.begin(), sorted.end(), [](const UnitFit& f) { return f.fits; });
  if (first_fit == sorted.end()) {
    out.note = sorted.empty() ? "no unit was tried"
                              : "no unit held 3/4 of the prime times the size: the line exceeds "
                                "the largest unit tried, or the prime divides the set count";
    return out;
  }
  out.smallest_fitting_unit = first_fit->unit_bytes;
  // Verdicts must read miss ... miss fit ... fit: a miss above the first fit is a second flip.
  const bool flips_again =
      std::any_of(first_fit, sorted.end(), [](const UnitFit& f) { return !f.fits; });
  if (flips_again) {
    out.note = "the verdicts flip more than once along the units (a miss above the fit at " +
               std::to_string(out.smallest_fitting_unit) +
               " B): the capacity does not follow one line size";
    return out;
  }
  double worst_fit = 0;
  for (auto it = first_fit; it != sorted.end(); ++it)
    worst_fit = std::max(worst_fit, it->miss_score);
  double best_miss = std::numeric_limits<double>::infinity();
  for (auto it = sorted.begin(); it != first_fit; ++it) {
    best_miss = std::min(best_miss, it->miss_score);
    out.largest_missing_unit = it->unit_bytes;
  }
  const bool miss_below = out.largest_missing_unit > 0;
  if (!miss_below && out.smallest_fitting_unit != min_line_bytes) {
    out.note = "the smallest unit tried (" + std::to_string(out.smallest_fitting_unit) +
               " B) already fitted and is above the smallest possible line: the line is at "
               "most that";
    return out;
  }
  out.line_bytes = out.smallest_fitting_unit;
  // The gap between the worst fit's miss score and the best miss's; without a miss, the fits
  // alone say how clean the verdicts are (against a full miss score).
  const ConfidenceFactor verdict_contrast =
      miss_below && best_miss > 0
          ? contrast(best_miss - worst_fit, best_miss,
                     "miss-score margin of the worst fit below the best miss:")
          : contrast(kFullMissScore - worst_fit, kFullMissScore,
                     "miss-score margin of the worst fit below a full miss:");
  out.contrast = verdict_contrast.value;
  const double line = static_cast<double>(*out.line_bytes);
  out.size_over_capacity_high_bytes =
      line * static_cast<double>(kClassifyDenominator) / static_cast<double>(kClassifyNumerator);
  if (!miss_below) {
    add_remark(out.note, "the smallest possible line (the sector) fitted: no miss below backs it");
  }
  if (!cross_check) {
    add_remark(out.note, "no cross-check of the capacity at the line");
  } else if (cross_check->fits) {
    out.size_over_capacity_high_bytes = line * static_cast<double>(kCrossCheckDenominator) /
                                        static_cast<double>(kCrossCheckNumerator);
    add_remark(out.note,
               "cross-check disagrees: the line's stride held 5/4 of the prime times the size, "
               "more elements than one line each allows");
  } else {
    out.cross_check_agrees = true;
    out.size_over_capacity_low_bytes = line * static_cast<double>(kCrossCheckDenominator) /
                                       static_cast<double>(kCrossCheckNumerator);
  }
  // Every unit's verdict agrees with the line (or the result would be inconclusive above).
  const std::size_t units = sorted.size();
  const std::size_t checks = units + (cross_check ? 1 : 0);
  const std::size_t agreeing = units + (out.cross_check_agrees ? 1 : 0);
  out.confidence = {verdict_contrast,
                    agreement(agreeing, checks, "checks (unit verdicts and the cross-check)")};
  return out;
}

}  // namespace memtopo
