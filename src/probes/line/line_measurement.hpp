#pragma once
// What the SM-local sector and line probes share: the baselines and the fit rule they imply,
// batches of concurrent chases (one per SM) and the bookkeeping of their loads. The steps of
// each probe live in their own files (sm_sector.cpp, sm_line.cpp and what it calls).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/probe.hpp"
#include "probes/line/line_probe.hpp"

namespace memtopo {

class LineMeasurement {
 public:
  LineMeasurement(ProbeContext& ctx, const LineTarget& target, std::string id);

  ProbeContext& ctx() const { return ctx_; }
  const LineTarget& target() const { return target_; }
  const BackendLimits& limits() const { return limits_; }
  const std::string& id() const { return id_; }

  // The element's measured size; throws ProbeSkipped without one.
  std::uint64_t size_or_skip() const;
  // The element's measured sector, when this run has one.
  std::optional<std::uint64_t> measured_sector() const;

  // The two warm baseline chases, in this order: the element's path, then the path that skips it.
  std::vector<ChaseSpec> baseline_specs() const;
  // Judges the baselines' traces and sets the fit rule; skips when the path is not cached.
  void take_baselines(const Trace& hit, const Trace& next_level);
  const FitRule& rule() const { return rule_; }
  // Hit and next-level cycles as evidence.
  nlohmann::json baseline_evidence() const;

  // Chases measured at once: one per SM, at least one.
  std::uint32_t slots() const;
  // Runs `specs` in batches of at most slots(); counts loads, batches and the critical path.
  std::vector<Trace> run_batches(const std::vector<ChaseSpec>& specs, const std::string& phase);
  // A sequential chase at `stride` over `footprint` with every element timed kTimedPasses times
  // (once when the backend cannot record that many).
  ChaseSpec fit_chase(std::uint64_t footprint, std::uint64_t stride) const;
  // The fit rule's verdict on a trace.
  FitVerdict judge(const Trace& trace) const;
  // batches, loads, critical_path_loads, seconds.
  nlohmann::json cost_evidence() const;

  // Writes a finding of the element under test.
  void publish(Property property) const;

 private:
  ProbeContext& ctx_;
  const LineTarget& target_;
  BackendLimits limits_;
  std::string id_;
  Spread hit_{}, next_level_{};
  FitRule rule_;
  std::uint64_t loads_ = 0, batches_ = 0, critical_path_loads_ = 0;
  double seconds_ = 0;
};

// <element>.sector: the spacing of misses in a 4 B-stride chase beyond the size (sm_sector.cpp).
void measure_sector(LineMeasurement& measurement);
// <element>.line: the capacity in elements per stride (sm_line.cpp).
void measure_line(LineMeasurement& measurement);

}  // namespace memtopo
