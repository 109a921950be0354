#pragma once
// <element>.bandwidth for every level in bandwidth_targets(): one implementation over the table.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "probes/bandwidth/bandwidth_targets.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

class BandwidthProbe : public Probe {
 public:
  explicit BandwidthProbe(BandwidthTarget target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".bandwidth"; }
  std::string description() const override { return target_.description; }
  std::vector<std::string> needs() const override { return target_.needs; }
  void run(ProbeContext& ctx) override;

 private:
  BandwidthTarget target_;
};

// One probe per row of bandwidth_targets(), in table order.
std::vector<std::unique_ptr<Probe>> bandwidth_probes();

}  // namespace memtopo
