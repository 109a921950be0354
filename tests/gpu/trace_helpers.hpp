#pragma once
// What a correct trace must contain, computed on the host from the spec alone.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/chain.hpp"
#include "backend/experiment.hpp"

namespace memtopo::testing {

// The word indices chaser `chaser` reads in its timed loads: its chain order rotated to start
// at its first word (spec.start_index, shifted into its own segment with private segments),
// where the warm passes (whole cycles) leave the chase, repeated.
inline std::vector<std::uint32_t> expected_visits(const ChaseSpec& spec, std::uint32_t chaser = 0) {
  std::vector<std::uint32_t> order = chain_order(spec, chaser);
  const std::uint32_t shift =
      spec.private_segments ? static_cast<std::uint32_t>(chaser * segment_bytes(spec) / 4) : 0;
  const auto start = std::find(order.begin(), order.end(), spec.start_index + shift);
  std::rotate(order.begin(), start, order.end());
  std::vector<std::uint32_t> visits(spec.timed_loads);
  for (std::size_t k = 0; k < visits.size(); ++k) visits[k] = order[k % order.size()];
  return visits;
}

// Chaser `chaser`'s records of a trace.
inline std::vector<std::uint32_t> chaser_slice(const std::vector<std::uint32_t>& records,
                                               const ChaseSpec& spec, std::uint32_t chaser) {
  const auto first = records.begin() + std::ptrdiff_t(chaser) * spec.timed_loads;
  return {first, first + spec.timed_loads};
}

inline double median_of(std::vector<std::uint32_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (double(values[middle - 1]) + values[middle]) / 2;
}

}  // namespace memtopo::testing
