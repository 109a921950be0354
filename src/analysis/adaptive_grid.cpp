#include "analysis/adaptive_grid.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/changepoint.hpp"

namespace memtopo {
namespace {

// The fine points strictly between two measured footprints: [first, last) of `grid`.
struct Between {
  std::span<const std::uint64_t>::iterator first, last;
  std::ptrdiff_t count() const { return last - first; }
  std::uint64_t middle() const { return *(first + (count() - 1) / 2); }
};

Between between(std::span<const std::uint64_t> grid, std::uint64_t from, std::uint64_t to) {
  return {std::upper_bound(grid.begin(), grid.end(), from),
          std::lower_bound(grid.begin(), grid.end(), to)};
}

// The gap of footprints (j - 1, j) of `s`, if a rule of gaps_to_refine picks it (thin plateaus
// aside).
bool picked(const Staircase& s, std::size_t j, double least_rise, GapReason& reason) {
  const bool holds_a_step = std::any_of(s.steps.begin(), s.steps.end(),
                                        [&](const StaircaseStep& step) { return step.index == j; });
  const bool in_a_ramp = std::any_of(s.ramps.begin(), s.ramps.end(), [&](SeriesSegment r) {
    return j >= r.begin && j <= r.end;  // gaps (r.begin - 1, r.begin) .. (r.end - 1, r.end)
  });
  if (s.series[j] - s.series[j - 1] > least_rise) {
    reason = GapReason::rises;
  } else if (holds_a_step) {
    reason = GapReason::holds_a_step;
  } else if (in_a_ramp) {
    reason = GapReason::in_a_ramp;
  } else {
    return false;
  }
  return true;
}

// The widest gap (most fine points between) inside `level`, when it has fewer footprints than
// kMinPlateauPoints and than the fine grid gives it; 0 when none.
std::size_t thin_plateau_gap(const Staircase& s, const StaircaseLevel& level,
                             std::span<const std::uint64_t> grid) {
  const std::size_t measured = level.last - level.first + 1;
  const auto fine =
      static_cast<std::size_t>(std::upper_bound(grid.begin(), grid.end(), level.to_bytes) -
                               std::lower_bound(grid.begin(), grid.end(), level.from_bytes));
  if (measured >= std::min(fine, kMinPlateauPoints)) return 0;
  std::size_t widest = 0;
  std::ptrdiff_t most = 0;
  for (std::size_t j = level.first + 1; j <= level.last; ++j) {
    const std::ptrdiff_t count = between(grid, s.footprints[j - 1], s.footprints[j]).count();
    if (count > most) {
      most = count;
      widest = j;
    }
  }
  return widest;
}

}  // namespace

const char* gap_reason_name(GapReason reason) {
  switch (reason) {
    case GapReason::rises:
      return "rises";
    case GapReason::holds_a_step:
      return "holds a step";
    case GapReason::in_a_ramp:
      return "in a ramp";
    case GapReason::thin_plateau:
      return "thin plateau";
  }
  return "?";
}

std::vector<std::uint64_t> coarse_points(std::span<const std::uint64_t> grid, std::size_t spacing) {
  std::vector<std::uint64_t> out;
  const std::size_t every = std::max<std::size_t>(1, spacing);
  for (std::size_t i = 0; i < grid.size(); i += every) out.push_back(grid[i]);
  if (!grid.empty() && out.back() != grid.back()) out.push_back(grid.back());
  return out;
}

double least_rise_to_refine(double noise_sigma, double min_step_confidence,
                            const StaircaseOptions& options) {
  const double level_rise = min_step_confidence * options.clear_jump_sigmas * noise_sigma;
  const double noise_allowance = kNoiseAllowanceSigmas * std::sqrt(2.0) * noise_sigma;
  return std::max(0.0, level_rise - noise_allowance);
}

std::vector<GapToRefine> gaps_to_refine(const Staircase& s, std::span<const std::uint64_t> grid,
                                        double least_rise) {
  // Every plateau before a step: the last one, after every step, is read only where no scan of
  // the level's sets gave its misses, and its chains are the longest (the costliest, and the
  // least scattered: many elements average their reference errors).
  std::vector<std::size_t> thin;
  for (std::size_t k = 0; k + 1 < s.levels.size(); ++k) {
    if (const std::size_t j = thin_plateau_gap(s, s.levels[k], grid); j > 0) thin.push_back(j);
  }
  std::vector<GapToRefine> out;
  for (std::size_t j = 1; j < s.footprints.size() && j < s.series.size(); ++j) {
    const Between fine = between(grid, s.footprints[j - 1], s.footprints[j]);
    if (fine.count() <= 0) continue;  // one interval of the fine grid (or off it): nothing between
    GapReason reason = GapReason::thin_plateau;
    if (!picked(s, j, least_rise, reason) && std::find(thin.begin(), thin.end(), j) == thin.end()) {
      continue;
    }
    out.push_back({s.footprints[j - 1], s.footprints[j], fine.middle(), reason});
  }
  return out;
}

double grid_noise_sigma(std::span<const double> series, std::span<const std::uint64_t> footprints,
                        std::span<const std::uint64_t> grid) {
  std::vector<double> differences;
  for (std::size_t j = 1; j < series.size() && j < footprints.size(); ++j) {
    const auto intervals = between(grid, footprints[j - 1], footprints[j]).count() + 1;
    differences.insert(differences.end(),
                       static_cast<std::size_t>(std::max<std::ptrdiff_t>(1, intervals)),
                       series[j] - series[j - 1]);
  }
  return robust_noise_sigma_of_differences(differences);
}

Staircase analyze_on_grid(const Staircase& estimated, std::span<const std::vector<double>> cycles,
                          std::span<const std::uint64_t> grid) {
  StaircaseOptions options;
  options.change_points.known_sigma =
      grid_noise_sigma(estimated.series, estimated.footprints, grid);
  // A grid measured whole gives the very same differences, and so exactly the same noise.
  if (noise_sigma(estimated.series, options.change_points) == estimated.noise_sigma) {
    return estimated;
  }
  return analyze_staircase(estimated.footprints, cycles, options);
}

Staircase refine_where_it_may_step(Staircase s, std::span<const std::uint64_t> grid,
                                   double min_step_confidence, const MeasureMore& measure_more,
                                   std::vector<RefinedGap>& refined) {
  for (;;) {
    const double least_rise = least_rise_to_refine(s.noise_sigma, min_step_confidence);
    const std::vector<GapToRefine> gaps = gaps_to_refine(s, grid, least_rise);
    if (gaps.empty()) return s;
    std::vector<std::uint64_t> more;
    for (const GapToRefine& gap : gaps) {
      more.push_back(gap.middle);
      refined.push_back({gap, least_rise});
    }
    s = measure_more(s, more);
  }
}

}  // namespace memtopo
