#pragma once
// A small hand-built Topology that exercises every reporter feature: measured values with
// spreads, API values, an inconclusive bound, lists, bandwidth, other properties, skipped and
// failed probes, phase clocks and warnings. Fixed values only, so reports are reproducible.
#include <optional>
#include <string>

#include "model/topology.hpp"

namespace memtopo::testing {

Topology make_sample_topology();

// The same device measured on real hardware: no simulated banner.
Topology make_hardware_topology();

// A measured property with a value, a unit and a confidence (unset: none), for tests that build
// their own elements.
Property measured_property(const std::string& name, nlohmann::json value, const std::string& unit,
                           std::optional<double> confidence,
                           const std::string& method = "a test method");

}  // namespace memtopo::testing
