#include "model/p2p.hpp"

#include <algorithm>
#include <cmath>

#include "model/json.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kHostName = "host";
constexpr const char* kMatrixProperties[] = {
    p2p_property::kPeerAccess, p2p_property::kLink,    p2p_property::kLatency,
    p2p_property::kLatencyOnePage, p2p_property::kSmRead, p2p_property::kSmWrite,
    p2p_property::kCopyRead,   p2p_property::kCopyWrite};

ojson memory_name(int memory) {
  return memory == kHostColumn ? ojson(kHostName) : ojson(memory);
}

ojson devices_to_json(const std::vector<P2pDevice>& devices) {
  ojson out = ojson::array();
  for (const P2pDevice& device : devices) {
    out.push_back(ojson{{"position", device.position},
                        {"cuda_index", device.cuda_index},
                        {"name", device.name},
                        {"uuid", device.uuid}});
  }
  return out;
}

ojson pairs_to_json(const std::vector<P2pPair>& pairs) {
  ojson out = ojson::array();
  for (const P2pPair& pair : pairs) {
    ojson entry{{"actor", pair.actor}, {"memory", memory_name(pair.memory)}};
    for (const Property& property : pair.properties) {
      entry[property.name] = property_json(property);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// The unit a property's matrix is in: a latency's seconds, else the property's own.
std::string matrix_unit(const P2pReport& report, const std::string& name) {
  if (p2p_property::is_latency(name)) return "seconds";
  for (const P2pPair& pair : report.pairs) {
    if (const Property* property = pair.find(name)) return property->unit;
  }
  return "";
}

ojson matrices_to_json(const P2pReport& report) {
  ojson rows = ojson::array();
  ojson columns = ojson::array();
  for (const P2pDevice& device : report.devices) {
    rows.push_back(device.position);
    columns.push_back(device.position);
  }
  columns.push_back(kHostName);
  ojson out = ojson::object();
  for (const char* name : kMatrixProperties) {
    ojson values = ojson::array();
    for (const P2pDevice& actor : report.devices) {
      ojson row = ojson::array();
      auto cell = [&](int memory) {
        const P2pPair* pair = report.find(actor.position, memory);
        const Property* property = pair ? pair->find(name) : nullptr;
        row.push_back(property ? matrix_value(*property) : ojson(nullptr));
      };
      for (const P2pDevice& memory : report.devices) cell(memory.position);
      cell(kHostColumn);
      values.push_back(std::move(row));
    }
    out[name] = ojson{{"unit", matrix_unit(report, name)},
                      {"rows", rows},
                      {"columns", columns},
                      {"values", std::move(values)}};
  }
  return out;
}

}  // namespace

const Property* P2pPair::find(const std::string& name) const {
  auto it = std::find_if(properties.begin(), properties.end(),
                         [&](const Property& property) { return property.name == name; });
  return it == properties.end() ? nullptr : &*it;
}

Property& P2pPair::set(Property property) {
  auto it = std::find_if(properties.begin(), properties.end(),
                         [&](const Property& p) { return p.name == property.name; });
  if (it != properties.end()) return *it = std::move(property);
  return properties.emplace_back(std::move(property));
}

const P2pPair* P2pReport::find(int actor, int memory) const {
  auto it = std::find_if(pairs.begin(), pairs.end(), [&](const P2pPair& pair) {
    return pair.actor == actor && pair.memory == memory;
  });
  return it == pairs.end() ? nullptr : &*it;
}

ojson matrix_value(const Property& property) {
  if (property.inconclusive || property.value.is_null()) return nullptr;
  if (p2p_property::is_latency(property.name)) {
    return property.seconds_value && std::isfinite(*property.seconds_value)
               ? ojson(*property.seconds_value)
               : ojson(nullptr);
  }
  return ojson(property.value);
}

ojson p2p_to_json(const P2pReport& report) {
  ojson out;
  out["devices"] = devices_to_json(report.devices);
  out["pairs"] = pairs_to_json(report.pairs);
  out["matrices"] = matrices_to_json(report);
  ojson probes = ojson::array();
  for (const ProbeOutcome& outcome : report.probes) {
    ojson entry{{"id", outcome.probe_id}, {"status", outcome.status}};
    if (!outcome.reason.empty()) entry["reason"] = outcome.reason;
    probes.push_back(std::move(entry));
  }
  out["probes"] = std::move(probes);
  ojson phases = ojson::array();
  for (const PhaseTiming& phase : report.phases) {
    phases.push_back(ojson{{"name", phase.name}, {"seconds", phase.seconds}});
  }
  out["phases"] = std::move(phases);
  out["duration_seconds"] = report.duration_seconds;
  out["warnings"] = report.warnings;
  return out;
}

}  // namespace memtopo
