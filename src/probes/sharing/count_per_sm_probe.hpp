#pragma once
// <element>.count_per_sm (thesis 004, 4.6): how many instances of an SM-local cache one SM has.
// k warps of one block chase concurrently, each through a private segment of a good fraction
// of the element's measured size. While every warp has an instance to itself, all of them hit;
// the first k at which two warps share an instance makes them evict each other. The largest k
// whose chasers all hit is the instance count. One implementation for every row of
// sm_cache_elements().
#include <string>
#include <vector>

#include "probes/core/probe.hpp"
#include "probes/core/sm_caches.hpp"

namespace memtopo {

class CountPerSmProbe : public Probe {
 public:
  explicit CountPerSmProbe(SmCacheElement target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".count_per_sm"; }
  std::string description() const override;
  std::vector<std::string> needs() const override;
  void run(ProbeContext& ctx) override;

 private:
  SmCacheElement target_;
};

// One CountPerSmProbe per row of sm_cache_elements().
std::vector<std::unique_ptr<Probe>> count_per_sm_probes();

}  // namespace memtopo
