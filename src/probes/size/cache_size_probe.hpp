#pragma once
// One size probe for every cache: a table row names the element, the load path whose caching
// it measures and a path that skips it: L1 (ca), texture (tex) and read-only (nc) today; the
// constant caches become rows, not copies.
#include <string>
#include <utility>
#include <vector>

#include "backend/experiment.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

struct SizeTarget {
  std::string element;            // element id, e.g. "l1"; the probe id is "<element>.size"
  LoadPath path;                  // loads cached in the element under test
  LoadPath next_level_path;       // loads that skip it and are answered by the next level
  std::string next_level_name;    // for messages: "L2"
  std::string not_cached_reason;  // ProbeSkipped message when `path` is no faster than the next
  std::string description;        // one line for --list
  // Untimed passes before the timed ones: the passes a path needs to reach its steady state.
  std::uint32_t warm_passes = 1;
};

const std::vector<SizeTarget>& size_targets();

class CacheSizeProbe : public Probe {
 public:
  explicit CacheSizeProbe(SizeTarget target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".size"; }
  std::string description() const override { return target_.description; }
  void run(ProbeContext& ctx) override;

 private:
  SizeTarget target_;
};

}  // namespace memtopo
