// add_api_facts (declared in runner.hpp): device facts that belong to memory elements, shown
// beside the measured values as `source: api`.
#include <cstdint>
#include <string>

#include "probes/core/elements.hpp"
#include "probes/core/runner.hpp"

namespace memtopo {

void add_api_facts(Topology& topology) {
  const DeviceFacts& device = topology.device;
  const std::string method =
      device.backend == "sim" ? "simulated description" : "cudaGetDeviceProperties";
  const auto add = [&](const std::string& element, const std::string& name, std::uint64_t bytes) {
    if (bytes == 0) return;  // the API did not say
    Element& e = element_for(topology, element);
    // A measurement is never replaced by an API value.
    if (const Property* existing = e.find(name); existing && existing->source != Source::api) {
      return;
    }
    Property p;
    p.name = name;
    p.value = bytes;
    p.unit = "bytes";
    p.source = Source::api;
    p.method = method;
    e.set(std::move(p));
  };
  add("l2", "size", device.l2_bytes);
  add("l2", "persisting_max", device.persisting_l2_max_bytes);
  add("shared", "size", device.shared_per_sm_bytes);
  add("shared", "size_per_block", device.shared_per_block_bytes);
  add("shared", "size_per_block_optin", device.shared_per_block_optin_bytes);
  add("dram", "size", device.global_memory_bytes);
  add("constant", "size", device.constant_bytes);
}

}  // namespace memtopo
