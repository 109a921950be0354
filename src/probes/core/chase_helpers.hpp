#pragma once
// Small helpers every probe uses to plan chases, read traces and write evidence.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/linesize.hpp"
#include "analysis/size_rule.hpp"
#include "backend/experiment.hpp"
#include "model/topology.hpp"
#include "model/units.hpp"  // format_bytes for messages

namespace memtopo {

// Per-access cycles as recorded, and minus the timing overhead the same kernel measured.
std::vector<double> raw_cycles(const Trace& trace);
std::vector<double> corrected_cycles(const Trace& trace);

// Loads a chase makes on the device: warm passes over the chain plus the timed loads, for
// every chaser. What the speed of a discovery is counted in.
std::uint64_t loads_of(const ChaseSpec& spec);

// `value` rounded down to a multiple of `step` (step > 0).
std::uint64_t round_down(std::uint64_t value, std::uint64_t step);
// The largest power of two not above `value` (value > 0).
std::uint64_t floor_power_of_two(std::uint64_t value);

// A spread as evidence JSON (p50, mean, stdev, p5, p95, min, max, samples).
nlohmann::json spread_evidence(const Spread& spread);
// A fit verdict as evidence JSON, with the footprint it judged when one is given (non-zero).
nlohmann::json verdict_evidence(const FitVerdict& verdict, std::uint64_t footprint_bytes = 0);

// The spacing of accesses slower than `threshold_cycles` (a sector or line probe's gap
// estimate) as evidence JSON: threshold, counts, mode and median gap, consistency, histogram.
nlohmann::json gap_evidence(const GapEstimate& gaps, double threshold_cycles);

// Sets a granularity finding (sector or line) from its gap estimate: the granularity with the
// gaps' consistency as confidence (gap_confidence, written with set_confidence) and the spread
// of `cycles`, or no value, inconclusive, with the estimate's note.
void set_granularity(Property& property, const GapEstimate& gaps, std::span<const double> cycles);

// The latencies of an element under test and of the level behind it, from one small warm chase
// on each path, and the fit rule they imply (thesis 4.2.1: ca against cg).
struct LevelBaselines {
  Spread hit;         // corrected cycles via the element's path
  Spread next_level;  // corrected cycles via the path that skips it
  FitRule rule;       // threshold between the two
};

// Throws ProbeSkipped with `not_cached_reason` and both p50s unless `hit` is clearly faster than
// `next_level`: then the element does not cache loads on `path`.
void require_clearly_faster(const Spread& hit, const Spread& next_level, LoadPath path,
                            LoadPath next_level_path, const std::string& not_cached_reason);

// Summarises the two baseline traces. Throws ProbeSkipped with `not_cached_reason` and both
// p50s when the element's path is not clearly faster: the element does not cache that path.
LevelBaselines judge_baselines(const Trace& hit, const Trace& next_level, LoadPath path,
                               LoadPath next_level_path, const std::string& not_cached_reason);

// The hit/miss threshold of a cache every SM shares (L2), from its size staircase's evidence:
// the step's threshold_cycles, raised to its miss_floor_cycles where that is higher. No load
// path skips only such a cache, and its hits can be slower than the midpoint (a far partition
// plus a TLB miss) while every miss goes on to the next level, which bounds misses from below.
// The rule names which one was used; nullopt when the evidence has no threshold_cycles.
struct DeviceWideThreshold {
  double cycles = 0;
  std::string rule;  // "midpoint" or "miss floor"
};
std::optional<DeviceWideThreshold> device_wide_threshold(const nlohmann::json& size_evidence);

// The stride a size staircase chased at (`staircase.stride_bytes` in its evidence), if any.
std::optional<std::uint64_t> staircase_stride_bytes(const nlohmann::json& size_evidence);

}  // namespace memtopo
