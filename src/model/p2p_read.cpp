// Reading p2p_to_json's form back (model/p2p.hpp), for `memtopo report` of a multi-device run.
#include <string>

#include "model/json.hpp"
#include "model/p2p.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

P2pPair pair_from_json(const ojson& in, const std::string& origin) {
  P2pPair pair;
  pair.actor = in.at("actor").get<int>();
  const ojson& memory = in.at("memory");
  pair.memory = memory.is_string() ? kHostColumn : memory.get<int>();
  for (const auto& [key, value] : in.items()) {
    if (key == "actor" || key == "memory") continue;
    pair.properties.push_back(property_from_json_value(value, key, origin));
  }
  return pair;
}

}  // namespace

P2pReport p2p_from_json(const nlohmann::ordered_json& in, const std::string& origin) {
  P2pReport report;
  try {
    for (const ojson& device : in.at("devices")) {
      report.devices.push_back(P2pDevice{device.at("position").get<int>(),
                                         device.at("cuda_index").get<int>(),
                                         device.at("name").get<std::string>(),
                                         device.at("uuid").get<std::string>()});
    }
    for (const ojson& pair : in.at("pairs")) report.pairs.push_back(pair_from_json(pair, origin));
    for (const ojson& probe : in.at("probes")) {
      report.probes.push_back({probe.at("id").get<std::string>(),
                               probe.at("status").get<std::string>(), probe.value("reason", "")});
    }
    for (const ojson& phase : in.at("phases")) {
      report.phases.emplace_back(phase.at("name").get<std::string>(),
                                 phase.at("seconds").get<double>());
    }
    report.duration_seconds = in.at("duration_seconds").get<double>();
    report.warnings = in.at("warnings").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& error) {
    throw TopologyJsonError(origin + ": p2p: " + error.what());
  }
  return report;
}

}  // namespace memtopo
