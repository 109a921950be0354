#include "study/strided/curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memtopo::study {

std::vector<std::size_t> falls(const std::vector<CurvePoint>& curve) {
  std::vector<std::size_t> indices;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (curve[i].value < (1 - kFallBand) * curve[i - 1].value) indices.push_back(i);
  }
  return indices;
}

double predict(const GranularityFit& fit, double blocks) {
  return std::min(fit.cap, fit.per_block / blocks);
}

namespace {

// Scores one (cap, per_block) pair on the curve.
GranularityFit score(const std::vector<CurvePoint>& curve, const std::vector<double>& blocks,
                     double granularity, double cap, double per_block) {
  GranularityFit fit;
  fit.granularity_bytes = granularity;
  fit.cap = cap;
  fit.per_block = per_block;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const double predicted = predict(fit, blocks[i]);
    const bool explained = std::fabs(curve[i].value - predicted) <= kModelBand * predicted;
    const double log_error = std::log(curve[i].value / predicted);
    fit.predicted.push_back(predicted);
    fit.explained.push_back(explained);
    fit.explained_count += explained ? 1 : 0;
    fit.squared_log_error += log_error * log_error;
  }
  return fit;
}

bool better(const GranularityFit& a, const GranularityFit& b) {
  if (a.explained_count != b.explained_count) return a.explained_count > b.explained_count;
  return a.squared_log_error < b.squared_log_error;
}

}  // namespace

GranularityFit fit_granularity(const std::vector<CurvePoint>& curve,
                               const std::vector<double>& blocks, double granularity_bytes) {
  // Every measured value is a candidate cap (plus none), every value x blocks a candidate
  // per-block rate: the model passes exactly through the points that define it.
  std::vector<double> caps{std::numeric_limits<double>::infinity()};
  std::vector<double> rates;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    caps.push_back(curve[i].value);
    rates.push_back(curve[i].value * blocks[i]);
  }
  GranularityFit best;
  bool found = false;
  for (double cap : caps) {
    for (double rate : rates) {
      GranularityFit fit = score(curve, blocks, granularity_bytes, cap, rate);
      if (!found || better(fit, best)) {
        best = std::move(fit);
        found = true;
      }
    }
  }
  return best;
}

std::optional<GranularityChoice> choose_granularity(
    const std::vector<CurvePoint>& curve, const std::vector<GranularityCandidate>& candidates) {
  if (curve.empty() || candidates.empty()) return std::nullopt;
  std::vector<GranularityFit> fits;
  for (const GranularityCandidate& candidate : candidates) {
    fits.push_back(fit_granularity(curve, candidate.blocks, candidate.granularity_bytes));
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < fits.size(); ++i) {
    const bool more = fits[i].explained_count > fits[best].explained_count;
    const bool as_many = fits[i].explained_count == fits[best].explained_count;
    const bool preferred = candidates[i].from_topology && !candidates[best].from_topology;
    const bool same_standing = candidates[i].from_topology == candidates[best].from_topology;
    if (more || (as_many && preferred) ||
        (as_many && same_standing && fits[i].squared_log_error < fits[best].squared_log_error)) {
      best = i;
    }
  }
  GranularityChoice choice{fits[best], {}};
  for (std::size_t i = 0; i < fits.size(); ++i) {
    if (i != best && fits[i].explained_count == fits[best].explained_count) {
      choice.tied_granularities.push_back(fits[i].granularity_bytes);
    }
  }
  return choice;
}

std::vector<double> candidate_granularities(const std::vector<double>& measured) {
  std::vector<double> granularities{32, 64, 128, 256, 512};
  for (double bytes : measured) {
    if (bytes > 0 && std::find(granularities.begin(), granularities.end(), bytes) ==
                         granularities.end()) {
      granularities.push_back(bytes);
    }
  }
  std::sort(granularities.begin(), granularities.end());
  return granularities;
}

}  // namespace memtopo::study
