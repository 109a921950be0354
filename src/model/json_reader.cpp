// Reading a Topology from versioned JSON (json.hpp): topology_from_json and
// topology_from_json_text, every error naming the origin and the JSON path. The writer is
// json_writer.cpp.
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "model/json.hpp"
#include "model/json_keys.hpp"
#include "model/json_object_reader.hpp"
#include "model/json_text.hpp"
#include "model/printable_text.hpp"
#include "model/property_shapes.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;
using json_keys::is_element_key;
using json_reading::ObjectReader;

// Lists and objects inside each other: a topology needs about 8 (evidence included).
constexpr int kMaxTopologyNesting = 256;
// A discovery has about 20 elements of at most 30 properties; the limits keep what readers do
// per pair of them (compare aligns elements and properties by name) small.
constexpr std::size_t kMaxElements = 256;
constexpr std::size_t kMaxPropertiesPerElement = 256;

Source parse_source(const ObjectReader& reader) {
  std::string text = reader.string("source", /*is_required=*/true);
  if (text == "api") return Source::api;
  if (text == "measured") return Source::measured;
  if (text == "derived") return Source::derived;
  reader.fail("source", "unknown source '" + text + "' (expected api, measured or derived)");
}

Bound parse_bound(const ObjectReader& reader) {
  if (!reader.find("bound")) return Bound::none;
  std::string text = reader.string("bound");
  if (text == "lower") return Bound::lower;
  if (text == "upper") return Bound::upper;
  reader.fail("bound", "unknown bound '" + text + "' (expected lower or upper)");
}

Spread spread_from_json(const ObjectReader& parent, const std::string& key) {
  ObjectReader reader = parent.child(key);
  Spread spread;
  auto read = [&](const char* field, double& target) {
    if (auto value = reader.number(field)) target = *value;
  };
  read("p50", spread.p50);
  read("mean", spread.mean);
  read("stdev", spread.stdev);
  read("p5", spread.p5);
  read("p95", spread.p95);
  read("min", spread.min);
  read("max", spread.max);
  reader.read_integer("samples", spread.samples);
  return spread;
}

// A mode of mode_json's form; a latency-pattern row's mode of an earlier run has its p50 as
// `cycles` and its spread as p5_cycles, p95_cycles and samples.
Mode mode_of(const ObjectReader& reader) {
  Mode mode;
  mode.name = reader.string("name");
  if (auto value = reader.number("value")) {
    mode.value = *value;
  } else if (auto cycles = reader.number("cycles")) {
    mode.value = *cycles;
  }
  if (auto share = reader.number("share")) mode.share = *share;
  mode.confidence = reader.nullable_number("confidence");
  if (reader.find("spread")) {
    mode.spread = spread_from_json(reader, "spread");
  } else {
    mode.spread.p50 = mode.value;
    if (auto p5 = reader.number("p5_cycles")) mode.spread.p5 = *p5;
    if (auto p95 = reader.number("p95_cycles")) mode.spread.p95 = *p95;
    reader.read_integer("samples", mode.spread.samples);
  }
  if (const ojson* factors = reader.array("confidence_factors", /*is_required=*/false)) {
    mode.confidence_factors = nlohmann::json(*factors);
  }
  return mode;
}

std::vector<Mode> modes_from_json(const ObjectReader& property) {
  std::vector<Mode> modes;
  const ojson* list = property.array("modes", /*is_required=*/false);
  if (!list) return modes;
  for (std::size_t i = 0; i < list->size(); ++i) {
    modes.push_back(mode_of(property.child((*list)[i], "modes[" + std::to_string(i) + "]")));
  }
  return modes;
}

Property property_from_json(const ObjectReader& element, const std::string& name,
                            const ojson& value) {
  ObjectReader reader = element.child(value, name);
  Property property;
  property.name = name;
  property.unit = reader.string("unit", /*is_required=*/true);
  property.source = parse_source(reader);
  property.method = reader.string("method");
  property.confidence = reader.nullable_number("confidence");
  if (property.confidence && !(*property.confidence >= 0 && *property.confidence <= 1)) {
    reader.fail("confidence", "must lie between 0 and 1");
  }
  if (reader.find("spread")) property.spread = spread_from_json(reader, "spread");
  if (reader.find("raw")) property.raw = spread_from_json(reader, "raw");
  property.seconds_value = reader.nullable_number("seconds");
  property.modes = modes_from_json(reader);
  if (reader.find("mix")) property.mix = spread_from_json(reader, "mix");
  property.inconclusive = reader.boolean("inconclusive");
  property.bound = parse_bound(reader);
  property.note = reader.string("note");
  const ojson& read_value = reader.required("value");
  const ojson* evidence = reader.find("evidence");
  // Every reader of the model takes a table's cells and the evidence it shows as the types
  // memtopo writes: checked here, once (model/property_shapes.hpp).
  check_property_shape(
      name, read_value, evidence,
      [&](const std::string& where, const std::string& what) { reader.fail(where, what); });
  property.value = nlohmann::json(read_value);
  if (evidence) property.evidence = nlohmann::json(*evidence);
  return property;
}

Element element_from_json(const ObjectReader& reader) {
  const ojson& object = reader.object();
  if (object.size() > kMaxPropertiesPerElement + std::size(json_keys::kElementKeys)) {
    reader.fail_document(reader.path() + ": has " + std::to_string(object.size()) +
                         " keys; an element of a memtopo run has at most " +
                         std::to_string(kMaxPropertiesPerElement) + " properties");
  }
  Element element;
  element.id = reader.string("id", /*is_required=*/true);
  if (element.id.empty()) reader.fail("id", "must not be empty");
  element.kind = reader.string("kind");
  element.scope = reader.string("scope");
  element.load_paths = reader.strings("load_paths");
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (is_element_key(it.key())) continue;
    element.properties.push_back(property_from_json(reader, it.key(), it.value()));
  }
  return element;
}

DeviceFacts device_from_json(const ObjectReader& reader) {
  DeviceFacts d;
  d.name = reader.string("name");
  d.backend = reader.string("backend");
  reader.read_integer("device_index", d.device_index);
  reader.read_integer("cc_major", d.cc_major);
  reader.read_integer("cc_minor", d.cc_minor);
  reader.read_integer("sm_count", d.sm_count);
  reader.read_integer("global_memory_bytes", d.global_memory_bytes);
  reader.read_integer("l2_bytes", d.l2_bytes);
  reader.read_integer("persisting_l2_max_bytes", d.persisting_l2_max_bytes);
  reader.read_integer("shared_per_sm_bytes", d.shared_per_sm_bytes);
  reader.read_integer("shared_per_block_bytes", d.shared_per_block_bytes);
  reader.read_integer("shared_per_block_optin_bytes", d.shared_per_block_optin_bytes);
  reader.read_integer("constant_bytes", d.constant_bytes);
  reader.read_integer("warp_size", d.warp_size);
  reader.read_integer("max_threads_per_sm", d.max_threads_per_sm);
  reader.read_integer("sm_clock_khz", d.sm_clock_khz);
  reader.read_integer("memory_clock_khz", d.memory_clock_khz);
  reader.read_integer("memory_bus_width_bits", d.memory_bus_width_bits);
  d.global_l1_cache_supported = reader.boolean("global_l1_cache_supported");
  d.local_l1_cache_supported = reader.boolean("local_l1_cache_supported");
  d.pci_bus_id = reader.string("pci_bus_id");
  reader.read_integer("driver_version", d.driver_version);
  reader.read_integer("runtime_version", d.runtime_version);
  d.nvml_sm_clock_mhz = reader.integer<std::uint32_t>("nvml_sm_clock_mhz");
  d.nvml_max_sm_clock_mhz = reader.integer<std::uint32_t>("nvml_max_sm_clock_mhz");
  d.nvml_memory_clock_mhz = reader.integer<std::uint32_t>("nvml_memory_clock_mhz");
  d.nvml_status = reader.string("nvml_status");
  d.uuid = reader.string("uuid");
  d.mig = reader.string("mig");
  d.mps = reader.string("mps");
  return d;
}

std::vector<GpuProcess> processes_from_json(const ObjectReader& reader, const std::string& key) {
  std::vector<GpuProcess> processes;
  const ojson* list = reader.array(key, /*is_required=*/false);
  if (!list) return processes;
  for (std::size_t i = 0; i < list->size(); ++i) {
    ObjectReader entry = reader.child((*list)[i], key + "[" + std::to_string(i) + "]");
    GpuProcess process;
    entry.read_integer("pid", process.pid);
    process.name = entry.string("name");
    process.used_memory_bytes = entry.integer<std::uint64_t>("used_memory_bytes");
    processes.push_back(std::move(process));
  }
  return processes;
}

DeviceConditions conditions_from_json(const ObjectReader& reader) {
  DeviceConditions c;
  c.sm_clock_mhz = reader.nullable_number("sm_clock_mhz");
  c.memory_clock_mhz = reader.nullable_number("memory_clock_mhz");
  c.temperature_c = reader.nullable_number("temperature_c");
  c.power_w = reader.nullable_number("power_w");
  if (const ojson* reasons = reader.find("clocks_event_reasons"); reasons && !reasons->is_null()) {
    c.clocks_event_reasons =
        clocks_event_reasons_from_names(reader.strings("clocks_event_reasons"));
  }
  if (const ojson* others = reader.find("other_processes"); others && !others->is_null()) {
    c.other_processes = processes_from_json(reader, "other_processes");
  }
  return c;
}

void phase_conditions_from_json(const ObjectReader& reader, PhaseTiming& phase) {
  if (reader.find("conditions_before")) {
    phase.conditions_before = conditions_from_json(reader.child("conditions_before"));
  }
  if (reader.find("conditions_after")) {
    phase.conditions_after = conditions_from_json(reader.child("conditions_after"));
  }
  reader.read_integer("attempts", phase.attempts);
  phase.repeated_because = reader.strings("repeated_because");
  phase.disturbances = reader.strings("disturbances");
  if (reader.find("timing_overhead_cycles")) {
    phase.timing_overhead = spread_from_json(reader, "timing_overhead_cycles");
  }
}

void run_from_json(const ObjectReader& reader, RunInfo& run) {
  run.timestamp_utc = reader.string("timestamp_utc");
  if (auto duration = reader.number("duration_seconds")) run.duration_seconds = *duration;
  run.arguments = reader.strings("arguments");
  run.host = reader.string("host");
  if (const ojson* slurm = reader.find("slurm"); slurm && !slurm->is_null()) {
    const ObjectReader task = reader.child(*slurm, "slurm");
    run.slurm = SlurmTask{task.string("job_id"), task.integer<std::int64_t>("proc_id"),
                          task.integer<std::int64_t>("local_id")};
  }
  run.interrupted = reader.boolean("interrupted");
  // Files written before the key existed were only ever written at the end of a run.
  run.complete = reader.find("complete") ? reader.boolean("complete") : true;
  run.simulated = reader.boolean("simulated");
  run.sim_file = reader.string("sim_file");
  run.shared_gpu = reader.boolean("shared_gpu");
  run.other_gpu_processes = processes_from_json(reader, "other_gpu_processes");
  run.gpu_lock = reader.string("gpu_lock");
  if (auto seconds = reader.number("conditions_seconds")) run.conditions_seconds = *seconds;
  if (auto seconds = reader.number("checkpoint_seconds")) run.checkpoint_seconds = *seconds;
  if (auto seconds = reader.number("snapshot_seconds")) run.snapshot_seconds = *seconds;
  if (const ojson* steps = reader.array("startup", false)) {
    for (std::size_t i = 0; i < steps->size(); ++i) {
      ObjectReader step = reader.child((*steps)[i], "startup[" + std::to_string(i) + "]");
      StartupStep entry{step.string("name", /*is_required=*/true), 0};
      if (auto seconds = step.number("seconds")) entry.seconds = *seconds;
      run.startup.push_back(entry);
    }
  }
  if (const ojson* phases = reader.array("phases", false)) {
    for (std::size_t i = 0; i < phases->size(); ++i) {
      ObjectReader phase_reader = reader.child((*phases)[i], "phases[" + std::to_string(i) + "]");
      PhaseTiming phase;
      phase.name = phase_reader.string("name", /*is_required=*/true);
      if (auto seconds = phase_reader.number("seconds")) phase.seconds = *seconds;
      phase.sm_clock_khz_before = phase_reader.nullable_number("sm_clock_khz_before");
      phase.sm_clock_khz_after = phase_reader.nullable_number("sm_clock_khz_after");
      phase_conditions_from_json(phase_reader, phase);
      run.phases.push_back(std::move(phase));
    }
  }
  if (const ojson* probes = reader.array("probes", false)) {
    for (std::size_t i = 0; i < probes->size(); ++i) {
      ObjectReader outcome_reader = reader.child((*probes)[i], "probes[" + std::to_string(i) + "]");
      ProbeOutcome outcome;
      outcome.probe_id = outcome_reader.string("id", /*is_required=*/true);
      outcome.status = outcome_reader.string("status", /*is_required=*/true);
      outcome.reason = outcome_reader.string("reason");
      run.probes.push_back(std::move(outcome));
    }
  }
}

// memtopo's other JSON documents, named for what they are rather than read as a run with a key
// missing ("device: required key is missing" said nothing of what the file was).
void refuse_other_documents(const ObjectReader& top) {
  const ojson* schema = top.find("schema");
  const std::string name = schema && schema->is_string() ? schema->get<std::string>() : "";
  const ojson* devices = top.find("devices");
  // report/multi_device_report.hpp writes "memtopo-multi-device" (the model cannot include it).
  if (name.rfind("memtopo-multi-device", 0) == 0 ||
      (!schema && devices && devices->is_array() && !top.find("elements"))) {
    const std::string count =
        devices && devices->is_array()
            ? std::to_string(devices->size()) + (devices->size() == 1 ? " GPU" : " GPUs")
            : std::string("GPUs");
    top.fail_document(
        "is a multi-device run (memtopo --device all: " + count +
        " and the p2p results between them), not one GPU's run; take one GPU's run out of it, "
        "e.g. jq '.devices[0]' FILE > gpu0.json");
  }
  if (name.rfind("memtopo-compare", 0) == 0) {
    top.fail_document("is a comparison of two runs (memtopo compare --json), not a run");
  }
  if (const ojson* version = top.find("schema_version");
      version && version->is_string() &&
      version->get<std::string>().rfind("memtopo-study", 0) == 0) {
    top.fail_document("is a study's result (memtopo study ... --json), not a discovery's run");
  }
  if (schema) {
    top.fail("schema", "'" + (name.empty() ? std::string("?") : name.substr(0, 40)) +
                           "' is not a memtopo discovery's run (which has no \"schema\" key)");
  }
}

Topology read_topology(const ojson& document, const std::string& origin) {
  ObjectReader top(document, "", origin);
  refuse_other_documents(top);
  auto version = top.integer<int>("schema_version");
  if (!version)
    top.fail("schema_version", "required key is missing (is this a memtopo JSON file?)");
  if (*version < 1 || *version > kSchemaVersion) {
    top.fail("schema_version", "version " + std::to_string(*version) +
                                   " is not readable by this memtopo, which reads versions 1 to " +
                                   std::to_string(kSchemaVersion) + "; use a newer memtopo");
  }

  Topology topology;
  ObjectReader tool = top.child("tool");
  // Another tool's file that happens to carry the same keys is not read as memtopo's.
  if (const std::string name = tool.string("name"); !name.empty() && name != "memtopo")
    tool.fail("name", "'" + name + "' wrote this file, not memtopo");
  topology.run.tool_version = tool.string("version");
  topology.run.git_describe = tool.string("git_describe");
  run_from_json(top.child("run"), topology.run);
  topology.device = device_from_json(top.child("device"));

  const ojson& elements = *top.array("elements", /*is_required=*/true);
  if (elements.size() > kMaxElements) {
    top.fail("elements", "has " + std::to_string(elements.size()) +
                             " elements; a memtopo run has at most " +
                             std::to_string(kMaxElements));
  }
  std::set<std::string> ids;  // a set, so that a file of a million elements reads in linear time
  for (std::size_t i = 0; i < elements.size(); ++i) {
    std::string key = "elements[" + std::to_string(i) + "]";
    Element element = element_from_json(top.child(elements[i], key));
    if (!ids.insert(element.id).second)
      top.fail(key + ".id", "element '" + printable_text(element.id) + "' appears twice");
    topology.elements.push_back(std::move(element));
  }
  topology.warnings = top.strings("warnings");
  return topology;
}

}  // namespace

Mode mode_from_json(const nlohmann::json& value, const std::string& where) {
  const ojson ordered = value;
  return mode_of(ObjectReader(ordered, "", where));
}

Topology topology_from_json(const nlohmann::ordered_json& document, const std::string& origin) {
  return read_topology(document, origin);
}

Property property_from_json_value(const nlohmann::ordered_json& value, const std::string& name,
                                  const std::string& origin) {
  const ojson holder = ojson::object();
  return property_from_json(ObjectReader(holder, "", origin), name, value);
}

RunInfo run_info_from_json(const nlohmann::ordered_json& run, const std::string& origin) {
  RunInfo info;
  run_from_json(ObjectReader(run, "run", origin), info);
  return info;
}

nlohmann::ordered_json parse_run_document(const std::string& text, const std::string& origin) {
  if (text.size() > kMaxTopologyTextBytes) {
    throw TopologyJsonError(printable_text(origin) + ": " + std::to_string(text.size()) +
                            " bytes; a memtopo result is at most " +
                            std::to_string(kMaxTopologyTextBytes >> 20) + " MiB");
  }
  try {
    return parse_json_text<ojson>(text, kMaxTopologyNesting);
  } catch (const JsonTextError& error) {
    // A syntax error names line, column and byte; a number no double holds (1e400) the number.
    const bool syntax = error.kind() == JsonTextError::Kind::syntax;
    throw TopologyJsonError(printable_text(origin + ": " + (syntax ? "not valid JSON (" : "") +
                                           error.what() + (syntax ? ")" : "")));
  }
}

Topology topology_from_json_text(const std::string& text, const std::string& origin) {
  return topology_from_json(parse_run_document(text, origin), origin);
}
}  // namespace memtopo
