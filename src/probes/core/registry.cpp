// all_probes (declared in probe.hpp): every probe, in a valid run order.
#include <memory>
#include <vector>

#include "probes/bandwidth/bandwidth_probe.hpp"
#include "probes/shared/bank_probe.hpp"
#include "probes/core/probe.hpp"
#include "probes/geometry/geometry_probe.hpp"
#include "probes/hopper/hopper_probe.hpp"
#include "probes/l2/l2_partition_map_probe.hpp"
#include "probes/l2/l2_partitions_probe.hpp"
#include "probes/l2/l2_segments_probe.hpp"
#include "probes/latency/latency_probe.hpp"
#include "probes/latency/miss_penalty_probe.hpp"
#include "probes/constant/constant_line_probe.hpp"
#include "probes/line/line_probe.hpp"
#include "probes/dram/latency_patterns_probe.hpp"
#include "probes/sharing/carveout_probe.hpp"
#include "probes/sharing/count_per_sm_probe.hpp"
#include "probes/sharing/sharing_probe.hpp"
#include "probes/size/cache_size_probe.hpp"
#include "probes/core/staircase_probe.hpp"

namespace memtopo {

std::vector<std::unique_ptr<Probe>> all_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  // Sizes first: latency footprints are planned from them (l1.latency inside l1.size,
  // l2.latency beyond it).
  for (const auto& target : size_targets())
    probes.push_back(std::make_unique<CacheSizeProbe>(target));
  // Sector, then line, after the size they are planned from.
  for (const auto& target : line_targets()) {
    probes.push_back(std::make_unique<LineProbe>(target, LineQuestion::sector));
    // A device-wide line is planned from the staircase's size: it follows the staircases.
    if (!target.device_wide)
      probes.push_back(std::make_unique<LineProbe>(target, LineQuestion::line));
  }
  for (const auto& target : latency_targets())
    probes.push_back(std::make_unique<LatencyProbe>(target));
  for (const auto& t : miss_penalty_targets())
    probes.push_back(std::make_unique<MissPenaltyProbe>(t));
  std::unique_ptr<Probe> tlb;
  for (auto& p : staircase_probes()) {
    const bool l2_size = p->id() == "l2.size";
    if (p->id() == "tlb_l1.reach") {
      tlb = std::move(p);
      continue;
    }
    probes.push_back(std::move(p));
    // Beside the other L2 questions, though it needs no l2.size.
    if (l2_size) {
      probes.push_back(std::make_unique<L2PartitionProbe>());
      probes.push_back(std::make_unique<L2PartitionMapProbe>());  // replaces what it confirms
    }
  }
  for (const auto& target : line_targets()) {  // needs l2.size (a staircase)
    if (target.device_wide)
      probes.push_back(std::make_unique<LineProbe>(target, LineQuestion::line));
  }
  probes.push_back(std::make_unique<ConstantLineProbe>());  // needs constant_l1.size
  probes.push_back(std::make_unique<L2SegmentsProbe>());    // needs l2.size
  // Geometry after the sizes it is planned from (and after the latencies, whose chases it
  // would otherwise precede): ways, sets, set_bits, policy per element.
  for (auto& probe : geometry_probes()) probes.push_back(std::move(probe));
  for (auto& probe : sharing_probes()) probes.push_back(std::move(probe));  // after every size
  for (auto& probe : count_per_sm_probes()) probes.push_back(std::move(probe));
  probes.push_back(std::make_unique<CarveoutProbe>());  // after l1.size and l1.line
  for (auto& probe : bandwidth_probes()) probes.push_back(std::move(probe));  // after the sizes
  // Shared-memory banks: warp accesses of their own, needing nothing measured before; after the
  // chase probes, so that they leave every earlier probe's experiments as they were.
  for (auto& probe : bank_probes()) probes.push_back(std::move(probe));
  // Hopper's clusters, TMA and instruction caches: experiments of their own, no chases (a
  // simulated device skips them), before the TLB row for the same reason as the banks.
  for (auto& probe : hopper_probes()) probes.push_back(std::move(probe));
  // The TLB row last: its chains take up to most of device memory (no other probe runs beside
  // them), and on a simulated device, whose noise is drawn chase by chase in run order, its
  // chases come after every other probe's: a change to the TLB chases changes no other finding.
  probes.push_back(std::move(tlb));
  probes.push_back(std::make_unique<LatencyPatternsProbe>());  // planned from the TLB levels
  return probes;
}

}  // namespace memtopo
