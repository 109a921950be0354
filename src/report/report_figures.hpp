#pragma once
// The figures of the HTML and markdown reports in reading order (issue 36 item 2): the charts
// across levels first (latencies, their distributions, bandwidths), then each level's charts,
// L1 -> L2 -> DRAM -> TLB -> Hopper (the console's row order), the L2 partition map with the L2's.
#include <string>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

struct Figure {
  std::string id;  // stable: the anchor is "plot-" + id, the markdown's file id + ".svg"
  std::string title;
  std::string caption;
  std::string svg;
};

std::vector<Figure> report_figures(const Topology& topology);

}  // namespace memtopo
