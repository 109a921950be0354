#include "probes/core/phase_monitor.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "analysis/stats.hpp"

namespace memtopo {
namespace {

// A clock that moved more than this during a phase moved (the runner's warning uses the same
// limit): the SM clock changes the DRAM latency in SM cycles and every time in ns.
constexpr double kClockMoveLimit = 0.05;
// A sample of the device's conditions younger than this stands for "now": the end of one phase
// is the start of the next, and each NVML query costs time.
constexpr std::chrono::milliseconds kSampleReuse{50};
// %clock counts whole cycles, so the median overhead of a phase may move by one on rounding.
constexpr double kOverheadResolutionCycles = 1;
// The first phase with at least this many traces sets the timing overhead's range: fewer say
// too little about how far a trace's overhead strays by chance.
constexpr std::size_t kMinBaselineTraces = 8;
// Appended to the note of a finding measured while the device was disturbed.
constexpr const char* kDisturbedNote = "measured while the GPU was disturbed: ";

std::string mhz_text(double mhz) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", mhz);
  return text;
}

std::optional<std::string> clock_moved(const char* which, const std::optional<double>& before,
                                       const std::optional<double>& after) {
  if (!before || !after || !(*before > 0)) return std::nullopt;
  if (std::fabs(*after - *before) / *before <= kClockMoveLimit) return std::nullopt;
  return std::string(which) + " clock moved from " + mhz_text(*before) + " to " + mhz_text(*after) +
         " MHz";
}

std::string join_texts(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// Both samples' processes, each pid once.
std::vector<GpuProcess> processes_of(const DeviceConditions& before,
                                     const DeviceConditions& after) {
  std::vector<GpuProcess> all;
  std::set<std::uint32_t> seen;
  for (const DeviceConditions* sample : {&before, &after}) {
    if (!sample->other_processes) continue;
    for (const GpuProcess& process : *sample->other_processes) {
      if (seen.insert(process.pid).second) all.push_back(process);
    }
  }
  return all;
}

bool same_finding(const Property& a, const Property& b) {
  return a.value == b.value && a.method == b.method && a.note == b.note &&
         a.evidence == b.evidence && a.confidence == b.confidence;
}

}  // namespace

std::vector<std::string> phase_disturbances(const DeviceConditions& before,
                                            const DeviceConditions& after, bool others_expected) {
  std::vector<std::string> disturbances;
  if (auto moved = clock_moved("SM", before.sm_clock_mhz, after.sm_clock_mhz)) {
    disturbances.push_back(*moved);
  }
  if (auto moved = clock_moved("memory", before.memory_clock_mhz, after.memory_clock_mhz)) {
    disturbances.push_back(*moved);
  }
  const std::uint64_t reasons =
      (before.clocks_event_reasons.value_or(0) | after.clocks_event_reasons.value_or(0)) &
      clocks_event_reason::slowdowns;
  if (reasons != 0) {
    disturbances.push_back(
        "clocks slowed down (NVML: " + join_texts(clocks_event_reason_names(reasons), ", ") + ")");
  }
  if (!others_expected) {
    const std::vector<GpuProcess> others = processes_of(before, after);
    if (!others.empty()) {
      disturbances.push_back("another process used the GPU: " + describe_processes(others));
    }
  }
  return disturbances;
}

std::optional<std::string> overhead_drift(const PhaseTiming& baseline, const PhaseTiming& phase) {
  if (!baseline.timing_overhead || !phase.timing_overhead) return std::nullopt;
  const Spread& base = *baseline.timing_overhead;
  const Spread& now = *phase.timing_overhead;
  if (base.samples < kMinBaselineTraces) return std::nullopt;
  // The baseline's traces show how far one trace's overhead strays by chance: a phase whose
  // median overhead lies outside all of them (give or take a cycle) has drifted.
  if (now.p50 >= base.min - kOverheadResolutionCycles &&
      now.p50 <= base.max + kOverheadResolutionCycles) {
    return std::nullopt;
  }
  char text[400];
  std::snprintf(text, sizeof text,
                "the timing overhead drifted in %s: p50 %.1f cycles, outside the %.1f-%.1f of "
                "the %zu traces of %s; latencies subtract each trace's own overhead, but a timer "
                "that changes its cost may mean that the device changed state (clocks, another "
                "process). Later drifts are not warned again; run.phases[].timing_overhead_cycles "
                "has every phase's",
                phase.name.c_str(), now.p50, base.min, base.max, base.samples,
                baseline.name.c_str());
  return std::string(text);
}

void PhaseMonitor::OverheadTap::record_experiment(const std::string& label,
                                                  const Experiment& experiment) {
  if (const auto* chase = std::get_if<ChaseRecord>(&experiment)) {
    overheads.push_back(chase->result.overhead_cycles);
  }
  ForwardingSink::record_experiment(label, experiment);
}

PhaseMonitor::PhaseMonitor(ProbeContext& ctx) : ctx_(ctx), tap_(ctx.traces) {
  ctx_.traces = &tap_;
}

PhaseMonitor::~PhaseMonitor() {
  ctx_.traces = tap_.original();
}

std::optional<DeviceConditions> PhaseMonitor::sample() {
  const auto now = Clock::now();
  if (last_sample_ && now - last_sample_time_ < kSampleReuse) return last_sample_;
  last_sample_ = ctx_.backend.conditions();
  last_sample_time_ = Clock::now();
  ctx_.topology.run.conditions_seconds +=
      std::chrono::duration<double>(last_sample_time_ - now).count();
  return last_sample_;
}

void PhaseMonitor::begin_attempt(PhaseTiming& phase) {
  tap_.overheads.clear();
  phase.conditions_before = sample();
  // Only a device that reports its conditions can have a phase repeated; keep the findings
  // to roll back to only then (a copy of every element's evidence is not free).
  if (phase.conditions_before) {
    const auto start = Clock::now();
    elements_before_ = ctx_.topology.elements;
    warnings_before_ = ctx_.topology.warnings.size();
    ctx_.topology.run.snapshot_seconds +=
        std::chrono::duration<double>(Clock::now() - start).count();
  }
}

void PhaseMonitor::end_attempt(PhaseTiming& phase) {
  phase.conditions_after = sample();
  phase.timing_overhead =
      tap_.overheads.empty() ? std::nullopt : std::optional<Spread>(summarize(tap_.overheads));
  phase.disturbances.clear();
  if (phase.conditions_before && phase.conditions_after) {
    phase.disturbances = phase_disturbances(*phase.conditions_before, *phase.conditions_after,
                                            ctx_.topology.run.shared_gpu);
  }
}

bool PhaseMonitor::repeat(PhaseTiming& phase) {
  if (phase.disturbances.empty() || phase.attempts > 1 || !elements_before_) return false;
  ctx_.progress(phase.name + ": repeating it, the GPU was disturbed (" +
                join_texts(phase.disturbances, "; ") + ")");
  ctx_.topology.elements = *elements_before_;
  ctx_.topology.warnings.resize(warnings_before_);
  phase.repeated_because = phase.disturbances;
  phase.attempts += 1;
  return true;
}

void PhaseMonitor::finish(PhaseTiming& phase) {
  if (!phase.disturbances.empty()) {
    std::vector<std::string> marked;
    mark_findings(phase.disturbances, marked);
    ctx_.topology.warnings.push_back(
        phase.name + " was disturbed " +
        (phase.attempts > 1 ? "twice" : std::string("and could not be repeated")) + " (" +
        join_texts(phase.disturbances, "; ") + "): " +
        (marked.empty() ? std::string("it wrote no findings")
                        : "its findings " + join_texts(marked, ", ") + " are marked") +
        ". Rerun it with --only " + phase.name +
        " on a quiet GPU (nvidia-smi shows what "
        "runs on it; nvidia-smi -lgc locks the clocks)");
    // Another process that stayed: the rest of the run shares the GPU too.
    for (const std::string& disturbance : phase.disturbances) {
      if (disturbance.starts_with("another process")) ctx_.topology.run.shared_gpu = true;
    }
  }
  elements_before_.reset();
  if (!phase.timing_overhead) return;
  if (!overhead_baseline_) {
    if (phase.timing_overhead->samples >= kMinBaselineTraces) overhead_baseline_ = phase;
  } else if (!overhead_drift_warned_) {
    if (auto drift = overhead_drift(*overhead_baseline_, phase)) {
      ctx_.topology.warnings.push_back(*drift);
      overhead_drift_warned_ = true;
    }
  }
}

void PhaseMonitor::mark_findings(const std::vector<std::string>& disturbances,
                                 std::vector<std::string>& marked) {
  const auto before = [&](const std::string& element, const std::string& name) -> const Property* {
    if (!elements_before_) return nullptr;
    for (const Element& e : *elements_before_) {
      if (e.id == element) return e.find(name);
    }
    return nullptr;
  };
  for (Element& element : ctx_.topology.elements) {
    for (Property& property : element.properties) {
      const Property* old = before(element.id, property.name);
      if (old && same_finding(*old, property)) continue;
      if (!property.evidence.is_object()) property.evidence = nlohmann::json::object();
      property.evidence["disturbed_by"] = disturbances;
      property.note += (property.note.empty() ? "" : "; ") + std::string(kDisturbedNote) +
                       join_texts(disturbances, "; ");
      marked.push_back(element.id + "." + property.name);
    }
  }
}

}  // namespace memtopo
