#pragma once
// The SM-local line probe's plan: two ladders of strides, each classified at its own probe
// footprint in one batch (with the baselines).
//   prime:        strides p x unit (p = kLinePrime, or the next of kLinePrimes when it held
//                 nothing), units = sector x 2^k, classified at 3/4 of p x the size
//                 (analysis/linesize.hpp: infer_line);
//   power of two: strides unit x 2^k from twice the unit, classified at 3/2 of the size, for a
//                 hashed set index (infer_line_from_power_of_two_strides).
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/linesize.hpp"
#include "analysis/size_rule.hpp"
#include "probes/line/line_measurement.hpp"

namespace memtopo {

// The prime ladder's probe footprint is kProbeNumerator / kProbeDenominator x p x size: below
// the line the cache holds at most p x size / 2 of footprint, at or beyond it p x size or more.
inline constexpr std::uint64_t kProbeNumerator = 3, kProbeDenominator = 4;
// The power-of-two ladder's is 3/2 of the size: at or below the line the cache holds the size,
// at twice the line (evenly spread sets) twice the size.
inline constexpr std::uint64_t kPow2ProbeNumerator = 3, kPow2ProbeDenominator = 2;

// One path's strides: what was planned and what the chases said.
struct StrideLadder {
  std::uint64_t probe_target_bytes = 0;  // the probe footprint before rounding to each stride
  // Per stride, ascending: the stride, its probe footprint, whether that fitted and (once
  // searched) its capacity.
  std::vector<StrideCapacity> strides;
  std::vector<FitVerdict> verdicts;  // at the probe footprint, per stride
};

struct LinePlan {
  std::uint64_t size_bytes = 0;
  std::optional<std::uint64_t> sector_bytes;  // measured in this run
  std::uint64_t unit_bytes = 0;               // the sector, or kSmallestLineBytes without one
  std::uint64_t prime_number = 0;             // the p of the prime ladder
  StrideLadder prime;
  StrideLadder power_of_two;
};

// Both ladders for a cache of `size` bytes; throws ProbeSkipped when the cache is too small for
// a prime ladder or the backend cannot chase its probe footprint.
LinePlan plan_stride_ladders(const LineMeasurement& measurement, std::uint64_t size,
                             std::optional<std::uint64_t> sector);

// The same plan with the prime ladder of another prime (unclassified) and no power-of-two
// ladder; nullopt when the backend cannot chase its probe footprint.
std::optional<LinePlan> with_prime(const LineMeasurement& measurement, const LinePlan& plan,
                                   std::uint64_t prime);

// Runs the baselines and every stride of both ladders at its probe footprint in one batch, takes
// the baselines and records each stride's verdict.
void classify_strides(LineMeasurement& measurement, LinePlan& plan);

// Classifies the prime ladder alone (one batch), against the baselines already taken.
void classify_prime_strides(LineMeasurement& measurement, LinePlan& plan);

}  // namespace memtopo
