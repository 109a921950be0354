#pragma once
// Hopper's additions (thesis 004, 6.2 and 6.3), each from experiments of its own
// (backend/hopper_experiments.hpp), all selected by `--only hopper`:
//   dsmem.latency      own and remote shared memory in clusters of 2..16, with placement;
//                      also dsmem.latency_remote, dsmem.max_cluster_size, dsmem.placement
//   dsmem.bandwidth    every block streaming its neighbour's or its own shared memory
//   tma.latency        one tile copied global -> shared: 1D bulk, 2D tensor, plain loads
//   tma.bandwidth      the same copies with one block per SM
//   icache_l0.size     instruction caches from straight-line code of growing size (also
//                      icache_l1, icache_l15 by the order their steps appear)
// A backend without the experiments (the simulated device) or a device before compute
// capability 9.0 skips them with the reason.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/hopper_experiments.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// The group `--only` selects all of them by.
inline constexpr const char* kHopperGroup = "hopper";

class HopperProbe : public Probe {
 public:
  std::vector<std::string> groups() const override { return {kHopperGroup}; }

 protected:
  // The backend's experiments; throws ProbeSkipped with why there are none (`what`: "thread-
  // block clusters", "TMA", "instruction caches").
  static HopperExperiments& require_experiments(ProbeContext& ctx, const std::string& what);
};

// Every Hopper probe, in run order.
std::vector<std::unique_ptr<Probe>> hopper_probes();

// A measured property: the p50 of `samples` with their spread, and the confidence that the p50
// describes them (share_within 10 %) times `extra` factors.
Property measured_property(const std::string& name, const std::string& unit,
                           const std::string& method, std::span<const double> samples);

// The share of samples within this of their p50 counts as described by it.
inline constexpr double kDescribedWithin = 0.1;

}  // namespace memtopo
