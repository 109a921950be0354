// The multi-GPU matrices of the console against golden output, and their width for 8 GPUs.
#include <gtest/gtest.h>

#include <sstream>

#include "golden_file.hpp"
#include "model/p2p.hpp"
#include "report/console_p2p.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

Property api_property(const char* name, nlohmann::json value) {
  Property property;
  property.name = name;
  property.value = std::move(value);
  property.source = Source::api;
  property.method = "test";
  return property;
}

Property measured(const char* name, const std::string& unit, double value, double confidence) {
  Property property;
  property.name = name;
  property.unit = unit;
  property.value = value;
  property.confidence = confidence;
  property.spread = Spread{value, value, 0, value, value, value, value, 10};
  property.method = "test";
  property.evidence["confidence_factors"] = nlohmann::json::array(
      {{{"rule", "share_within"}, {"value", confidence}, {"inputs", "test"}}});
  return property;
}

Property latency(double ns, double confidence) {
  Property property = measured(p2p_property::kLatency, "cycles", ns * 1.98, confidence);
  property.seconds_value = ns * 1e-9;
  return property;
}

Property unmeasured(const char* name, const char* note) {
  Property property;
  property.name = name;
  property.value = nullptr;
  property.inconclusive = true;
  property.note = note;
  return property;
}

// GPU 0 and GPU 1 on NVLink; GPU 1 to GPU 2 without peer access; every GPU with the host.
P2pReport sample_report(int gpus) {
  P2pReport report;
  for (int i = 0; i < gpus; ++i)
    report.devices.push_back({i, i, "H200", "GPU-" + std::to_string(i)});
  const auto add = [&](int actor, int memory) {
    P2pPair pair{actor, memory, {}};
    const bool host = memory == kHostColumn;
    const bool access = host || (actor + memory) % 3 != 0;
    pair.set(api_property(p2p_property::kPeerAccess, access));
    Property link = api_property(p2p_property::kLink, host ? "PCIe gen5 x16" : "NVLink x18 (v4)");
    link.evidence =
        host ? nlohmann::json{{"kind", "pcie"}, {"pcie_generation", 5}, {"pcie_width", 16}}
             : nlohmann::json{{"kind", "nvlink"},
                              {"nvlink_count", 18},
                              {"through_switch", actor + memory == 3}};
    pair.set(link);
    if (access) {
      pair.set(latency(host ? 1432.5 : 812.25, actor == 0 && memory == 1 ? 0.31 : 0.97));
      pair.set(measured(p2p_property::kSmRead, "bytes/second", host ? 4.61e10 : 3.702e11, 0.95));
      pair.set(measured(p2p_property::kSmWrite, "bytes/second", host ? 5.07e10 : 3.921e11, 0.95));
    } else {
      for (const char* name :
           {p2p_property::kLatency, p2p_property::kSmRead, p2p_property::kSmWrite}) {
        pair.set(
            unmeasured(name, "no peer access: the acting GPU's SMs cannot address this memory"));
      }
    }
    Property copy =
        measured(p2p_property::kCopyRead, "bytes/second", host ? 5.52e10 : 3.79e11, 0.9);
    if (!access) copy.note = "staged through the host: no peer access";
    pair.set(copy);
    pair.set(measured(p2p_property::kCopyWrite, "bytes/second", host ? 5.31e10 : 3.81e11, 0.9));
    report.pairs.push_back(pair);
  };
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      if (a != b) add(a, b);
    }
    add(a, kHostColumn);
  }
  for (const char* id :
       {"p2p.peer_access", "p2p.link", "p2p.latency", "p2p.sm_bandwidth", "p2p.copy_bandwidth"}) {
    report.probes.push_back({id, "ok", ""});
    report.phases.emplace_back(id, 0.125);
  }
  report.duration_seconds = 0.625;
  return report;
}

TEST(ConsoleP2p, MatricesMatchTheGoldenOutput) {
  testing::expect_matches_golden(render_p2p_console(sample_report(3)), "console_p2p_3gpus.txt");
}

TEST(ConsoleP2p, EightGpusFitIn120Columns) {
  std::istringstream lines(render_p2p_console(sample_report(8)));
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(display_width(line), 120u) << line;
}

}  // namespace
}  // namespace memtopo
