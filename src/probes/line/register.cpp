// line/'s probes: sector, then line, of every cache of the line table (the device-wide line
// needs l2.size, so needs() runs it after the L2's staircase).
#include "probes/core/registry.hpp"
#include "probes/line/line_probe.hpp"

namespace memtopo {

void register_line_probes(ProbeList& probes) {
  for (const auto& target : line_targets()) {
    probes.push_back(std::make_unique<LineProbe>(target, LineQuestion::sector));
    probes.push_back(std::make_unique<LineProbe>(target, LineQuestion::line));
  }
}

}  // namespace memtopo
