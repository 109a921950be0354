// bandwidth/'s probes, in the order their table lists them.
#include "probes/bandwidth/bandwidth_probe.hpp"
#include "probes/core/registry.hpp"

namespace memtopo {

void register_bandwidth_probes(ProbeList& probes) {
  for (auto& probe : bandwidth_probes()) probes.push_back(std::move(probe));
}

}  // namespace memtopo
