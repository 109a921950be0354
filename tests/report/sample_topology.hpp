#pragma once
// A small hand-built Topology that exercises every reporter feature: measured values with
// spreads, API values, an inconclusive bound, lists, bandwidth, other properties, skipped and
// failed probes, phase clocks and warnings. Fixed values only, so reports are reproducible.
#include "model/topology.hpp"

namespace memtopo::testing {

Topology make_sample_topology();

// The same device measured on real hardware: no simulated banner.
Topology make_hardware_topology();

}  // namespace memtopo::testing
