#pragma once
// A synthetic stream measurement (probes/bandwidth/stream_meter.hpp) for the DRAM rules' tests:
// the launches' rates, their median, the footprint and the launch shape's placement.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "probes/bandwidth/stream_meter.hpp"

namespace memtopo::testing {

inline StreamMeasurement measured_launches(
    std::vector<double> rates, std::uint64_t footprint,
    StreamPlacement placement = StreamPlacement::shared_by_all) {
  StreamMeasurement m;
  m.bytes_per_second = std::move(rates);
  std::vector<double> sorted = m.bytes_per_second;
  std::sort(sorted.begin(), sorted.end());
  m.median_bytes_per_second = sorted[sorted.size() / 2];
  m.spec.placement = placement;
  m.result.footprint_bytes = footprint;
  return m;
}

}  // namespace memtopo::testing
