#include "analysis/mode_evidence.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "analysis/stats.hpp"
#include "analysis/valley_split.hpp"

namespace memtopo {
namespace {

// Whether `part` shows the mode on side `slow` of the whole split again: enough of its samples
// on that side, their p50 near the whole mode's.
bool shows_mode(std::span<const double> part, const ModeSplit& whole, bool slow,
                const ModeRepeatOptions& options) {
  std::vector<double> side;
  for (const double x : part) {
    if ((x > whole.threshold) == slow) side.push_back(x);
  }
  if (side.empty() ||
      static_cast<double>(side.size()) < options.min_share * static_cast<double>(part.size())) {
    return false;
  }
  const double reference = slow ? whole.slow.p50 : whole.fast.p50;
  return std::abs(median(side) - reference) <= options.value_band * std::abs(reference);
}

}  // namespace

LatencyModes find_latency_modes(std::span<const double> samples, const ModeRepeatOptions& options) {
  LatencyModes modes;
  modes.split = split_latency_modes(samples);
  if (!modes.split.bimodal) return modes;
  modes.valley_ratio = valley_ratio(samples, modes.split.threshold);
  const std::size_t parts = options.part_samples ? samples.size() / options.part_samples : 0;
  if (parts < 2) return modes;
  modes.parts = parts;
  for (std::size_t k = 0; k < parts; ++k) {
    const std::size_t from = k * samples.size() / parts;
    const std::size_t to = (k + 1) * samples.size() / parts;
    const std::span<const double> part = samples.subspan(from, to - from);
    for (const bool slow : {false, true}) {
      if (shows_mode(part, modes.split, slow, options)) ++modes.parts_showing[slow ? 1 : 0];
    }
  }
  char rule[200];
  std::snprintf(rule, sizeof rule,
                "parts of the chase in time order (%zu loads or more) with at least %.0f %% of "
                "their loads in the mode, their p50 within %.0f %% of the mode's",
                options.part_samples, 100 * options.min_share, 100 * options.value_band);
  modes.parts_rule = rule;
  return modes;
}

}  // namespace memtopo
