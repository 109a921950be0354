#pragma once
// The sample topology (sample_topology.hpp) with the curves the HTML and markdown reports
// draw: an L2 size staircase with two change points (one of low confidence), an L1 size search,
// the shared-memory bank patterns and L2 segment pairs. Fixed values, so reports reproduce.
#include "model/topology.hpp"

namespace memtopo::testing {

Topology make_report_topology();

}  // namespace memtopo::testing
