#pragma once
// The console's bandwidth section: one row per level with its read, write and copy bandwidth,
// bytes per SM per cycle, the share of the API's peak, the confidence and the read's launch.
#include <cstddef>
#include <string>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// Properties this section shows (so that "Other findings" does not repeat them).
bool is_bandwidth_property(const std::string& name);

// The section, starting with a blank line and its title, fitted to `max_width` columns; empty
// when no level has a bandwidth. Inconclusive figures and low confidences get numbered notes.
std::string render_bandwidth_section(const Topology& topology, Footnotes& notes,
                                     std::size_t max_width);

}  // namespace memtopo
