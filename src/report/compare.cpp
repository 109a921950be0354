#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/property_values.hpp"

namespace memtopo {
namespace {

// A list of objects (the carveout table, latency patterns) is a table: its floats move from run
// to run, and no single spread judges it.
bool is_table(const nlohmann::json& value) {
  if (value.is_object()) return true;
  if (!value.is_array()) return false;
  return std::any_of(value.begin(), value.end(),
                     [](const nlohmann::json& item) { return item.is_structured(); });
}

Verdict judge_numbers(double a, double b, const Property& pa, const Property& pb,
                      const CompareRules& rules, PropertyComparison& out) {
  out.delta = b - a;
  const double difference = std::abs(b - a);
  const auto spread_a = spread_of_value(pa, a);
  const auto spread_b = spread_of_value(pb, b);
  if (spread_a && spread_b) {
    out.rule = "spread";
    const double combined =
        std::sqrt(spread_a->stdev * spread_a->stdev + spread_b->stdev * spread_b->stdev);
    const double floor = rules.relative_floor * std::max(std::abs(a), std::abs(b));
    out.tolerance = std::max(rules.stdev_factor * combined, floor);
    const bool ranges_overlap = spread_a->p5 <= spread_b->p95 && spread_b->p5 <= spread_a->p95;
    if (difference == 0) return Verdict::same;
    return difference > *out.tolerance && !ranges_overlap ? Verdict::changed
                                                          : Verdict::within_spread;
  }
  const auto resolution_a = resolution_of(pa);
  const auto resolution_b = resolution_of(pb);
  if (resolution_a || resolution_b) {
    out.rule = "resolution";
    out.tolerance = std::max(resolution_a.value_or(0), resolution_b.value_or(0));
    if (difference == 0) return Verdict::same;
    return difference > *out.tolerance ? Verdict::changed : Verdict::within_spread;
  }
  out.rule = "exact";
  if (difference == 0) return Verdict::same;
  // A ratio or a derived fraction without a spread of its own: the quantisation floor only.
  const bool whole_numbers = std::trunc(a) == a && std::trunc(b) == b;
  if (whole_numbers) return Verdict::changed;
  out.tolerance = rules.relative_floor * std::max(std::abs(a), std::abs(b));
  return difference > *out.tolerance ? Verdict::changed : Verdict::within_spread;
}

Verdict judge_conclusive(const Property& a, const Property& b, const CompareRules& rules,
                         PropertyComparison& out) {
  const auto number_a = number_of(a.value);
  const auto number_b = number_of(b.value);
  if (number_a && number_b) return judge_numbers(*number_a, *number_b, a, b, rules, out);
  if (a.value == b.value) {
    out.rule = "exact";
    return Verdict::same;
  }
  if (is_table(a.value) || is_table(b.value)) {
    out.rule = "table";
    return Verdict::not_judged;
  }
  out.rule = "exact";
  return Verdict::changed;
}

bool crosses(const std::optional<double>& a, const std::optional<double>& b, double threshold) {
  return a && b && ((*a < threshold) != (*b < threshold));
}

PropertyComparison one_sided(const std::string& element, const Property& property, bool in_a) {
  PropertyComparison out;
  out.element = element;
  out.property = property.name;
  out.unit = property.unit;
  (in_a ? out.value_a : out.value_b) = property.value;
  (in_a ? out.inconclusive_a : out.inconclusive_b) = !is_conclusive(property);
  (in_a ? out.confidence_a : out.confidence_b) = property.confidence;
  out.verdict = in_a ? Verdict::only_in_a : Verdict::only_in_b;
  out.rule = "presence";
  return out;
}

RunSummary summary_of(const Topology& topology, const std::string& origin) {
  return RunSummary{origin,
                    topology.device.name,
                    topology.run.git_describe,
                    topology.run.timestamp_utc,
                    topology.run.simulated,
                    topology.run.sim_file};
}

const Property* find_mode(const std::vector<Property>& modes, const std::string& name) {
  for (const Property& mode : modes) {
    if (mode.name == name) return &mode;
  }
  return nullptr;
}

// The other modes of a property both runs have, by name; a mode only one run has is one-sided.
void compare_modes(const std::string& element, const Property& a, const Property& b,
                   const CompareRules& rules, std::vector<PropertyComparison>& out) {
  const std::vector<Property> modes_a = other_modes(a), modes_b = other_modes(b);
  for (const Property& mode : modes_a) {
    const Property* other = find_mode(modes_b, mode.name);
    out.push_back(other ? compare_property(element, mode, *other, rules)
                        : one_sided(element, mode, /*in_a=*/true));
  }
  for (const Property& mode : modes_b) {
    if (!find_mode(modes_a, mode.name)) out.push_back(one_sided(element, mode, /*in_a=*/false));
  }
}

std::vector<ProbeStatusChange> probe_changes(const Topology& a, const Topology& b) {
  std::map<std::string, std::string> status_b;
  for (const ProbeOutcome& outcome : b.run.probes) status_b[outcome.probe_id] = outcome.status;
  std::vector<ProbeStatusChange> changes;
  std::set<std::string> seen;
  for (const ProbeOutcome& outcome : a.run.probes) {
    seen.insert(outcome.probe_id);
    const auto it = status_b.find(outcome.probe_id);
    const std::string other = it == status_b.end() ? "" : it->second;
    if (other != outcome.status) changes.push_back({outcome.probe_id, outcome.status, other});
  }
  for (const ProbeOutcome& outcome : b.run.probes) {
    if (!seen.count(outcome.probe_id)) changes.push_back({outcome.probe_id, "", outcome.status});
  }
  return changes;
}

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::changed:
      return "changed";
    case Verdict::became_inconclusive:
      return "became inconclusive";
    case Verdict::became_conclusive:
      return "became conclusive";
    case Verdict::confidence_crossed:
      return "confidence crossed 0.5";
    case Verdict::only_in_a:
      return "only in A";
    case Verdict::only_in_b:
      return "only in B";
    case Verdict::within_spread:
      return "within spread";
    case Verdict::both_inconclusive:
      return "both inconclusive";
    case Verdict::not_judged:
      return "table differs (not judged)";
    case Verdict::same:
      return "same";
  }
  return "?";
}

bool is_difference(Verdict verdict) {
  switch (verdict) {
    case Verdict::changed:
    case Verdict::became_inconclusive:
    case Verdict::became_conclusive:
    case Verdict::confidence_crossed:
    case Verdict::only_in_a:
    case Verdict::only_in_b:
      return true;
    default:
      return false;
  }
}

bool Comparison::has_differences() const {
  return !probe_changes.empty() ||
         std::any_of(properties.begin(), properties.end(),
                     [](const PropertyComparison& p) { return is_difference(p.verdict); });
}

std::size_t Comparison::count(Verdict verdict) const {
  return static_cast<std::size_t>(
      std::count_if(properties.begin(), properties.end(),
                    [verdict](const PropertyComparison& p) { return p.verdict == verdict; }));
}

PropertyComparison compare_property(const std::string& element, const Property& a,
                                    const Property& b, const CompareRules& rules) {
  PropertyComparison out;
  out.element = element;
  out.property = a.name;
  out.unit = a.unit.empty() ? b.unit : a.unit;
  out.value_a = a.value;
  out.value_b = b.value;
  out.inconclusive_a = !is_conclusive(a);
  out.inconclusive_b = !is_conclusive(b);
  out.confidence_a = a.confidence;
  out.confidence_b = b.confidence;
  if (out.inconclusive_a || out.inconclusive_b) {
    out.rule = "conclusiveness";
    if (out.inconclusive_a && out.inconclusive_b) {
      out.verdict = Verdict::both_inconclusive;
    } else {
      out.verdict = out.inconclusive_b ? Verdict::became_inconclusive : Verdict::became_conclusive;
    }
    return out;
  }
  out.verdict = judge_conclusive(a, b, rules, out);
  const bool values_agree = out.verdict == Verdict::same || out.verdict == Verdict::within_spread;
  if (values_agree && crosses(a.confidence, b.confidence, rules.confidence_threshold)) {
    out.verdict = Verdict::confidence_crossed;
  }
  return out;
}

Comparison compare_topologies(const Topology& a, const std::string& origin_a, const Topology& b,
                              const std::string& origin_b, const CompareRules& rules) {
  Comparison comparison;
  comparison.a = summary_of(a, origin_a);
  comparison.b = summary_of(b, origin_b);
  comparison.rules = rules;
  for (const Element& element_a : a.elements) {
    const Element* element_b = b.find(element_a.id);
    for (const Property& property : element_a.properties) {
      const Property* other = element_b ? element_b->find(property.name) : nullptr;
      comparison.properties.push_back(other
                                          ? compare_property(element_a.id, property, *other, rules)
                                          : one_sided(element_a.id, property, /*in_a=*/true));
      if (other) {
        compare_modes(element_a.id, property, *other, rules, comparison.properties);
      } else {
        for (const Property& mode : other_modes(property))
          comparison.properties.push_back(one_sided(element_a.id, mode, /*in_a=*/true));
      }
    }
  }
  for (const Element& element_b : b.elements) {
    const Element* element_a = a.find(element_b.id);
    for (const Property& property : element_b.properties) {
      if (!element_a || !element_a->find(property.name)) {
        comparison.properties.push_back(one_sided(element_b.id, property, /*in_a=*/false));
        for (const Property& mode : other_modes(property))
          comparison.properties.push_back(one_sided(element_b.id, mode, /*in_a=*/false));
      }
    }
  }
  comparison.probe_changes = probe_changes(a, b);
  return comparison;
}

}  // namespace memtopo
