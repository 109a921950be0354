#pragma once
// Small helpers every probe uses to plan chases, read traces and write evidence.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/experiment.hpp"
#include "model/topology.hpp"
#include "model/units.hpp"  // format_bytes for messages

namespace memtopo {

// Per-access cycles as recorded, and minus the timing overhead the same kernel measured.
std::vector<double> raw_cycles(const Trace& trace);
std::vector<double> corrected_cycles(const Trace& trace);

// Loads a chase makes on the device: warm passes over the chain plus the timed loads, for
// every chaser. What the speed of a discovery is counted in.
std::uint64_t loads_of(const ChaseSpec& spec);

// `value` rounded down to a multiple of `step` (step > 0).
std::uint64_t round_down(std::uint64_t value, std::uint64_t step);
// The largest power of two not above `value` (value > 0).
std::uint64_t floor_power_of_two(std::uint64_t value);

// A spread as evidence JSON (p50, mean, stdev, p5, p95, min, max, samples).
nlohmann::json spread_evidence(const Spread& spread);

}  // namespace memtopo
