#pragma once
// What every probe of the geometry family shares (internal to src/probes/geometry): the plan
// read from earlier findings (size, line, hit/miss threshold), the chases built from it, the
// bookkeeping of loads and batches, and how findings are written. The aspects (ways, sets,
// set_bits, policy) are free functions over it, one file each, declared at the end.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/associativity.hpp"
#include "analysis/confidence.hpp"
#include "backend/backend.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/probe.hpp"
#include "probes/geometry/geometry_probe.hpp"

namespace memtopo {

// A chain element is one 32-bit word: word index w lies in line w * 4 / line bytes.
inline constexpr std::uint32_t kWordBytes = 4;
// Timed passes of the overflow and per-set chases of an SM cache. A device-wide cache takes
// kTimedPasses (core/constants) instead: it is tens of MiB, one pass of a C + b chase at the line
// is C / b loads (400 k on a 50 MiB L2, about 12 ms of simulation each), and an overfull LRU or
// FIFO set misses on every pass, so two already tell its lines.
inline constexpr std::uint32_t kGeometryPasses = 8;
// A line counts as missing in the overflow chases with this many slow accesses at least: an
// isolated outlier cannot make it miss.
inline constexpr std::uint32_t kMinSlowToMiss = 2;
// When the misses are not periodic (random-like replacement): passes, and the slow accesses a
// line needs then.
inline constexpr std::uint32_t kRandomPasses = 128;
inline constexpr std::uint32_t kRandomMinSlow = 4;
// Ways x sets x line may differ from the measured size by this share: under random-like
// replacement the size search's edge lies a few lines past the capacity. Beyond it the geometry
// contradicts the size (capacity_check.cpp, hashed_index.cpp).
inline constexpr double kCapacityTolerance = 0.02;

class GeometryMeasurement {
 public:
  GeometryMeasurement(ProbeContext& ctx, const GeometryTarget& target, std::string probe_id);

  ProbeContext& ctx() { return ctx_; }
  const GeometryTarget& target() const { return target_; }
  const std::string& element() const { return target_.element; }
  const BackendLimits& limits() const { return limits_; }
  // Timed passes of the overflow and per-set chases (fewer for a device-wide cache).
  std::uint32_t passes() const { return passes_; }
  std::uint64_t size() const { return size_; }
  std::uint32_t line() const { return line_; }
  const std::string& line_source() const { return line_source_; }
  double threshold() const { return threshold_; }
  bool arrays_isolated() const { return isolate_arrays_; }
  void isolate_arrays(bool isolate) { isolate_arrays_ = isolate; }

  // ---- The plan ----
  // For the ways: the measured size, its hit/miss threshold (or a baseline of its own) and the
  // line (measured, the size staircase's stride under an upper bound, or searched). Throws
  // ProbeSkipped when something it needs is missing.
  void prepare();
  // For set_bits and policy: the conclusive ways (throws ProbeSkipped without them); its line
  // and threshold become the plan's.
  const Property& plan_from_ways();
  // The conclusive ways, or nullptr. Not core/findings' conclusive_finding: unequal sets make
  // the ways a list, not a number.
  const Property* conclusive_ways() const;
  // The measured size's hit/miss threshold, when its evidence has one: for a device-wide cache
  // raised to the floor of its misses (device_wide_threshold), else the size probe's own.
  std::optional<DeviceWideThreshold> size_threshold() const;
  // The size search's smallest missing footprint in lines, when its evidence has one.
  std::optional<std::uint64_t> first_miss_lines() const;
  // Slow accesses (of passes()) a line needs before C counts as overflowing (see the .cpp).
  std::uint32_t fit_min_slow(std::uint64_t lines) const;
  // Slow accesses a set of `accesses` accesses (its lines x passes) needs before it counts as
  // overflowing, when `sets` sets are judged at once: at least passes(), and more than outliers at
  // the size probe's rate give one of them but with probability 10^-6 over all of them.
  std::uint32_t set_min_slow(std::uint64_t accesses, std::uint64_t sets) const;
  // Whether `slow` slow accesses among `accesses` are what outliers at the size probe's rate give
  // (but with probability 10^-6).
  bool explained_by_outliers(std::uint64_t slow, std::uint64_t accesses) const;

  // ---- Chases ----
  std::vector<Trace> run(const std::vector<ChaseSpec>& specs, const std::string& phase);
  // Chases that name sets by line numbers, run so that their arrays agree on which set is which
  // (see the .cpp).
  std::vector<Trace> run_set_targeted(const std::vector<ChaseSpec>& specs,
                                      const std::string& phase);
  // A sequential chase over `footprint` at `stride`, one warm pass, `passes` timed passes.
  ChaseSpec sequential(std::uint64_t footprint, std::uint32_t stride, std::uint32_t passes) const;
  // A chase over the given words, in this order.
  ChaseSpec explicit_chase(std::vector<std::uint32_t> words, std::uint32_t warm,
                           std::uint32_t timed) const;
  std::uint32_t word_of_line(std::uint64_t line) const {
    return static_cast<std::uint32_t>(line * line_ / kWordBytes);
  }
  LineSlowCounts counts(const Trace& trace) const;
  std::uint64_t loads() const { return loads_; }
  std::uint64_t batches() const { return batches_; }
  // Per batch its longest chase's loads, summed: the device time of concurrent batches.
  std::uint64_t critical_path_loads() const { return critical_path_loads_; }

  // ---- Findings ----
  // What every ways finding's evidence carries: the plan and the cost so far.
  nlohmann::json common_evidence() const;
  // Writes a conclusive finding of this element with its computed confidence (set_confidence).
  void write(Property property, const Confidence& confidence);
  // Writes a finding complete as it is (the scan test's, an inconclusive one).
  void store(Property property);
  // Value null, inconclusive, `note` as the reason; no confidence (there is no value to be sure
  // of).
  void write_inconclusive(const std::string& name, const std::string& note,
                          nlohmann::json evidence);
  // The method of the ways' overfull-set chases, for inconclusive findings.
  static const char* overfull_set_method();

 private:
  void measure_threshold();
  void search_line();
  std::vector<std::uint32_t> line_candidates() const;

  ProbeContext& ctx_;
  const GeometryTarget& target_;
  std::string id_;
  BackendLimits limits_;
  std::uint32_t passes_;
  std::uint64_t loads_ = 0, batches_ = 0, critical_path_loads_ = 0;
  double chase_seconds_ = 0;  // in ctx_.run: building, running and reading back the chases
  std::uint64_t size_ = 0;
  std::uint32_t line_ = 0;
  std::string line_source_;
  nlohmann::json line_evidence_ = nlohmann::json::object();
  double threshold_ = 0;
  std::string threshold_source_;
  std::string threshold_rule_ = "midpoint";
  bool isolate_arrays_ = false;                // see run_set_targeted
  double outlier_rate_ = kAssumedOutlierRate;  // the size probe's, when it measured one
};

// ---- The aspects, one file each ----

// sm_ways.cpp: ways and sets of a cache of one SM (overfull-set chases, per-set verification).
void measure_sm_ways(GeometryMeasurement& g);
// device_wide_ways.cpp: ways and sets of a cache every SM shares, from one chase past its size.
void measure_device_wide_ways(GeometryMeasurement& g);
// capacity_check.cpp: writes the ways with their confidence times capacity_agreement of ways x
// sets x line (sets from the evidence) against the measured size, the check in the evidence
// (capacity_check); and the contradiction it found, when the gap passed kCapacityTolerance.
void write_ways(GeometryMeasurement& g, Property ways, Confidence confidence);
std::optional<std::string> capacity_contradiction(const Property& ways);
// size_refinement.cpp: the size written again as the sum of unequal sets' ways.
void refine_size_from_unequal_sets(GeometryMeasurement& g, std::uint64_t capacity_bytes,
                                   const Confidence& ways_confidence);
// set_bits.cpp: sets from the ways' evidence; set-index bits by single-bit flips.
void write_sets_from_ways(GeometryMeasurement& g);
void measure_set_bits(GeometryMeasurement& g);
// replacement_policy.cpp: the policy from the ways' overfull set, else the scan test.
void measure_policy(GeometryMeasurement& g);

}  // namespace memtopo
