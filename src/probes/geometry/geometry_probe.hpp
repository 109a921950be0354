#pragma once
// Cache geometry and replacement policy (`<element>.ways`, `.sets`, `.set_bits`, `.policy`), one
// implementation for every cache through a table row, like the size probe: the SM caches (l1,
// tex, ro) and the device-wide L2.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/experiment.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

struct GeometryTarget {
  std::string element;  // element id, e.g. "l1"
  LoadPath path;        // loads cached in the element under test
  // Loads that skip it, for a hit/miss threshold of its own. None where no path skips only this
  // cache (L2, the constant L1): the threshold is then the size staircase's, and the policy's
  // scan test judges by it too.
  std::optional<LoadPath> next_level_path;
  // A cache every SM shares (L2): each chase runs alone (a batch of one), since concurrent
  // chases would share the cache under test; the ways come from one chase past the size (see
  // ways_and_sets_device_wide) and need a measured line (a line search would chase the whole
  // cache a dozen more times).
  bool device_wide = false;
};

const std::vector<GeometryTarget>& geometry_targets();

// What one probe of the family writes.
enum class GeometryAspect { ways, sets, set_bits, policy };

class GeometryProbe : public Probe {
 public:
  GeometryProbe(GeometryTarget target, GeometryAspect aspect)
      : target_(std::move(target)), aspect_(aspect) {}
  std::string id() const override;
  std::string description() const override;
  std::vector<std::string> needs() const override;
  void run(ProbeContext& ctx) override;

 private:
  GeometryTarget target_;
  GeometryAspect aspect_;
};

// Every geometry probe of every target, in run order (ways, sets, set_bits, policy).
std::vector<std::unique_ptr<Probe>> geometry_probes();

}  // namespace memtopo
