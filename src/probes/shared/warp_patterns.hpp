#pragma once
// Runs bank patterns (analysis/banks.hpp) as warp accesses and summarises what each measured.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/banks.hpp"
#include "model/topology.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// One pattern's timed accesses: cycles minus the timing overhead, and their spreads.
struct MeasuredPattern {
  BankPattern pattern;
  Spread cycles;  // overhead-corrected
  Spread raw;     // as recorded
};

struct PatternRun {
  std::vector<MeasuredPattern> measured;  // in the order asked, less the left-out ones
  std::vector<std::string> left_out;      // patterns larger than the backend's shared memory
  double overhead_cycles = 0;             // mean over the patterns
  double clock_khz = 0;                   // mean; 0 when any pattern could not measure it
  std::uint32_t sm = 0;

  std::vector<BankPattern> patterns() const;
  std::vector<double> p50_cycles() const;
  // Timed accesses, overhead, clock, SM and left-out patterns, for a finding's evidence.
  nlohmann::json evidence(std::uint32_t timed_accesses) const;
};

// Runs every pattern of one warp (kWarpLanes offsets) that fits the backend's shared memory,
// `timed_accesses` recorded accesses each, in one batch; the others are left out. Throws
// ProbeSkipped when the backend runs no warp access or no pattern fits.
PatternRun run_patterns(ProbeContext& ctx, std::span<const BankPattern> patterns,
                        std::uint32_t timed_accesses);

}  // namespace memtopo
