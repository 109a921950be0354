#pragma once
// Line sizes of the constant caches (`constant_l1.line`, `constant_l15.line`) from one cold
// sequential ld.const chase at a 4-byte stride: the first load of every constant L1 line misses
// L1, the first load of every L1.5 line misses L1.5 too, so the spacing of the accesses slower
// than each level gives that level's line (the fetch-granularity analysis of analysis/linesize).
// The levels' latencies come from the constant staircase (`constant_l1.size`).
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

class ConstantLineProbe : public Probe {
 public:
  std::string id() const override { return "constant_l1.line"; }
  std::string description() const override;
  // The staircase's sizes plan the footprint and its latencies set the thresholds.
  std::vector<std::string> needs() const override { return {"constant_l1.size"}; }
  std::vector<std::string> also_writes() const override { return {"constant_l15"}; }
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
