#include "probes/core/findings.hpp"

#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "probes/core/elements.hpp"

namespace memtopo {
namespace {

// The live watches, for every topology (one per device of a multi-GPU run, and tests' own),
// keyed by the topology's address: a lookup takes only the topology. The mutex guards the list;
// a watch's reader runs on the thread that read (probes read on the runner's thread).
struct Watch {
  std::uint64_t id;
  const Topology* topology;
  FindingReader on_read;
};
std::mutex watches_mutex;
std::vector<Watch> watches;
std::uint64_t next_watch_id = 1;

// Hands `p` to every watch of `topology`; returns it.
const Property* reported(const Topology& topology, std::string_view element, const Property* p,
                         FindingRead how = FindingRead::value) {
  if (!p) return p;
  std::vector<FindingReader> readers;
  {
    const std::lock_guard lock(watches_mutex);
    for (const Watch& w : watches) {
      if (w.topology == &topology) readers.push_back(w.on_read);
    }
  }
  for (const FindingReader& read : readers) read(element, *p, how);
  return p;
}

const Property* lookup(const Topology& topology, std::string_view element,
                       std::string_view property) {
  const Element* e = topology.find(std::string(element));
  return e ? e->find(std::string(property)) : nullptr;
}

}  // namespace

FindingReadWatch::FindingReadWatch(const Topology& topology, FindingReader on_read) {
  const std::lock_guard lock(watches_mutex);
  id_ = next_watch_id++;
  watches.push_back({id_, &topology, std::move(on_read)});
}

FindingReadWatch::~FindingReadWatch() {
  const std::lock_guard lock(watches_mutex);
  std::erase_if(watches, [&](const Watch& w) { return w.id == id_; });
}

const Property* any_finding(const Topology& topology, std::string_view element,
                            std::string_view property) {
  return reported(topology, element, lookup(topology, element, property));
}

const Property* bound_finding(const Topology& topology, std::string_view element,
                              std::string_view property, Bound side) {
  const Property* p = lookup(topology, element, property);
  if (!p || p->bound != side || !p->value.is_number()) return nullptr;
  return reported(topology, element, p, FindingRead::bound_side);
}

bool finding_exists(const Topology& topology, std::string_view element, std::string_view property) {
  return lookup(topology, element, property) != nullptr;
}

const Property* conclusive_finding(const Topology& topology, std::string_view element,
                                   std::string_view property) {
  const Property* p = lookup(topology, element, property);
  if (!p || p->source == Source::api || p->inconclusive || p->bound != Bound::none ||
      !p->value.is_number() || !std::isfinite(p->value.get<double>())) {
    return nullptr;
  }
  return reported(topology, element, p);
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

Property inconclusive_property(const std::string& name, const std::string& unit,
                               const std::string& method, const std::string& why) {
  Property p;
  p.name = name;
  p.unit = unit;
  p.source = Source::measured;
  p.method = method;
  p.value = nullptr;
  p.inconclusive = true;
  p.note = why;
  return p;
}

void set_inconclusive(Topology& topology, const std::string& element, const std::string& property,
                      const std::string& method, const std::string& why) {
  element_for(topology, element).set(inconclusive_property(property, "", method, why));
}

}  // namespace memtopo
