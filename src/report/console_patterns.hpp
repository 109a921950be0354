#pragma once
// The console's latency-pattern section (dram.latency_patterns, paper 000 Table 3): one row per
// combination of data level and TLB levels hit or missed, with its p50, its spread and the chase
// that produced it; combinations that could not be reached say why.
#include <cstddef>
#include <string>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// The section, starting with a blank line and its title, fitted to `max_width` columns; empty
// when there is no dram.latency_patterns. An inconclusive table gets a numbered note.
std::string render_latency_patterns_section(const Topology& topology, Footnotes& notes,
                                            std::size_t max_width);

}  // namespace memtopo
