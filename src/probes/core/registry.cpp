// registered_probes, and all_probes (declared in probe.hpp): every folder's probes, in the
// order needs() derives.
#include "probes/core/registry.hpp"

namespace memtopo {

ProbeList registered_probes() {
  ProbeList probes;
  for (auto* register_folder :
       {register_size_probes, register_line_probes, register_latency_probes,
        register_constant_probes, register_l2_probes, register_geometry_probes,
        register_sharing_probes, register_bandwidth_probes, register_shared_probes,
        register_hopper_probes, register_tlb_probes, register_dram_probes}) {
    register_folder(probes);
  }
  return probes;
}

std::vector<std::unique_ptr<Probe>> all_probes() { return run_order(registered_probes()); }

}  // namespace memtopo
