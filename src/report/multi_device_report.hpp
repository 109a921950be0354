#pragma once
// The reports of a multi-device run (--device all, --device 0,1): every GPU's topology as a
// one-device run writes it, then the p2p family's matrices. JSON: one document of its own schema
// ("schema": "memtopo-multi-device"), docs/multi-gpu.md; a one-device run's JSON is unchanged.
#include <optional>
#include <string>
#include <vector>

#include "model/p2p.hpp"
#include "model/topology.hpp"

namespace memtopo {

inline constexpr const char* kMultiDeviceSchema = "memtopo-multi-device";
inline constexpr int kMultiDeviceSchemaVersion = 1;

struct MultiDeviceReport {
  RunInfo run;                    // the whole run: arguments, duration, simulated
  std::vector<Topology> devices;  // in --device order
  std::optional<P2pReport> p2p;   // none when no p2p probe was selected
};

std::string render_multi_device_json(const MultiDeviceReport& report);
// Reads render_multi_device_json's document back (`memtopo report`); TopologyJsonError when it
// is not one.
MultiDeviceReport multi_device_from_json(const nlohmann::ordered_json& document,
                                         const std::string& origin);
// Each GPU's console report under a "GPU n" heading, then the multi-GPU section.
std::string render_multi_device_console(const MultiDeviceReport& report);
// One self-contained HTML page: the GPUs, the p2p matrices as tables (low confidence marked ~,
// n/a with the reason, methods on hover; section id "p2p", tables "p2p-<property>"), then every
// GPU's sections as a one-device report has them, ids prefixed "gpu<position>-".
std::string render_multi_device_html(const MultiDeviceReport& report);

// The same as GitHub markdown (markdown_multi_device.cpp): the map of the GPUs, the p2p
// matrices, then each GPU's markdown report (headings one level down), its plots linked from
// `plots_folder` + "/gpu<position>/". MarkdownReport: report/markdown_report.hpp.
struct MarkdownReport;
MarkdownReport render_multi_device_markdown(const MultiDeviceReport& report,
                                            const std::string& plots_folder);

}  // namespace memtopo
