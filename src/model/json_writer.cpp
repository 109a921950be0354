// Writing a Topology as versioned JSON (json.hpp): topology_to_json. Its reader, which must
// read back everything written here, is json_reader.cpp.
#include <cmath>
#include <optional>
#include <utility>

#include "model/json.hpp"
#include "model/json_keys.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;
using json_keys::is_element_key;

// JSON has no NaN or infinity; nlohmann would write them as null anyway, say so explicitly.
ojson finite_or_null(double value) {
  return std::isfinite(value) ? ojson(value) : ojson(nullptr);
}

template <typename T>
ojson optional_to_json(const std::optional<T>& value) {
  return value ? ojson(*value) : ojson(nullptr);
}

ojson spread_to_json(const Spread& spread) {
  return ojson{{"p50", finite_or_null(spread.p50)},     {"mean", finite_or_null(spread.mean)},
               {"stdev", finite_or_null(spread.stdev)}, {"p5", finite_or_null(spread.p5)},
               {"p95", finite_or_null(spread.p95)},     {"min", finite_or_null(spread.min)},
               {"max", finite_or_null(spread.max)},     {"samples", spread.samples}};
}

ojson modes_to_json(const std::vector<Mode>& modes) {
  ojson out = ojson::array();
  for (const Mode& mode : modes) out.push_back(mode_json(mode));
  return out;
}

bool has_evidence(const nlohmann::json& evidence) {
  return !evidence.is_null() && !(evidence.is_object() && evidence.empty());
}

ojson property_to_json(const Property& property) {
  ojson out;
  out["value"] = ojson(property.value);
  out["unit"] = property.unit;
  out["source"] = to_string(property.source);
  out["method"] = property.method;
  if (property.confidence) out["confidence"] = finite_or_null(*property.confidence);
  if (property.spread) out["spread"] = spread_to_json(*property.spread);
  if (property.raw) out["raw"] = spread_to_json(*property.raw);
  if (property.seconds_value) out["seconds"] = finite_or_null(*property.seconds_value);
  if (!property.modes.empty()) out["modes"] = modes_to_json(property.modes);
  if (property.mix) out["mix"] = spread_to_json(*property.mix);
  if (property.inconclusive) out["inconclusive"] = true;
  if (property.bound != Bound::none) out["bound"] = to_string(property.bound);
  if (!property.note.empty()) out["note"] = property.note;
  if (has_evidence(property.evidence)) out["evidence"] = ojson(property.evidence);
  return out;
}

ojson element_to_json(const Element& element) {
  ojson out;
  out["id"] = element.id;
  out["kind"] = element.kind;
  out["scope"] = element.scope;
  out["load_paths"] = element.load_paths;
  for (const Property& property : element.properties) {
    // A property named like an element key would overwrite it and could not be read back.
    if (is_element_key(property.name) || property.name.empty()) {
      throw std::logic_error("element " + element.id + " has a property named '" + property.name +
                             "', which is reserved or empty");
    }
    out[property.name] = property_to_json(property);
  }
  return out;
}

ojson device_to_json(const DeviceFacts& d) {
  ojson out;
  out["source"] = to_string(Source::api);  // none of these is a measurement
  out["name"] = d.name;
  out["backend"] = d.backend;
  out["device_index"] = d.device_index;
  out["cc_major"] = d.cc_major;
  out["cc_minor"] = d.cc_minor;
  out["sm_count"] = d.sm_count;
  out["global_memory_bytes"] = d.global_memory_bytes;
  out["l2_bytes"] = d.l2_bytes;
  out["persisting_l2_max_bytes"] = d.persisting_l2_max_bytes;
  out["shared_per_sm_bytes"] = d.shared_per_sm_bytes;
  out["shared_per_block_bytes"] = d.shared_per_block_bytes;
  out["shared_per_block_optin_bytes"] = d.shared_per_block_optin_bytes;
  out["constant_bytes"] = d.constant_bytes;
  out["warp_size"] = d.warp_size;
  out["max_threads_per_sm"] = d.max_threads_per_sm;
  out["sm_clock_khz"] = d.sm_clock_khz;
  out["memory_clock_khz"] = d.memory_clock_khz;
  out["memory_bus_width_bits"] = d.memory_bus_width_bits;
  out["global_l1_cache_supported"] = d.global_l1_cache_supported;
  out["local_l1_cache_supported"] = d.local_l1_cache_supported;
  out["pci_bus_id"] = d.pci_bus_id;
  out["driver_version"] = d.driver_version;
  out["runtime_version"] = d.runtime_version;
  out["nvml_sm_clock_mhz"] = optional_to_json(d.nvml_sm_clock_mhz);
  out["nvml_max_sm_clock_mhz"] = optional_to_json(d.nvml_max_sm_clock_mhz);
  out["nvml_memory_clock_mhz"] = optional_to_json(d.nvml_memory_clock_mhz);
  out["nvml_status"] = d.nvml_status;
  out["uuid"] = d.uuid;
  out["mig"] = d.mig;
  out["mps"] = d.mps;
  return out;
}

ojson process_to_json(const GpuProcess& process) {
  return ojson{{"pid", process.pid},
               {"name", process.name},
               {"used_memory_bytes", optional_to_json(process.used_memory_bytes)}};
}

ojson processes_to_json(const std::vector<GpuProcess>& processes) {
  ojson out = ojson::array();
  for (const GpuProcess& process : processes) out.push_back(process_to_json(process));
  return out;
}

ojson conditions_to_json(const DeviceConditions& c) {
  ojson out;
  out["sm_clock_mhz"] = optional_to_json(c.sm_clock_mhz);
  out["memory_clock_mhz"] = optional_to_json(c.memory_clock_mhz);
  out["temperature_c"] = optional_to_json(c.temperature_c);
  out["power_w"] = optional_to_json(c.power_w);
  out["clocks_event_reasons"] = c.clocks_event_reasons
                                    ? ojson(clocks_event_reason_names(*c.clocks_event_reasons))
                                    : ojson(nullptr);
  out["other_processes"] =
      c.other_processes ? processes_to_json(*c.other_processes) : ojson(nullptr);
  return out;
}

// The monitoring keys of a phase, written only where a backend reported them (or a phase ran
// twice), so that runs on a simulated device keep their short phase entries.
void add_phase_conditions(ojson& out, const PhaseTiming& phase) {
  if (phase.conditions_before)
    out["conditions_before"] = conditions_to_json(*phase.conditions_before);
  if (phase.conditions_after) out["conditions_after"] = conditions_to_json(*phase.conditions_after);
  if (phase.attempts != 1 || !phase.disturbances.empty()) {
    out["attempts"] = phase.attempts;
    out["repeated_because"] = phase.repeated_because;
    out["disturbances"] = phase.disturbances;
  }
  if (phase.timing_overhead) out["timing_overhead_cycles"] = spread_to_json(*phase.timing_overhead);
}

ojson slurm_to_json(const SlurmTask& task) {
  return ojson{{"job_id", task.job_id},
               {"proc_id", optional_to_json(task.proc_id)},
               {"local_id", optional_to_json(task.local_id)}};
}

ojson run_to_json(const RunInfo& run) {
  ojson phases = ojson::array();
  for (const PhaseTiming& phase : run.phases) {
    ojson entry{{"name", phase.name},
                {"seconds", finite_or_null(phase.seconds)},
                {"sm_clock_khz_before", optional_to_json(phase.sm_clock_khz_before)},
                {"sm_clock_khz_after", optional_to_json(phase.sm_clock_khz_after)}};
    add_phase_conditions(entry, phase);
    phases.push_back(std::move(entry));
  }
  ojson probes = ojson::array();
  for (const ProbeOutcome& outcome : run.probes) {
    probes.push_back(
        ojson{{"id", outcome.probe_id}, {"status", outcome.status}, {"reason", outcome.reason}});
  }
  ojson out;
  out["timestamp_utc"] = run.timestamp_utc;
  out["duration_seconds"] = finite_or_null(run.duration_seconds);
  out["arguments"] = run.arguments;
  out["host"] = run.host;
  if (run.slurm) out["slurm"] = slurm_to_json(*run.slurm);
  out["interrupted"] = run.interrupted;
  out["complete"] = run.complete;
  out["simulated"] = run.simulated;
  out["sim_file"] = run.sim_file;
  out["shared_gpu"] = run.shared_gpu;
  out["other_gpu_processes"] = processes_to_json(run.other_gpu_processes);
  out["gpu_lock"] = run.gpu_lock;
  out["conditions_seconds"] = finite_or_null(run.conditions_seconds);
  out["checkpoint_seconds"] = finite_or_null(run.checkpoint_seconds);
  out["snapshot_seconds"] = finite_or_null(run.snapshot_seconds);
  ojson startup = ojson::array();
  for (const StartupStep& step : run.startup)
    startup.push_back(ojson{{"name", step.name}, {"seconds", finite_or_null(step.seconds)}});
  out["startup"] = std::move(startup);
  out["phases"] = std::move(phases);
  out["probes"] = std::move(probes);
  return out;
}

}  // namespace

nlohmann::ordered_json topology_to_json(const Topology& topology) {
  ojson out;
  out["schema_version"] = kSchemaVersion;
  out["tool"] = ojson{{"name", "memtopo"},
                      {"version", topology.run.tool_version},
                      {"git_describe", topology.run.git_describe}};
  out["run"] = run_to_json(topology.run);
  out["device"] = device_to_json(topology.device);
  ojson elements = ojson::array();
  for (const Element& element : topology.elements) elements.push_back(element_to_json(element));
  out["elements"] = std::move(elements);
  out["warnings"] = topology.warnings;
  return out;
}

nlohmann::ordered_json mode_json(const Mode& mode) {
  ojson out;
  out["name"] = mode.name;
  out["value"] = finite_or_null(mode.value);
  out["share"] = finite_or_null(mode.share);
  if (mode.confidence) out["confidence"] = finite_or_null(*mode.confidence);
  out["spread"] = spread_to_json(mode.spread);
  if (!mode.confidence_factors.empty()) {
    out["confidence_factors"] = ojson(mode.confidence_factors);
  }
  return out;
}

nlohmann::ordered_json property_json(const Property& property) {
  return property_to_json(property);
}

}  // namespace memtopo
