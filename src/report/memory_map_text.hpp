#pragma once
// What a box of the memory map says about a property: its value in its unit, both modes of a
// two-mode latency ("542 / 730 cy"), "?" when inconclusive, "≥ x" / "≤ x" for a bound, "(api)"
// for a value CUDA reported, and whether its confidence is low. The console's rules
// (console.cpp decorate), shortened to fit a box.
#include <optional>
#include <string>

#include "model/topology.hpp"
#include "report/memory_map.hpp"

namespace memtopo {

// `prefix` + the property's value as the map shows it: "line 128 B", "~ 14.3 TB/s".
MapText map_text(const Property& property, const std::string& prefix = "");

// The same for element.name; nullopt when the element has no such property.
std::optional<MapText> map_text(const Element& element, const std::string& name,
                                const std::string& prefix = "");

}  // namespace memtopo
