#pragma once
// The result model: every reporter is a view of a Topology; nothing is printed from a probe.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/device_conditions.hpp"
#include "model/device_facts.hpp"

namespace memtopo {

inline constexpr int kSchemaVersion = 1;

enum class Source { api, measured, derived };
const char* to_string(Source source);

// What a value that is not a measured size means: none, or a bound the measurement could only
// reach ("> 62 KiB": the footprint the device lets a probe use ran out before the edge).
enum class Bound { none, lower, upper };
const char* to_string(Bound bound);

// Summary of repeated samples. A number without a spread is not a result.
struct Spread {
  double p50 = 0;
  double mean = 0;
  double stdev = 0;
  double p5 = 0;
  double p95 = 0;
  double min = 0;
  double max = 0;
  std::size_t samples = 0;
};

// One mode of a value whose samples fall into several (a chase answered from the near and the
// far L2 partition): what the mode's own samples say. docs/method.md, "Two modes".
struct Mode {
  std::string name;                  // "near", "far": fastest first
  double value = 0;                  // p50 of the mode's samples, in the property's unit
  double share = 0;                  // the mode's samples over all of the property's
  Spread spread;                     // of the mode's samples
  std::optional<double> confidence;  // that it is a mode, with this value
  nlohmann::json confidence_factors = nlohmann::json::array();  // as a property's evidence
};

// The modes' values weighted by their shares: what a load of the mix costs on average, without
// the tail that a mean of every sample would add (a typical miss, where the near mode alone is a
// near one). The property's value when it has no modes (nullopt when that is not a number).
struct Property;
std::optional<double> typical_value(const Property& property);

// One property of a memory element, e.g. l1.size or l2.latency.
struct Property {
  std::string name;       // stable property name: size, line, latency, ...
  nlohmann::json value;   // number, string, list; null when inconclusive
  std::string unit;       // base unit: bytes, cycles, seconds, bytes/second, or "" for none
  Source source = Source::measured;
  std::string method;     // how it was obtained, one line
  std::optional<double> confidence;  // in [0, 1], measured values only
  std::optional<Spread> spread;      // of the reported value (overhead-corrected for latencies)
  std::optional<Spread> raw;         // latencies: the same samples before overhead correction
  std::optional<double> seconds_value;  // latencies: p50 converted with the measured clock
  bool inconclusive = false;            // measured but no conclusion; `value` may be a bound
  Bound bound = Bound::none;            // lower/upper: `value` is only a bound (inconclusive too)
  std::string note;                     // e.g. why inconclusive, or "lower bound"
  nlohmann::json evidence = nlohmann::json::object();  // whatever backs the value up
  // Empty for a value of one mode. Otherwise every mode, fastest first, and `value`, `spread`,
  // `raw`, `seconds_value` and `confidence` are the headline mode's (the first: the near one);
  // `mix` is the spread of every sample.
  std::vector<Mode> modes;
  std::optional<Spread> mix;
};

// One memory element (cache, memory, TLB ...). `id` is a stable element id (l1, l2, dram ...).
struct Element {
  std::string id;
  std::string kind;   // "cache", "memory", "scratchpad", "tlb"
  std::string scope;  // "sm" or "device"
  std::vector<std::string> load_paths;
  std::vector<Property> properties;

  const Property* find(const std::string& property) const;
  Property* find(const std::string& property);
  // Adds or replaces the property with the same name.
  Property& set(Property property);
};

struct PhaseTiming {
  // Spelled out (not an aggregate) so that {name, seconds, before, after} stays complete as the
  // monitoring fields below grow.
  PhaseTiming(std::string name_ = {}, double seconds_ = 0,
              std::optional<double> sm_clock_khz_before_ = std::nullopt,
              std::optional<double> sm_clock_khz_after_ = std::nullopt)
      : name(std::move(name_)),
        seconds(seconds_),
        sm_clock_khz_before(sm_clock_khz_before_),
        sm_clock_khz_after(sm_clock_khz_after_) {}

  std::string name;  // probe id or a fixed phase name ("setup", "report")
  double seconds = 0;
  std::optional<double> sm_clock_khz_before;
  std::optional<double> sm_clock_khz_after;
  // What the device reported around the phase (none on a simulated device), sampled before it
  // started and after it ended (the attempt kept, when it ran twice).
  std::optional<DeviceConditions> conditions_before;
  std::optional<DeviceConditions> conditions_after;
  // A phase disturbed by a moving clock, a slowdown or another process runs once more.
  std::uint32_t attempts = 1;
  std::vector<std::string> repeated_because;  // what disturbed the first attempt, if repeated
  std::vector<std::string> disturbances;      // what disturbed the attempt kept: findings marked
  // The timing overhead (cycles) of the phase's traces: the per-trace medians.
  std::optional<Spread> timing_overhead;
};

// One step of the time from main() to the first probe (model/startup_clock.hpp).
struct StartupStep {
  std::string name;  // "options", "plan", "driver", "gpu_lock", "nvml", "context", ...
  double seconds = 0;
};

struct ProbeOutcome {
  std::string probe_id;
  std::string status;  // "ok", "skipped", "failed", "not_run"
  std::string reason;  // why skipped / failed
};

// The Slurm step task that ran memtopo (docs/fleet.md), from SLURM_JOB_ID, SLURM_PROCID and
// SLURM_LOCALID; written as run.slurm only when SLURM_JOB_ID was set.
struct SlurmTask {
  std::string job_id;
  std::optional<std::int64_t> proc_id;   // the task's rank in the step
  std::optional<std::int64_t> local_id;  // the task's rank on its node
};

struct RunInfo {
  std::string tool_version;
  std::string git_describe;
  std::string timestamp_utc;  // ISO 8601
  std::string host;
  std::optional<SlurmTask> slurm;  // none outside a Slurm job
  std::vector<std::string> arguments;
  double duration_seconds = 0;
  std::vector<PhaseTiming> phases;
  std::vector<ProbeOutcome> probes;
  bool interrupted = false;
  // false in the checkpoints written after each probe while the run goes on; true in the last
  // write of a run (finished or interrupted). A file left with false: the run was killed.
  bool complete = true;
  bool simulated = false;
  std::string sim_file;  // description file when simulated
  // The GPU was not memtopo's alone (--allow-shared, or another process came during the run):
  // every result may be disturbed.
  bool shared_gpu = false;
  std::vector<GpuProcess> other_gpu_processes;  // on the GPU when the first probe started
  std::string gpu_lock;  // the lock file that kept other memtopo runs off the GPU, or why none
  double conditions_seconds = 0;  // spent asking the device for its conditions (NVML)
  // Between the phases: rewriting the JSON checkpoint after each probe, and keeping a copy of
  // the findings to roll a disturbed phase back to (none on a simulated device).
  double checkpoint_seconds = 0;
  double snapshot_seconds = 0;
  std::vector<StartupStep> startup;  // main() to the first probe, step by step
};

struct Topology {
  RunInfo run;
  DeviceFacts device;
  std::vector<Element> elements;
  std::vector<std::string> warnings;

  const Element* find(const std::string& element_id) const;
  // Returns the element with this id, creating it (with kind/scope) if it does not exist.
  Element& element(const std::string& id, const std::string& kind, const std::string& scope);
  // Looks up a numeric property value; nullopt when absent or not a number.
  std::optional<double> number(const std::string& element_id, const std::string& property) const;
};

}  // namespace memtopo
