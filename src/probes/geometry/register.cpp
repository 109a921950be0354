// geometry/'s probes, in the order their table lists them.
#include "probes/core/registry.hpp"
#include "probes/geometry/geometry_probe.hpp"

namespace memtopo {

void register_geometry_probes(ProbeList& probes) {
  for (auto& probe : geometry_probes()) probes.push_back(std::move(probe));
}

}  // namespace memtopo
