#pragma once
// Miss penalty of a cache (`<element>.miss_penalty`, cycles, source derived): what a miss costs
// over a hit, the latency of the level that answers the miss minus the element's own hit
// latency, both as measured by the latency probes (thesis 004, results tables). No chase of its
// own: a table row names the element and the level behind it.
#include <string>
#include <utility>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

struct MissPenaltyTarget {
  std::string element;     // e.g. "l1"
  std::string next_level;  // element that answers its misses, e.g. "l2"
  std::string description;
};

const std::vector<MissPenaltyTarget>& miss_penalty_targets();

class MissPenaltyProbe : public Probe {
 public:
  explicit MissPenaltyProbe(MissPenaltyTarget target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".miss_penalty"; }
  std::string description() const override { return target_.description; }
  std::vector<std::string> needs() const override {
    return {target_.element + ".latency", target_.next_level + ".latency"};
  }
  void run(ProbeContext& ctx) override;

 private:
  MissPenaltyTarget target_;
};

// The difference of two latency spreads (next level minus hit), for a derived penalty: p50 and
// mean subtract; p5 and min pair the next level's low end with the hit's high end (and p95, max
// the other way round), so the interval holds the difference of any two typical loads; the
// standard deviations add in quadrature (independent samples); samples = the smaller count.
Spread difference_spread(const Spread& next_level, const Spread& hit);

}  // namespace memtopo
