#include "probes/core/findings.hpp"

#include <cmath>
#include <string>

#include "probes/core/elements.hpp"

namespace memtopo {

const Property* any_finding(const Topology& topology, std::string_view element,
                            std::string_view property) {
  const Element* e = topology.find(std::string(element));
  return e ? e->find(std::string(property)) : nullptr;
}

const Property* conclusive_finding(const Topology& topology, std::string_view element,
                                   std::string_view property) {
  const Property* p = any_finding(topology, element, property);
  if (!p || p->source == Source::api || p->inconclusive || p->bound != Bound::none ||
      !p->value.is_number() || !std::isfinite(p->value.get<double>())) {
    return nullptr;
  }
  return p;
}

std::optional<double> finding_value(const Topology& topology, std::string_view element,
                                    std::string_view property) {
  const Property* p = conclusive_finding(topology, element, property);
  if (!p) return std::nullopt;
  return p->value.get<double>();
}

std::optional<std::uint64_t> finding_count(const Topology& topology, std::string_view element,
                                           std::string_view property) {
  const auto value = finding_value(topology, element, property);
  if (!value || *value < 1) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

void set_confidence(Property& property, const Confidence& confidence) {
  property.confidence = confidence.value();
  if (!property.evidence.is_object()) property.evidence = nlohmann::json::object();
  property.evidence["confidence_factors"] = confidence.evidence();
}

void set_inconclusive(Topology& topology, const std::string& element, const std::string& property,
                      const std::string& method, const std::string& why) {
  Property p;
  p.name = property;
  p.source = Source::measured;
  p.method = method;
  p.value = nullptr;
  p.inconclusive = true;
  p.note = why;
  element_for(topology, element).set(std::move(p));
}

}  // namespace memtopo
