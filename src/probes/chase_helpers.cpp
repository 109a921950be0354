#include "probes/chase_helpers.hpp"

#include <bit>
#include <cstdio>

namespace memtopo {

std::vector<double> raw_cycles(const Trace& trace) {
  return std::vector<double>(trace.cycles.begin(), trace.cycles.end());
}

std::vector<double> corrected_cycles(const Trace& trace) {
  std::vector<double> out;
  out.reserve(trace.cycles.size());
  for (auto c : trace.cycles) out.push_back(static_cast<double>(c) - trace.overhead_cycles);
  return out;
}

std::uint64_t loads_of(const ChaseSpec& spec) {
  return (std::uint64_t{spec.warm_passes} * chain_length(spec) + spec.timed_loads) * spec.chasers;
}

std::uint64_t round_down(std::uint64_t value, std::uint64_t step) {
  return value / step * step;
}

std::uint64_t floor_power_of_two(std::uint64_t value) {
  return std::bit_floor(value);
}

nlohmann::json spread_evidence(const Spread& s) {
  return {{"p50", s.p50}, {"mean", s.mean}, {"stdev", s.stdev}, {"p5", s.p5},
          {"p95", s.p95}, {"min", s.min},   {"max", s.max},     {"samples", s.samples}};
}

}  // namespace memtopo
