// sharing/'s probes, in the order their table lists them.
#include "probes/core/registry.hpp"
#include "probes/sharing/carveout_probe.hpp"
#include "probes/sharing/count_per_sm_probe.hpp"
#include "probes/sharing/sharing_probe.hpp"

namespace memtopo {

void register_sharing_probes(ProbeList& probes) {
  for (auto& probe : sharing_probes()) probes.push_back(std::move(probe));
  for (auto& probe : count_per_sm_probes()) probes.push_back(std::move(probe));
  probes.push_back(std::make_unique<CarveoutProbe>());
}

}  // namespace memtopo
