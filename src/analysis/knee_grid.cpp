#include "analysis/knee_grid.hpp"

#include <algorithm>

#include "analysis/adaptive_grid.hpp"

namespace memtopo {
namespace {

// The points of `grid` strictly between two measured footprints, as [first, last) indices.
struct FineBetween {
  std::size_t first = 0, last = 0;
  std::size_t count() const { return last > first ? last - first : 0; }
  std::size_t middle() const { return first + (count() - 1) / 2; }
};

FineBetween fine_between(std::span<const std::uint64_t> grid, std::uint64_t from,
                         std::uint64_t to) {
  return {static_cast<std::size_t>(std::upper_bound(grid.begin(), grid.end(), from) - grid.begin()),
          static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), to) - grid.begin())};
}

void insert_ascending(std::vector<SweepPoint>& points, const SweepPoint& point) {
  const auto at = std::lower_bound(
      points.begin(), points.end(), point.footprint_bytes,
      [](const SweepPoint& p, std::uint64_t footprint) { return p.footprint_bytes < footprint; });
  points.insert(at, point);
}

// The coarse pass: ascending, until a footprint cannot run; `grid` is cut below it, and the
// sweep's end is the largest fine point below it that can run (so that the tail is a gap too).
void coarse_pass(std::span<const std::uint64_t>& grid, std::size_t spacing,
                 const MeasureSweepPoint& measure, KneeSweep& sweep) {
  for (const std::uint64_t footprint : coarse_points(grid, spacing)) {
    if (const std::optional<SweepPoint> point = measure(footprint)) {
      sweep.points.push_back(*point);
      continue;
    }
    sweep.stopped = true;
    grid = grid.first(static_cast<std::size_t>(
        std::lower_bound(grid.begin(), grid.end(), footprint) - grid.begin()));
    while (!grid.empty() && (sweep.points.empty() ||
                             grid.back() > sweep.points.back().footprint_bytes)) {
      if (const std::optional<SweepPoint> last = measure(grid.back())) {
        sweep.points.push_back(*last);
        break;
      }
      grid = grid.first(grid.size() - 1);
    }
    return;
  }
}

}  // namespace

double flat_tolerance(const KneeOptions& options) {
  return std::min(options.plateau_band, options.fall_step);
}

bool gap_is_flat(const SweepPoint& a, const SweepPoint& b, const KneeOptions& options) {
  const double higher = std::max(a.bandwidth, b.bandwidth);
  const double lower = std::min(a.bandwidth, b.bandwidth);
  if (!(higher > 0)) return true;
  return 1 - lower / higher < flat_tolerance(options) - a.noise - b.noise;
}

std::vector<std::uint64_t> knee_gaps_to_refine(std::span<const SweepPoint> points,
                                               std::span<const std::uint64_t> grid,
                                               const KneeOptions& options) {
  // flat[j]: the gap (j - 1, j); flat[0] and flat[size] stand for the ends of the sweep.
  std::vector<bool> flat(points.size() + 1, true);
  for (std::size_t j = 1; j < points.size(); ++j) {
    flat[j] = gap_is_flat(points[j - 1], points[j], options);
  }
  std::vector<std::uint64_t> out;
  for (std::size_t j = 1; j < points.size(); ++j) {
    const FineBetween fine =
        fine_between(grid, points[j - 1].footprint_bytes, points[j].footprint_bytes);
    if (fine.count() == 0 || (flat[j] && flat[j - 1] && flat[j + 1])) continue;
    out.push_back(grid[fine.middle()]);
  }
  return out;
}

KneeSweep sweep_for_knees(std::span<const std::uint64_t> grid, const MeasureSweepPoint& measure,
                          std::size_t spacing, const KneeOptions& options) {
  KneeSweep sweep;
  coarse_pass(grid, spacing, measure, sweep);
  sweep.fine_points = grid.size();
  for (;;) {
    const std::vector<std::uint64_t> more = knee_gaps_to_refine(sweep.points, grid, options);
    if (more.empty()) return sweep;
    ++sweep.rounds;
    for (const std::uint64_t footprint : more) {
      const std::optional<SweepPoint> point = measure(footprint);
      if (!point) {  // ran below the stop before: the grid ends here now
        sweep.stopped = true;
        return sweep;
      }
      insert_ascending(sweep.points, *point);
    }
  }
}

}  // namespace memtopo
