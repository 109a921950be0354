#pragma once
// l2.partition_map as a picture: one cell per SM, in rows of 16 by SM id, coloured by the
// partition near it (grey with "?" when unclear), with a legend.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// The SVG, or "" when the property has no map (inconclusive, or no SMs).
std::string render_partition_map_svg(const Property& map);

}  // namespace memtopo
