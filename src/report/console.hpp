#pragma once
// The default report: what a person reads after a discovery. A view of the Topology only.
#include <ostream>
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// Elements in the order of the thesis' results tables (SM-level caches from the L1 outwards,
// then the device-wide levels, unknown ids last in the topology's order); every report uses it.
std::vector<const Element*> in_row_order(const std::vector<Element>& elements);

// The banner that opens every report made on a simulated device.
std::string simulated_banner(const std::string& sim_file);

// Layout, top to bottom: the SIMULATED banner (simulated runs only), an INTERRUPTED line
// (interrupted runs only), the device header, the elements table (size, line, sector,
// latency, miss penalty, shared with, count per SM) under a legend of its marks, bandwidths,
// the carveout table, other findings, the notes, probes that did not complete, phase
// timings, warnings. A value below kLowConfidence is marked "~ [n]" wherever it appears, its
// note listing the confidence factors weakest first; inconclusive values and bounds keep
// their "? [n]" and "> x [n]". Lines fit 120 columns unless one value alone is wider.
std::string render_console(const Topology& topology);

// A cell of the elements table: the value with its marks ("~ [n]", "? [n]", "≥ x [n]", "(api)"),
// "-" where the element has no such property. For the other compact tables.
std::string console_value_cell(const Element& element, const std::string& name, Footnotes& notes);

inline void write_console(std::ostream& out, const Topology& topology) {
  out << render_console(topology);
}

}  // namespace memtopo
