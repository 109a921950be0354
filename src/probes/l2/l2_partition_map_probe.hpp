#pragma once
// l2.partition_map, with l2.partitions, l2.near_latency and l2.far_latency from the same
// experiment: which L2 partition is near each SM, from cross-SM first touches
// (backend/l2_first_touch.hpp, analysis/partition_map.hpp). Runs after l2.partitions (one SM's
// own chase) and replaces its findings when the map is conclusive: on Hopper a line an SM brought
// in itself answers near, so that chase sees no far mode.
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

class L2PartitionMapProbe : public Probe {
 public:
  std::string id() const override { return "l2.partition_map"; }
  std::string description() const override;
  std::vector<std::string> needs() const override { return {"l2.partitions"}; }
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
