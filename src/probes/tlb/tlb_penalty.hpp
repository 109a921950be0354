#pragma once
// A TLB level's miss_penalty from the staircase around its step, as a pure function of the
// plateaus' chain means, so that its rules are tested on known numbers (tlb_penalty_test.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "model/topology.hpp"

namespace memtopo::staircase {

struct PenaltyInputs {
  // The plateaus before and after the level's step: their levels (StaircaseLevel::mean, the
  // median of the per-footprint means) and every footprint's mean, for the spread.
  double before_level = 0, after_level = 0;
  std::vector<double> before;
  std::vector<double> after;
  // The mean latency of the chains on which every element missed the level, from an exact
  // scan of sets; without one, the mean of `after` stands in.
  std::optional<double> all_missing_mean;
  // Why a scan of sets that ran could not be read; empty when it was read or none ran.
  std::string unread;
  std::uint64_t stride_bytes = 0;  // of the ladder, for the method
};

// value = the all-missing mean (or the after level) minus the before level; spread over every
// after footprint's mean minus every before one's. A scan that ran unread leaves hits on the after
// plateau: the value is then a lower bound (inconclusive, no confidence). Otherwise `step` is its
// confidence.
Property tlb_miss_penalty(const PenaltyInputs& in, const Confidence& step);

}  // namespace memtopo::staircase
