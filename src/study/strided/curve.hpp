#pragma once
// Which granularity a throughput curve over strides or offsets follows, and where it falls:
// the analysis behind the stride and coalescing findings. Pure host code, tested on synthetic
// curves and on curves recorded on an H200 (tests/study/curve_test.cpp).
//
// The model: a request that touches `blocks` blocks of G bytes costs one pass per block, so
// throughput = min(cap, per_block / blocks): flat at `cap` while something else (issue rate,
// the first level's bandwidth) limits the few-block requests, then inversely proportional to
// the blocks. Each candidate G is fitted by choosing cap and per_block from the measured points
// themselves (every pair tried) so that most points lie within kModelBand of the model; the G
// that explains the most points wins, ties going to a granularity the topology measured, then
// to the smaller squared log error.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memtopo::study {

// A fall to below (1 - kFallBand) of the previous point is a change in the curve.
inline constexpr double kFallBand = 0.15;
// A measured throughput agrees with the model's when within this relative band of it.
inline constexpr double kModelBand = 0.25;

struct CurvePoint {
  double x = 0;      // the stride (elements) or offset (words)
  double value = 0;  // throughput p50
};

// Indices of the points that fall below (1 - kFallBand) of their predecessor.
std::vector<std::size_t> falls(const std::vector<CurvePoint>& curve);

struct GranularityFit {
  double granularity_bytes = 0;
  double cap = 0;        // bytes/s: infinity when no point is capped
  double per_block = 0;  // bytes/s times blocks
  std::vector<double> predicted;
  std::vector<bool> explained;  // per point: within kModelBand of `predicted`
  std::size_t explained_count = 0;
  double squared_log_error = 0;  // sum over points of ln(measured / predicted)^2
};

// The best min(cap, per_block / blocks) for one granularity; `blocks` per point, all > 0.
GranularityFit fit_granularity(const std::vector<CurvePoint>& curve,
                               const std::vector<double>& blocks, double granularity_bytes);

// The fit's prediction for a point that touches `blocks` blocks.
double predict(const GranularityFit& fit, double blocks);

struct GranularityCandidate {
  double granularity_bytes = 0;
  std::vector<double> blocks;  // per point of the curve
  bool from_topology = false;  // a granularity the topology measured (tie-break)
};

struct GranularityChoice {
  GranularityFit best;
  // Other candidates that explain as many points as the best (the choice among them rests
  // on the tie-break only).
  std::vector<double> tied_granularities;
};

// The candidate that explains the most points; nullopt without candidates or points.
std::optional<GranularityChoice> choose_granularity(
    const std::vector<CurvePoint>& curve, const std::vector<GranularityCandidate>& candidates);

// The granularities every stride or coalescing curve is tried against: 32 B to 512 B in
// powers of two, plus `measured` ones (the topology's sector, line or bank row) not among them.
std::vector<double> candidate_granularities(const std::vector<double>& measured);

}  // namespace memtopo::study
