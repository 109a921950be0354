#include "report/multi_device_report.hpp"

#include "model/json.hpp"
#include "report/console.hpp"
#include "report/console_p2p.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

ojson run_json(const RunInfo& run) {
  ojson out{{"timestamp_utc", run.timestamp_utc}, {"host", run.host},
            {"arguments", run.arguments},         {"duration_seconds", run.duration_seconds},
            {"complete", run.complete},           {"interrupted", run.interrupted},
            {"simulated", run.simulated}};
  if (run.simulated) out["sim_file"] = run.sim_file;
  return out;
}

}  // namespace

std::string render_multi_device_json(const MultiDeviceReport& report) {
  ojson out;
  out["schema"] = kMultiDeviceSchema;
  out["schema_version"] = kMultiDeviceSchemaVersion;
  out["tool"] = ojson{{"name", "memtopo"},
                      {"version", report.run.tool_version},
                      {"git_describe", report.run.git_describe}};
  out["run"] = run_json(report.run);
  ojson devices = ojson::array();
  for (const Topology& topology : report.devices) devices.push_back(topology_to_json(topology));
  out["devices"] = std::move(devices);
  out["p2p"] = report.p2p ? p2p_to_json(*report.p2p) : ojson(nullptr);
  return out.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

MultiDeviceReport multi_device_from_json(const ojson& document, const std::string& origin) {
  MultiDeviceReport report;
  const auto schema = document.find("schema");
  if (schema == document.end() || !schema->is_string() ||
      schema->get<std::string>().rfind(kMultiDeviceSchema, 0) != 0) {
    throw TopologyJsonError(origin + ": not a multi-device run");
  }
  report.run = run_info_from_json(document.at("run"), origin);
  if (const auto tool = document.find("tool"); tool != document.end() && tool->is_object()) {
    report.run.tool_version = tool->value("version", "");
    report.run.git_describe = tool->value("git_describe", "");
  }
  const auto devices = document.find("devices");
  if (devices == document.end() || !devices->is_array()) {
    throw TopologyJsonError(origin + ": devices: a multi-device run needs a list");
  }
  for (std::size_t i = 0; i < devices->size(); ++i) {
    report.devices.push_back(
        topology_from_json((*devices)[i], origin + " devices[" + std::to_string(i) + "]"));
  }
  if (const auto p2p = document.find("p2p"); p2p != document.end() && !p2p->is_null()) {
    report.p2p = p2p_from_json(*p2p, origin);
  }
  return report;
}

std::string render_multi_device_console(const MultiDeviceReport& report) {
  std::string out;
  for (const Topology& topology : report.devices) {
    out += "==== GPU " + std::to_string(topology.device.device_index) + " ====\n\n";
    out += render_console(topology) + "\n";
  }
  if (report.p2p) out += "==== Between the GPUs ====\n\n" + render_p2p_console(*report.p2p);
  return out;
}

}  // namespace memtopo
