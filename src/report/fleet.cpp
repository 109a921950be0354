#include "report/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "report/property_values.hpp"

namespace memtopo {
namespace {

FleetGpu gpu_of(const RunEntry& entry) {
  const Topology& t = entry.topology;
  FleetGpu gpu{entry.origin,        "",
               t.run.host,          t.device.uuid,
               t.device.pci_bus_id, t.device.driver_version,
               t.run.slurm,         t.run.simulated,
               t.run.sim_file,      t.run.complete};
  std::string which = gpu.uuid;
  if (which.empty()) which = gpu.pci_bus_id;
  if (gpu.simulated) {
    which = "sim " + std::filesystem::path(gpu.sim_file).filename().string() + " device " +
            std::to_string(t.device.device_index);
  }
  if (which.empty()) which = "device " + std::to_string(t.device.device_index);
  gpu.label = (gpu.host.empty() ? std::string("?") : gpu.host) + " " + which;
  return gpu;
}

std::string model_of(const Topology& topology) {
  const DeviceFacts& d = topology.device;
  std::string model = d.name + " (cc " + std::to_string(d.cc_major) + "." +
                      std::to_string(d.cc_minor) + ", " + std::to_string(d.sm_count) + " SMs";
  if (topology.run.simulated) model += ", simulated";
  return model + ")";
}

// A property of one GPU's run, by element and name, the modes after the headline included.
struct NamedProperty {
  std::string element;
  Property property;
};

std::vector<NamedProperty> all_properties(const Topology& topology) {
  std::vector<NamedProperty> out;
  for (const Element& element : topology.elements) {
    for (const Property& property : element.properties) {
      out.push_back({element.id, property});
      for (Property& mode : other_modes(property)) out.push_back({element.id, std::move(mode)});
    }
  }
  return out;
}

using PropertyTable = std::map<std::pair<std::string, std::string>, Property>;

PropertyTable table_of(const Topology& topology) {
  PropertyTable table;
  for (NamedProperty& named : all_properties(topology)) {
    const std::string name = named.property.name;
    table.emplace(std::make_pair(named.element, name), std::move(named.property));
  }
  return table;
}

// The GPU's own tolerance around its value: could its own measurement have given the fleet
// median? The value is the median of its samples (loads of a chase, launches of a stream), so
// what it knows of itself is the median's standard error, 1.2533 x stdev / sqrt(samples), not
// the samples' range: a DRAM chase's loads span 497-548 cycles on an H200, yet its p50 repeats
// within a cycle, and a GPU whose p50 sits 22 cycles from its fleet's in five runs of five
// differs (docs/results/nvidia-h200-x2 ...-fleet; issue 38's 522 against 541).
bool median_within_own_spread(const Property& property, double value, double median,
                              const FleetRules& rules, FleetValue& out) {
  const double distance = std::abs(value - median);
  if (const auto spread = spread_of_value(property, value); spread && spread->samples > 1) {
    out.p5 = spread->p5;
    out.p95 = spread->p95;
    constexpr double kMedianStandardError = 1.2533;  // sqrt(pi / 2), for a median
    const double standard_error =
        kMedianStandardError * spread->stdev / std::sqrt(static_cast<double>(spread->samples));
    out.standard_error = standard_error;
    return distance <= rules.stdev_factor * standard_error;
  }
  if (const auto resolution = resolution_of(property)) return distance <= *resolution;
  return distance == 0;
}

std::string why_text(const FleetValue& value, const FleetProperty& p, const FleetRules& rules) {
  std::string text = "median " + format_value(p.median, p.unit) + ", fleet tolerance " +
                     format_value(p.fleet_tolerance, p.unit);
  if (value.z) text += ", robust z " + format_number(*value.z, 1);
  text += " (> " + format_number(rules.z_threshold, 1) + ")";
  if (value.standard_error) {
    text += ", own median ± " + format_value(*value.standard_error, p.unit) + " (standard error)";
  }
  return text;
}

// The property's fleet statistics and each GPU's verdict.
void judge_property(FleetProperty& p, const std::vector<const Property*>& own,
                    const FleetRules& rules, bool too_small) {
  std::vector<double> numbers;
  for (const FleetValue& v : p.values) numbers.push_back(v.value);
  p.median = median(numbers);
  p.robust_sigma = robust_sigma(numbers);
  p.fleet_tolerance =
      std::max(rules.z_threshold * p.robust_sigma, rules.relative_floor * std::abs(p.median));
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    FleetValue& v = p.values[i];
    const double distance = std::abs(v.value - p.median);
    if (p.robust_sigma > 0) v.z = (v.value - p.median) / p.robust_sigma;
    const bool within_own = median_within_own_spread(*own[i], v.value, p.median, rules, v);
    v.weak = own[i]->confidence && *own[i]->confidence < rules.confidence_threshold;
    v.outlier = !too_small && !v.weak && distance > p.fleet_tolerance && !within_own;
    if (v.outlier) v.why = why_text(v, p, rules);
  }
}

// Every numeric property of the group's GPUs, in the first GPU's order, then what others add.
std::vector<FleetProperty> judge_group(
    const std::vector<PropertyTable>& tables, const std::vector<std::size_t>& gpus,
    const std::vector<std::pair<std::string, std::string>>& order, const FleetRules& rules,
    bool too_small) {
  std::vector<FleetProperty> out;
  for (const auto& key : order) {
    FleetProperty p;
    p.element = key.first;
    p.property = key.second;
    std::vector<const Property*> own;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const auto it = tables[i].find(key);
      const auto number = it == tables[i].end() ? std::nullopt : number_of(it->second.value);
      if (!number || !is_conclusive(it->second) || !std::isfinite(*number)) {
        ++p.not_conclusive;
        continue;
      }
      if (p.unit.empty()) p.unit = it->second.unit;
      FleetValue value;
      value.gpu = gpus[i];
      value.value = *number;
      p.values.push_back(std::move(value));
      own.push_back(&it->second);
    }
    if (p.values.empty()) continue;
    judge_property(p, own, rules, too_small);
    out.push_back(std::move(p));
  }
  return out;
}

FleetGroup analyse_group(const std::string& model, const std::vector<std::size_t>& members,
                         const std::vector<RunEntry>& entries, const std::vector<FleetGpu>& gpus,
                         const FleetRules& rules) {
  FleetGroup group;
  group.model = model;
  std::vector<PropertyTable> tables;
  std::vector<std::pair<std::string, std::string>> order;
  for (const std::size_t index : members) {
    if (!gpus[index].complete) {
      group.incomplete.push_back(index);
      continue;
    }
    group.gpus.push_back(index);
    for (const NamedProperty& named : all_properties(entries[index].topology)) {
      const auto key = std::make_pair(named.element, named.property.name);
      if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
    }
    tables.push_back(table_of(entries[index].topology));
  }
  group.too_small = group.gpus.size() < rules.min_gpus;
  group.properties = judge_group(tables, group.gpus, order, rules, group.too_small);
  return group;
}

}  // namespace

std::size_t FleetProperty::outliers() const {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](const FleetValue& v) { return v.outlier; }));
}

std::size_t FleetGroup::outliers() const {
  std::size_t count = 0;
  for (const FleetProperty& p : properties) count += p.outliers();
  return count;
}

std::size_t Fleet::outliers() const {
  std::size_t count = 0;
  for (const FleetGroup& group : groups) count += group.outliers();
  return count;
}

Fleet analyse_fleet(const std::vector<RunEntry>& entries, const FleetRules& rules) {
  Fleet fleet;
  fleet.rules = rules;
  std::vector<std::string> models;
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    fleet.gpus.push_back(gpu_of(entries[i]));
    const std::string model = model_of(entries[i].topology);
    if (!members.count(model)) models.push_back(model);
    members[model].push_back(i);
  }
  for (const std::string& model : models) {
    fleet.groups.push_back(analyse_group(model, members[model], entries, fleet.gpus, rules));
  }
  return fleet;
}

}  // namespace memtopo
