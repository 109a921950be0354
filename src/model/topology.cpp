#include "model/topology.hpp"

#include <algorithm>

namespace memtopo {

const char* to_string(Source source) {
  switch (source) {
    case Source::api: return "api";
    case Source::measured: return "measured";
    case Source::derived: return "derived";
  }
  return "?";
}

const char* to_string(Bound bound) {
  switch (bound) {
    case Bound::none: return "none";
    case Bound::lower: return "lower";
    case Bound::upper: return "upper";
  }
  return "?";
}

std::optional<double> typical_value(const Property& property) {
  if (property.modes.empty()) {
    if (!property.value.is_number()) return std::nullopt;
    return property.value.get<double>();
  }
  double typical = 0, shares = 0;
  for (const Mode& mode : property.modes) {
    typical += mode.share * mode.value;
    shares += mode.share;
  }
  if (!(shares > 0)) return std::nullopt;
  return typical / shares;
}

const Property* Element::find(const std::string& property) const {
  auto it = std::find_if(properties.begin(), properties.end(),
                         [&](const Property& p) { return p.name == property; });
  return it == properties.end() ? nullptr : &*it;
}

Property* Element::find(const std::string& property) {
  return const_cast<Property*>(std::as_const(*this).find(property));
}

Property& Element::set(Property property) {
  if (Property* existing = find(property.name)) {
    *existing = std::move(property);
    return *existing;
  }
  return properties.emplace_back(std::move(property));
}

const Element* Topology::find(const std::string& element_id) const {
  auto it = std::find_if(elements.begin(), elements.end(),
                         [&](const Element& e) { return e.id == element_id; });
  return it == elements.end() ? nullptr : &*it;
}

Element& Topology::element(const std::string& id, const std::string& kind,
                           const std::string& scope) {
  if (const Element* existing = find(id)) return const_cast<Element&>(*existing);
  Element e;
  e.id = id;
  e.kind = kind;
  e.scope = scope;
  return elements.emplace_back(std::move(e));
}

std::optional<double> Topology::number(const std::string& element_id,
                                       const std::string& property) const {
  const Element* e = find(element_id);
  if (!e) return std::nullopt;
  const Property* p = e->find(property);
  if (!p || !p->value.is_number()) return std::nullopt;
  return p->value.get<double>();
}

}  // namespace memtopo
