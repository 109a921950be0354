// size/'s probes: the size search of every SM-local cache.
#include "probes/core/registry.hpp"
#include "probes/size/cache_size_probe.hpp"

namespace memtopo {

void register_size_probes(ProbeList& probes) {
  for (const auto& target : size_targets())
    probes.push_back(std::make_unique<CacheSizeProbe>(target));
}

}  // namespace memtopo
