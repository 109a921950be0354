#pragma once
// l2.partitions, with l2.near_latency and l2.far_latency: one warm L2 chase from one SM answers
// in two modes when L2 lines live in partitions near and far from that SM.
#include <string>

#include "probes/core/probe.hpp"

namespace memtopo {

// One warm cg chase alone on one SM over a footprint well inside L2; its latencies split into a
// near and a far mode, and the near share (1 / partitions when lines spread evenly) gives the
// count.
class L2PartitionProbe : public Probe {
 public:
  std::string id() const override { return "l2.partitions"; }
  std::string description() const override;
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
