#pragma once
// The console's bandwidth section: one row per level with its read, write and copy bandwidth,
// bytes per SM per cycle, the share of the API's peak, the confidence and the read's launch.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// Properties this section shows (so that "Other findings" does not repeat them).
bool is_bandwidth_property(const std::string& name);

// The section, starting with a blank line and its title; empty when no level has a bandwidth.
std::string render_bandwidth_section(const Topology& topology);

}  // namespace memtopo
