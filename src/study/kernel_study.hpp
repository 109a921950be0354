#pragma once
// What the `sync` and `spilling` studies share (their kernels come from RunContext::study_kernels,
// which skips where there are none): measured cells of their samples, and finding confidences.
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "backend/study_kernels.hpp"
#include "study/result.hpp"
#include "study/study.hpp"

namespace memtopo::study {

// A cell of timing samples: p50, spread, and the share of samples within this band of it.
inline constexpr double kTimingBand = 0.05;
Cell timing_cell(const std::vector<double>& samples);

// The confidence a finding that quotes these cells inherits: the least sure of them.
ConfidenceFactor quoted_cells(const std::vector<const Cell*>& cells, const std::string& what);

// "12.3" style: a measured number in a sentence, with `digits` after the point.
std::string fixed(double value, int digits = 1);

}  // namespace memtopo::study
