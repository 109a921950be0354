// all_probes (declared in probe.hpp): every probe, in a valid run order.
#include <memory>
#include <vector>

#include "probes/cache_size_probe.hpp"
#include "probes/latency_probe.hpp"
#include "probes/probe.hpp"

namespace memtopo {

std::vector<std::unique_ptr<Probe>> all_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  // Sizes first: latency footprints are planned from them (l1.latency inside l1.size,
  // l2.latency beyond it).
  for (const auto& target : size_targets())
    probes.push_back(std::make_unique<CacheSizeProbe>(target));
  for (const auto& target : latency_targets())
    probes.push_back(std::make_unique<LatencyProbe>(target));
  return probes;
}

}  // namespace memtopo
