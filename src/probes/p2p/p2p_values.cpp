#include "probes/p2p/p2p_values.hpp"

#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/p2p.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// A remote latency is one level (link plus remote DRAM): its samples should sit within 10 % of
// their median, as a single cache level's do.
constexpr double kLatencyBand = 0.10;
// Repeated copies of hundreds of megabytes vary by less than a few percent when nothing else
// uses the link.
constexpr double kBandwidthBand = 0.05;
constexpr double kSecondsPerNs = 1e-9;

nlohmann::json spread_json(const Spread& spread) {
  return {{"p50", spread.p50}, {"mean", spread.mean},      {"stdev", spread.stdev},
          {"p5", spread.p5},   {"p95", spread.p95},        {"min", spread.min},
          {"max", spread.max}, {"samples", spread.samples}};
}

const char* memory_word(const TransferSpec& spec) {
  return spec.memory == kHostMemory ? "the host's pinned memory" : "the peer GPU's memory";
}

std::string passes_word(const TransferSpec& spec) {
  return spec.passes == 1 ? "one pass" : std::to_string(spec.passes) + " passes";
}

std::string copies_word(const TransferSpec& spec) {
  return spec.passes == 1 ? "one copy" : std::to_string(spec.passes) + " copies";
}

std::string bandwidth_method(const TransferSpec& spec) {
  const bool read = spec.direction == TransferDirection::read;
  if (spec.engine == TransferEngine::sm && spec.read_shape == SmReadShape::actor_memory) {
    return std::string("the acting GPU's SMs copy 16-byte vectors from ") + memory_word(spec) +
           " into its own memory (every SM, a grid-stride loop, " + passes_word(spec) +
           " in one launch), timed with CUDA events";
  }
  if (spec.engine == TransferEngine::sm) {
    return std::string("the acting GPU's SMs ") +
           (read ? "load 16-byte vectors from " : "store 16-byte vectors to ") + memory_word(spec) +
           " (every SM, a grid-stride loop, " + passes_word(spec) +
           " in one launch), timed with CUDA events";
  }
  const bool host = spec.memory == kHostMemory;
  const char* call = host ? "cudaMemcpyAsync" : "cudaMemcpyPeerAsync";
  return std::string(call) + (read ? " from " : " to ") + memory_word(spec) +
         (read ? " into" : " from") + " the acting GPU's memory on its stream (" +
         copies_word(spec) + " back to back), timed with CUDA events";
}

}  // namespace

std::string link_text(const PeerLink& link) {
  switch (link.kind) {
    case LinkKind::nvlink: {
      std::string text = "NVLink x" + std::to_string(link.nvlink_count);
      if (link.nvlink_version > 0) text += " (v" + std::to_string(link.nvlink_version) + ")";
      if (link.through_switch) text += " via NVSwitch";
      return text;
    }
    case LinkKind::pcie: {
      std::string text = "PCIe";
      if (link.pcie_generation > 0) text += " gen" + std::to_string(link.pcie_generation);
      if (link.pcie_width > 0) text += " x" + std::to_string(link.pcie_width);
      if (!link.pcie_path.empty()) text += " (" + link.pcie_path + ")";
      return text;
    }
    case LinkKind::none:
      return "none";
    case LinkKind::unknown:
      return "unknown";
  }
  return "unknown";
}

Property peer_access_property(bool accessible, bool host, std::string_view backend_kind) {
  Property property;
  property.name = p2p_property::kPeerAccess;
  property.value = accessible;
  property.source = Source::api;
  if (backend_kind == "sim") {
    property.method = "the simulated description's multi_gpu links (peer_access)";
  } else {
    property.method = host ? "cudaDevAttrCanMapHostMemory: SMs load mapped pinned memory"
                           : "cudaDeviceCanAccessPeer";
  }
  return property;
}

Property link_property(const PeerLink& link, bool host, std::string_view backend_kind) {
  Property property;
  property.name = p2p_property::kLink;
  property.value = link_text(link);
  property.source = Source::api;
  if (backend_kind == "sim") {
    property.method = "the simulated description's multi_gpu links";
  } else {
    property.method = host ? "NVML: current PCIe link generation and width"
                           : "NVML: active NVLinks whose remote PCI device is the peer, their "
                             "version; else the PCIe path (common ancestor)";
  }
  property.evidence = {{"kind", to_string(link.kind)},
                       {"nvlink_count", link.nvlink_count},
                       {"nvlink_version", link.nvlink_version},
                       {"through_switch", link.through_switch},
                       {"pcie_generation", link.pcie_generation},
                       {"pcie_width", link.pcie_width}};
  if (!link.pcie_path.empty()) property.evidence["pcie_path"] = link.pcie_path;
  if (!link.note.empty()) property.note = link.note;
  return property;
}

Property latency_property(const std::string& name, const RemoteChaseSpec& spec,
                          const RemoteChaseResult& result) {
  Property property;
  property.name = name;
  property.unit = "cycles";
  property.source = Source::measured;
  const bool one_page = name == p2p_property::kLatencyOnePage;
  property.method =
      "one thread of the acting GPU chases a random cyclic chain (" +
      std::to_string(spec.stride_bytes) + " B apart) over " +
      std::to_string(spec.footprint_bytes >> 20) + " MiB of " +
      (spec.memory == kHostMemory ? "host pinned" : "the peer GPU's") + " memory " +
      (one_page ? "(one 2 MiB page, as nvbandwidth's latency test chases; the warm group visits "
                  "every element, so the timed loads find them in the memory's L2 where it "
                  "caches them)"
                : "(across pages, beyond both L2s)") +
      ", every load needing the previous one; cycles of the acting SM per load, ns by the "
      "global timer";
  const Spread cycles = summarize(result.cycles_per_load);
  const Spread ns = summarize(result.ns_per_load);
  property.value = cycles.p50;
  property.spread = cycles;
  property.seconds_value = ns.p50 * kSecondsPerNs;
  property.evidence = {{"ns", spread_json(ns)},
                       {"sm_clock_khz", result.sm_clock_khz},
                       {"footprint_bytes", spec.footprint_bytes},
                       {"stride_bytes", spec.stride_bytes},
                       {"loads_per_sample", spec.loads_per_sample},
                       {"warm_samples", 1}};
  set_confidence(property, Confidence{share_within(result.cycles_per_load, cycles.p50, kLatencyBand,
                                                   "samples within 10 % of p50")});
  return property;
}

Property bandwidth_property(const std::string& name, const TransferSpec& spec,
                            const TransferResult& result, double sizing_rate) {
  std::vector<double> rates;
  for (const double seconds : result.seconds) {
    if (seconds > 0) rates.push_back(static_cast<double>(result.bytes) / seconds);
  }
  if (rates.empty()) {
    return inconclusive_property(name, "bytes/second", bandwidth_method(spec),
                                 "no repetition took a measurable time");
  }
  Property property;
  property.name = name;
  property.unit = "bytes/second";
  property.source = Source::measured;
  property.method = bandwidth_method(spec);
  const Spread spread = summarize(rates);
  property.value = spread.p50;
  property.spread = spread;
  property.evidence = {{"bytes_per_repetition", result.bytes},
                       {"buffer_bytes", spec.bytes},
                       {"passes", spec.passes},
                       {"sizing_rate", sizing_rate},
                       {"repetitions", spec.repetitions},
                       {"warmups", spec.warmups},
                       {"engine", to_string(spec.engine)},
                       {"direction", to_string(spec.direction)}};
  if (spec.engine == TransferEngine::sm && spec.direction == TransferDirection::read) {
    property.evidence["read_shape"] = to_string(spec.read_shape);
  }
  if (!result.note.empty()) property.note = result.note;
  set_confidence(property,
                 Confidence{share_within(rates, spread.p50, kBandwidthBand, "repetitions")});
  return property;
}

}  // namespace memtopo
