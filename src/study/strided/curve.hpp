#pragma once
// Where a throughput curve over doubling strides stops falling, and how well a granularity
// model explains it: the analysis behind the stride and coalescing findings. Pure host code.
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/confidence.hpp"

namespace memtopo::study {

// Two throughputs within this relative band are "flat": the curve no longer changes.
inline constexpr double kFlatBand = 0.15;
// A measured ratio agrees with the model's when within this relative band of it.
inline constexpr double kModelBand = 0.25;

struct CurvePoint {
  double x = 0;      // the stride (elements) or offset (words)
  double value = 0;  // throughput p50
};

// The first point from which every later point stays within kFlatBand of it (the plateau's
// start), when the curve fell before it; nullopt when it never fell or never flattened.
std::optional<std::size_t> plateau_start(const std::vector<CurvePoint>& curve);

// agreement: how many points' throughput ratio to the first point matches the model's
// (units the first point's request moves over units this point's moves), within kModelBand.
ConfidenceFactor model_agreement(const std::vector<CurvePoint>& curve,
                                 const std::vector<double>& units_moved);

}  // namespace memtopo::study
