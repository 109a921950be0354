#pragma once
// One latency probe for every level: a table row says which load path reaches the level, how
// large a footprint keeps the chase in it, and whether caches are warmed or flushed first.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/experiment.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// How a row picks its footprint (always from earlier findings, device facts as planning
// bounds and backend limits; never from a GPU's expected values).
enum class LatencyFootprint {
  inside_element,       // well inside the element's measured size, or small when not measured
  beyond_l1_within_l2,  // larger than the measured L1, much smaller than the API's L2 size
  beyond_l2,            // several times the API's L2 size, flushed, never warmed
};

// How the chain visits its elements.
enum class LatencyOrder {
  random_permutation,  // one seeded random cycle over the whole footprint
  page_local_random,   // random inside one page-sized region at a time, regions in turn
  // Every page-sized region of the footprint in turn, the same number of random elements in
  // each: a warm chase spread over the whole footprint whose translations miss at most once per
  // region per pass. A random cycle over 64 pages of 64 KiB against an L1 TLB of 32 entries
  // (an L40-like device) added the TLB's miss to half of the L2 hits.
  region_sampled,
};

struct LatencyTarget {
  std::string element;  // element id; the probe id is "<element>.latency"
  LoadPath path;
  LatencyFootprint footprint;
  std::uint32_t stride_bytes;
  std::uint32_t warm_passes;
  bool flush_device_caches;
  LatencyOrder order;
  // Independent chases on several SMs at once are fine for SM-local levels; device-wide levels
  // (L2, DRAM) are measured by one chase alone so that no other chase disturbs them.
  bool run_alone;
  // When set, the level is only reported if `path` is clearly faster than this path on the same
  // footprint (an L1 that does not cache `path` would otherwise report L2's latency).
  std::optional<LoadPath> must_beat;
  std::string skip_reason;
  std::string description;
  // A device-wide cache split into partitions near and far from each SM (Hopper's L2) answers
  // one chase at two latencies, and so does the memory behind it: the headline is then the near
  // mode, never the median of the mix (split_latency_modes); `far_mode` says what the far mode
  // is in the note.
  bool near_mode_headline = false;
  std::string far_mode = {};
};

const std::vector<LatencyTarget>& latency_targets();

// A latency whose p50 describes less than this share of its loads (its confidence) answered at
// more than one latency: its note says so, and so does the note of a miss penalty derived from
// it. A threshold for the note, not a confidence.
inline constexpr double kSeveralLatenciesBelow = 0.8;

class LatencyProbe : public Probe {
 public:
  explicit LatencyProbe(LatencyTarget target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".latency"; }
  std::string description() const override { return target_.description; }
  void run(ProbeContext& ctx) override;

 private:
  LatencyTarget target_;
};

}  // namespace memtopo
