#include "analysis/code_fetch_levels.hpp"

#include <algorithm>
#include <cmath>

namespace memtopo {
namespace {

bool is_ramp_level(const StaircaseLevel& level) {
  return std::log2(static_cast<double>(level.to_bytes) / static_cast<double>(level.from_bytes)) <
         kRampOctaves;
}

}  // namespace

StaircaseOptions code_fetch_staircase_options() {
  StaircaseOptions options;
  options.change_points.min_noise = kCodeFetchNoiseFloor;
  return options;
}

CodeFetchLevels analyze_code_fetch(std::span<const std::uint64_t> code_bytes,
                                   std::span<const std::vector<double>> cycles_per_instruction) {
  const StaircaseOptions options = code_fetch_staircase_options();
  CodeFetchLevels out;
  out.staircase = analyze_staircase(code_bytes, cycles_per_instruction, options);
  const Staircase& s = out.staircase;
  const double clear = options.clear_jump_sigmas * s.noise_sigma;
  for (std::size_t k = 0; k < s.steps.size();) {
    // Steps k..last, joined while the level between two of them is a ramp.
    std::size_t last = k;
    while (last + 1 < s.steps.size() && is_ramp_level(s.levels[last + 1])) ++last;
    const StaircaseLevel& before = s.levels[k];
    const StaircaseLevel& after = s.levels[last + 1];
    CodeFetchTransition t;
    t.size_bytes = s.steps[k].before_bytes;
    t.first_slower_bytes = s.steps[k].after_bytes;
    t.ramp_end_bytes = s.steps[last].after_bytes;
    t.cpi_before = before.latency;
    t.cpi_after = after.latency;
    t.steps = last - k + 1;
    t.significance = 1;
    for (std::size_t j = k; j <= last; ++j) {
      t.significance = std::min(t.significance, s.steps[j].significance);
    }
    const double jump = after.reduced - before.reduced;
    t.contrast = clear > 0 ? std::clamp(std::abs(jump) / clear, 0.0, 1.0) : 1.0;
    t.confidence = t.significance * t.contrast;
    t.ks_statistic = s.steps[k].ks.statistic;
    t.plateau_first = before.first;
    t.plateau_last = before.last;
    if (jump > 0) out.transitions.push_back(t);
    k = last + 1;
  }
  return out;
}

}  // namespace memtopo
