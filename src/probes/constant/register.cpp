// constant/'s probes: the constant caches' staircase row (L1 and L1.5 sizes and latencies),
// then their lines.
#include "probes/constant/constant_line_probe.hpp"
#include "probes/core/registry.hpp"
#include "probes/core/staircase_probe.hpp"

namespace memtopo {

void register_constant_probes(ProbeList& probes) {
  probes.push_back(staircase_probe("constant_l1.size"));
  probes.push_back(std::make_unique<ConstantLineProbe>());
}

}  // namespace memtopo
