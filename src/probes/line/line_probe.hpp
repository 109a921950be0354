#pragma once
// Line size and sector (fetch granularity) of a cache, told apart: one implementation for every
// cache through a table row, like the size probe. Each row gives two probes:
//   <element>.sector: the spacing of misses in a 4-byte-stride chase beyond the size;
//   <element>.line:   the capacity in elements at strides around the line (size searches run
//                     concurrently on different SMs): line = size / capacity beyond the line.
// Rows: l1, tex, ro (SM-local, as above) and l2 (device-wide: every chase alone, sector from a
// cold chase, see l2_line_probe.hpp).
#include <string>
#include <utility>
#include <vector>

#include "backend/experiment.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

struct LineTarget {
  std::string element;          // element id, e.g. "l1"
  LoadPath path;                // loads cached in the element under test
  LoadPath next_level_path;     // loads that skip it (baseline for the fit rule)
  std::string next_level_name;  // for messages: "L2"
  std::string not_cached_reason;
  std::string sector_description;  // one line for --list
  std::string line_description;
  // A device-wide cache (L2): its chases run alone, its sector comes from a cold chase after a
  // flush, and it has no size probe of its own to plan a capacity search from.
  bool device_wide = false;
};

const std::vector<LineTarget>& line_targets();

enum class LineQuestion { sector, line };

class LineProbe : public Probe {
 public:
  LineProbe(LineTarget target, LineQuestion question)
      : target_(std::move(target)), question_(question) {}
  std::string id() const override;
  std::string description() const override;
  std::vector<std::string> needs() const override;
  void run(ProbeContext& ctx) override;

 private:
  LineTarget target_;
  LineQuestion question_;
};

}  // namespace memtopo
