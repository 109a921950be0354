#pragma once
// l2.segments and l2.segment_size: is the L2 one SM can fill (l2.size, measured from one SM) a
// segment of a larger L2, with SMs elsewhere filling segments of their own?
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

// Pairs of concurrent warm cg chases on two SMs, each over its own 3/4 of the one-SM L2 size:
// both keep hitting when the SMs fill different segments, and evict each other when they share
// one. With a conclusive l2.partition_map the pairs check it, and its partitions are the
// segments unless a pair contradicts them; otherwise SMs are grouped by whom they share with,
// and the count of groups is the segment count.
class L2SegmentsProbe : public Probe {
 public:
  std::string id() const override { return "l2.segments"; }
  std::string description() const override;
  std::vector<std::string> needs() const override { return {"l2.size"}; }
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
