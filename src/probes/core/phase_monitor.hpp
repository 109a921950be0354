#pragma once
// Watches the device around every phase (one probe): what it reports before and after (SM and
// memory clock, temperature, power, NVML's clock-event reasons, other processes) and the timing
// overhead its traces measured. A phase during which a clock moved, the clocks were slowed down
// or another process came is run once more; when the second run is disturbed too, its findings
// are marked and a warning names the reason. The timing overhead of every phase is compared with
// the first phase's: a drift beyond its spread is a warning.
#include <optional>
#include <string>
#include <vector>

#include "model/device_conditions.hpp"
#include "model/topology.hpp"
#include "probes/core/probe.hpp"
#include "run/clock.hpp"

namespace memtopo {

// What disturbed a phase, judged from the device's conditions before and after it, as lines
// for a warning; empty when nothing did. Other processes on the GPU count unless
// `others_expected` (the run is already marked as sharing the GPU).
std::vector<std::string> phase_disturbances(const DeviceConditions& before,
                                            const DeviceConditions& after, bool others_expected);

// A warning when the median timing overhead of `phase`'s traces lies outside the range of
// `baseline`'s (an earlier phase with enough traces), give or take one cycle; nullopt when it
// does not, or either is unknown.
std::optional<std::string> overhead_drift(const PhaseTiming& baseline, const PhaseTiming& phase);

class PhaseMonitor {
 public:
  // Taps ctx.traces (the traces still reach it) for their timing overhead, until the monitor
  // is destroyed.
  explicit PhaseMonitor(ProbeContext& ctx);
  ~PhaseMonitor();
  PhaseMonitor(const PhaseMonitor&) = delete;
  PhaseMonitor& operator=(const PhaseMonitor&) = delete;

  // Before an attempt at `phase`: samples the device and, where it reports its conditions,
  // keeps the findings as they are, so that a repeat starts from them.
  void begin_attempt(PhaseTiming& phase);
  // After the attempt: samples the device again and summarises the traces' timing overhead.
  void end_attempt(PhaseTiming& phase);
  // True when the attempt just ended was disturbed and was the first: its findings and
  // warnings are rolled back and the caller runs the probe again.
  bool repeat(PhaseTiming& phase);
  // After the last attempt: marks the findings of a phase that stayed disturbed, and warns
  // about that and about a drifting timing overhead.
  void finish(PhaseTiming& phase);

 private:
  std::optional<DeviceConditions> sample();
  void mark_findings(const std::vector<std::string>& disturbances,
                     std::vector<std::string>& marked);

  // Collects the timing overhead of every chase on its way to the run's sink.
  struct OverheadTap : ForwardingSink {
    using ForwardingSink::ForwardingSink;
    void record_experiment(const std::string& label, const Experiment& experiment) override;
    TraceSink* original() const { return next(); }
    std::vector<double> overheads;  // per-trace timing overhead of the current attempt
  };
  ProbeContext& ctx_;
  OverheadTap tap_;
  std::optional<DeviceConditions> last_sample_;
  Clock::time_point last_sample_time_;
  std::optional<std::vector<Element>> elements_before_;  // findings before the attempt
  std::size_t warnings_before_ = 0;
  std::optional<PhaseTiming> overhead_baseline_;  // the first phase with enough traces
  bool overhead_drift_warned_ = false;
};

}  // namespace memtopo
