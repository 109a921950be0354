#pragma once
// The charts of the HTML and markdown reports, built from a Topology alone (so that a saved
// run's JSON renders the same as the run itself): every size staircase (latency against
// footprint, with its change points and their KS tests), every size search (slow loads against
// footprint), every bandwidth sweep (bandwidth against footprint, with its knees), the latency
// distributions, the L1 carveout, the L2 segment pairs, the bandwidths
// and the shared-memory bank-conflict curve. A chart whose evidence is missing is left out.
#include <vector>

#include "model/topology.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {

std::vector<Plot> report_plots(const Topology& topology);

// `text` with every character other than a letter or digit replaced by '-': ids and file names.
std::string plot_id(const std::string& text);

}  // namespace memtopo
