#include "study/strided/curve.hpp"

#include <cmath>

namespace memtopo::study {

std::optional<std::size_t> plateau_start(const std::vector<CurvePoint>& curve) {
  for (std::size_t start = 1; start < curve.size(); ++start) {
    const double level = curve[start].value;
    bool flat = true;
    for (std::size_t i = start + 1; i < curve.size(); ++i) {
      flat = flat && std::fabs(curve[i].value - level) <= kFlatBand * level;
    }
    const bool fell = curve[0].value > (1 + kFlatBand) * level;
    if (flat) return fell ? std::optional<std::size_t>(start) : std::nullopt;
  }
  return std::nullopt;
}

ConfidenceFactor model_agreement(const std::vector<CurvePoint>& curve,
                                 const std::vector<double>& units_moved) {
  std::size_t agreeing = 0;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const double measured = curve[0].value / curve[i].value;
    const double predicted = units_moved[i] / units_moved[0];
    if (std::fabs(measured - predicted) <= kModelBand * predicted) ++agreeing;
  }
  return agreement(agreeing, curve.size(), "points whose slowdown matches the units moved");
}

}  // namespace memtopo::study
