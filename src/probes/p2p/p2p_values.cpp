#include "probes/p2p/p2p_values.hpp"

#include <map>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/p2p.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/latency_modes.hpp"

namespace memtopo {
namespace {

// Repeated copies of hundreds of megabytes vary by less than a few percent when nothing else
// uses the link.
constexpr double kBandwidthBand = 0.05;
constexpr double kSecondsPerNs = 1e-9;

// Each SM's median ns by %smid, and their mean: the latency of an SM picked at random (what
// nvbandwidth's chase from each SM in turn, averaged, reports).
void add_per_sm_evidence(const RemoteChaseResult& result, std::uint32_t samples_per_sm,
                         nlohmann::json& evidence) {
  std::map<std::uint32_t, std::vector<double>> by_sm;
  for (std::size_t i = 0; i < result.sm_of_sample.size() && i < result.ns_per_load.size(); ++i) {
    by_sm[result.sm_of_sample[i]].push_back(result.ns_per_load[i]);
  }
  nlohmann::json per_sm = nlohmann::json::array();
  double sum = 0;
  for (const auto& [sm, ns] : by_sm) {
    const double p50 = median(ns);
    sum += p50;
    per_sm.push_back({sm, p50});
  }
  evidence["sms"] = by_sm.size();
  evidence["samples_per_sm"] = samples_per_sm;
  evidence["per_sm_ns"] = std::move(per_sm);  // [%smid, p50 ns] pairs
  if (!by_sm.empty()) evidence["mean_over_sms_ns"] = sum / static_cast<double>(by_sm.size());
}

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

// How every transfer is timed (backend/cuda/queued_timing.hpp).
constexpr const char* kQueuedTiming =
    "timed with CUDA events between repetitions queued back to back behind a stream blocker, "
    "after a one-pass warm-up";

std::string bandwidth_method(const TransferSpec& spec) {
  const bool read = spec.direction == TransferDirection::read;
  if (spec.engine == TransferEngine::sm && spec.read_shape != SmReadShape::registers) {
    const char* geometry = spec.read_shape == SmReadShape::actor_memory_deep
                               ? "one block of 512 threads per SM, 12 loads in flight per thread"
                               : "every SM";
    return std::string("the acting GPU's SMs copy 16-byte vectors from ") + memory_word(spec) +
           " into its own memory (" + geometry + ", a grid-stride loop, " + passes_word(spec) +
           " in one launch), " + kQueuedTiming;
  }
  if (spec.engine == TransferEngine::sm) {
    return std::string("the acting GPU's SMs ") +
           (read ? "load 16-byte vectors from " : "store 16-byte vectors to ") + memory_word(spec) +
           " (every SM, a grid-stride loop, " + passes_word(spec) +
           " in one launch), " + kQueuedTiming;
  }
  const bool host = spec.memory == kHostMemory;
  const char* call = host ? "cudaMemcpyAsync" : "cudaMemcpyPeerAsync";
  return std::string(call) + (read ? " from " : " to ") + memory_word(spec) +
         (read ? " into" : " from") + " the acting GPU's memory on its stream (" +
         copies_word(spec) + " back to back), " + kQueuedTiming;
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
      std::string(spec.every_sm ? "one thread on every SM of the acting GPU in turn"
                                : "one thread of the acting GPU") +
      " chases a random cyclic chain (" + std::to_string(spec.stride_bytes) + " B apart) over " +
      std::to_string(spec.footprint_bytes >> 20) + " MiB of " +
      (spec.memory == kHostMemory ? "host pinned" : "the peer GPU's") + " memory " +
      (one_page ? "(one 2 MiB page, as nvbandwidth's latency test chases; the timed loads find "
                  "the elements in the memory's L2 where it caches them)"
                : "(across pages, beyond both L2s)") +
      ", every load needing the previous one; cycles of the acting SM per load, ns by the "
      "global timer" +
      (spec.every_sm ? "; where the SMs fall into two modes (near and far SMs), the headline "
                       "is the near mode's, both modes with their shares"
                     : "");
  const LatencyDescription described = describe_latency(LatencyLoads{result.cycles_per_load, {}},
                                                        /*split_modes=*/spec.every_sm, "samples");
  set_latency(property, described, result.sm_clock_khz);
  const Spread ns = summarize(result.ns_per_load);
  if (!property.seconds_value) property.seconds_value = ns.p50 * kSecondsPerNs;
  property.evidence["ns"] = spread_json(ns);
  property.evidence["sm_clock_khz"] = result.sm_clock_khz;
  property.evidence["footprint_bytes"] = spec.footprint_bytes;
  property.evidence["stride_bytes"] = spec.stride_bytes;
  property.evidence["loads_per_sample"] = spec.loads_per_sample;
  property.evidence["warm_samples"] = 1;
  if (spec.every_sm) add_per_sm_evidence(result, spec.samples, property.evidence);
  set_confidence(property, described.confidence);
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
