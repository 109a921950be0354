#include "probes/core/inheritance.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "analysis/confidence.hpp"

namespace memtopo {
namespace {

std::string key_of(std::string_view element, const std::string& property) {
  return std::string(element) + "." + property;
}

std::string two_places(double value) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// The least sure of the findings read, and how to name it: "that of l1.size, which the plan
// read", or "that of l1.ways, the least sure of the findings the plan read (l1.size 1.00,
// l1.ways 0.72)".
std::pair<double, std::string> least_read(const std::map<std::string, double>& read) {
  const auto least = std::min_element(
      read.begin(), read.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (read.size() == 1) return {least->second, "that of " + least->first + ", which the plan read"};
  std::string all;
  for (const auto& [finding, confidence] : read) {
    all += (all.empty() ? "" : ", ") + finding + " " + two_places(confidence);
  }
  return {least->second, "that of " + least->first +
                             ", the least sure of the findings the plan read (" + all + ")"};
}

// A property that states a value with a confidence to cap (not an API fact, not inconclusive).
bool cappable(const Property& p) {
  return p.source != Source::api && !p.inconclusive && p.bound == Bound::none && !p.value.is_null();
}

// Caps `p` at `least`: one more factor, so that the factors still multiply to its confidence.
// A value already no surer keeps its factors as they are (a factor of 1 would say nothing).
void cap(Property& p, double least, const std::string& from) {
  const double own = p.confidence.value_or(1.0);
  if (p.confidence && own <= least) return;
  const ConfidenceFactor factor = inherited_cap(own, least, from);
  p.confidence = std::min(own, least);  // exactly: own x factor may round a hair above `least`
  if (!p.evidence.is_object()) p.evidence = nlohmann::json::object();
  nlohmann::json& factors = p.evidence["confidence_factors"];
  if (!factors.is_array()) factors = nlohmann::json::array();
  factors.push_back(Confidence{factor}.evidence().front());
}

// The confidence a read caps at, if any.
std::optional<double> caps_at(const Property& property, FindingRead how) {
  if (how == FindingRead::bound_side) return std::nullopt;  // a plan valid on the bound's side
  if (property.confidence) return property.confidence;
  if (property.bound != Bound::none) return kBoundReadAsValue;
  return std::nullopt;  // an API fact; a null, inconclusive finding: nothing to plan from
}

}  // namespace

PlanInheritance::Stamp PlanInheritance::stamp_of(const Property& p) {
  return {p.value, p.confidence, p.method, p.note, p.source, p.inconclusive, p.bound};
}

PlanInheritance::PlanInheritance(Topology& topology) : topology_(topology) {
  for (const Element& element : topology_.elements) {
    for (const Property& property : element.properties) {
      before_.emplace(key_of(element.id, property.name), stamp_of(property));
    }
  }
  watch_.emplace(topology_, [this](std::string_view element, const Property& property,
                                   FindingRead how) { on_read(element, property, how); });
}

void PlanInheritance::on_read(std::string_view element, const Property& property, FindingRead how) {
  const auto confidence = caps_at(property, how);
  if (!confidence) return;
  const std::string key = key_of(element, property.name);
  const auto earlier = before_.find(key);
  // Not as it was before the probe: the probe's own result.
  if (earlier == before_.end() || !(earlier->second == stamp_of(property))) return;
  const std::string name =
      property.bound == Bound::none
          ? key
          : key + " (a " + to_string(property.bound) + " bound read as its value)";
  read_.emplace(name, *confidence);
}

void PlanInheritance::cap_what_was_written() {
  if (!watch_) return;
  watch_.reset();
  if (read_.empty()) return;
  const auto [least, from] = least_read(read_);
  for (Element& element : topology_.elements) {
    for (Property& property : element.properties) {
      const auto earlier = before_.find(key_of(element.id, property.name));
      const bool written = earlier == before_.end() || !(earlier->second == stamp_of(property));
      if (written && cappable(property)) cap(property, least, from);
    }
  }
}

void run_inheriting(Probe& probe, ProbeContext& ctx) {
  PlanInheritance inheritance(ctx.topology);
  try {
    probe.run(ctx);
  } catch (...) {
    inheritance.cap_what_was_written();
    throw;
  }
  inheritance.cap_what_was_written();
}

}  // namespace memtopo
