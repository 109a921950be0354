// hopper/'s probes, in the order their table lists them.
#include "probes/core/registry.hpp"
#include "probes/hopper/hopper_probe.hpp"

namespace memtopo {

void register_hopper_probes(ProbeList& probes) {
  for (auto& probe : hopper_probes()) probes.push_back(std::move(probe));
}

}  // namespace memtopo
