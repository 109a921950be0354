#pragma once
// dram.latency_patterns: the global-memory latency of every reachable combination of where the
// data is (L1, L2, DRAM) and how far the translation goes (each TLB level hit or missed), one
// chase designed per combination (paper 000, 4.1 and Table 3). Planned from the TLB levels'
// entries and pages, the L1 and L2 sizes. docs/method.md, "Latency patterns".
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

class LatencyPatternsProbe final : public Probe {
 public:
  std::string id() const override { return "dram.latency_patterns"; }
  std::string description() const override {
    return "global-memory latency of every reachable L1 / L2 / TLB-level hit-miss combination";
  }
  std::vector<std::string> needs() const override {
    return {"tlb_l1.reach", "l1.size", "l1.line", "l2.size"};
  }
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
