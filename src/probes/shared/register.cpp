// shared/'s probes, in the order their table lists them.
#include "probes/core/registry.hpp"
#include "probes/shared/bank_probe.hpp"

namespace memtopo {

void register_shared_probes(ProbeList& probes) {
  for (auto& probe : bank_probes()) probes.push_back(std::move(probe));
}

}  // namespace memtopo
