#pragma once
// The pair path of the SM-local line probe (analysis/pair_line.hpp): a ladder of counts of
// reference pairs (two adjacent words of a random block), then that many pairs at every offset
// from the unit to kLargestUnitBytes. Run when the prime strides found no line, which is what a
// hashed set index does to them.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/pair_line.hpp"
#include "probes/line/line_measurement.hpp"

namespace memtopo {

struct PairLinePath {
  PairLineInference inference;
  nlohmann::json evidence;  // the plan, the ladder's and the offsets' verdicts
};

// The pair path's method, for the finding's method text.
std::string pair_path_method();

// Measures the line by pairs for a cache of `size_bytes` whose smallest possible line is
// `unit_bytes` (the measured sector). Needs the baselines taken (the fit rule). An inconclusive
// inference (with its note) when the backend cannot chase the region the blocks need or the
// ladder found no count that fits.
PairLinePath measure_line_by_pairs(LineMeasurement& measurement, std::uint64_t size_bytes,
                                   std::uint64_t unit_bytes);

}  // namespace memtopo
