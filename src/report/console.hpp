#pragma once
// The default report: what a person reads after a discovery. A view of the Topology only.
#include <ostream>
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// The banner that opens every report made on a simulated device.
std::string simulated_banner(const std::string& sim_file);

// Layout, top to bottom: the SIMULATED banner (simulated runs only), an INTERRUPTED line
// (interrupted runs only), the device header, the elements table (size, line, sector,
// latency, miss penalty, shared with, count per SM), notes for inconclusive cells,
// bandwidths, other findings, probes that did not complete, phase timings, warnings.
std::string render_console(const Topology& topology);

inline void write_console(std::ostream& out, const Topology& topology) {
  out << render_console(topology);
}

}  // namespace memtopo
