#pragma once
// The levels whose bandwidth memtopo measures, one table row each, and where a row's footprint
// comes from: earlier findings (the sizes the latency-based probes measured), with API values or
// conservative defaults as fallbacks that the evidence names. Never a GPU model's values.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/stream.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

enum class BandwidthFootprint {
  inside_sm_cache,  // half the element's measured size: every SM re-reads a window it holds
  shared_window,    // a window of shared memory per block, small enough for many blocks
  inside_l2,        // a quarter of the L2: well inside it, far beyond the SM caches' reach
  beyond_l2,        // many times the L2: every pass misses it
};

enum class BandwidthSweep {
  none,
  per_sm,  // one window per SM from a few KiB to 4 x the element's size: the knee is its size
  device,  // one array shared by all SMs from L2 / 64 to 4 x L2: the knee is the L2's size
};

struct BandwidthTarget {
  std::string element;  // the probe id is "<element>.bandwidth"
  LoadPath path;        // what the reads go through
  StreamPlacement placement;
  BandwidthFootprint footprint;
  bool per_sm;    // also bandwidth_per_sm_clock (SM-local levels)
  bool writes;    // also write_bandwidth and copy_bandwidth (beyond_l2: and triad_bandwidth)
  bool api_peak;  // also peak_bandwidth (api) and peak_fraction (derived): DRAM
  BandwidthSweep sweep;
  std::vector<std::string> needs;  // the size findings its footprint and knee are planned from
  std::string description;
};

const std::vector<BandwidthTarget>& bandwidth_targets();

// A row's footprint and how it was chosen.
struct FootprintPlan {
  std::uint64_t bytes = 0;
  std::string rule;  // for the evidence, e.g. "half of the measured l1.size (240 KiB)"
  // The finding the footprint was planned from ("l1.size"; the runner caps the rates by its
  // confidence); empty when a fallback was used.
  std::string from_finding;
  // The level's size the sweep's knee is compared with, and where it came from.
  std::optional<std::uint64_t> level_size;
  std::string level_size_source;  // "l2.size (measured)", "the API's L2 size"
  // The API's size of the level where it has one (the L2): what all SMs together may fill,
  // which can exceed what one SM's chase finds (an L2 in two halves, each near half the SMs).
  std::optional<std::uint64_t> api_level_size;
};

// Plans `target`'s footprint from earlier findings, device facts and the backend's limits.
// Throws ProbeSkipped where the level does not exist on this path (its size probe found no
// cache) or no footprint fits.
FootprintPlan plan_footprint(const ProbeContext& ctx, const BandwidthTarget& target);

}  // namespace memtopo
