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
