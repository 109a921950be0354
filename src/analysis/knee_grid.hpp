#pragma once
// An adaptive footprint grid for a bandwidth-versus-footprint curve (docs/method.md, bandwidth,
// *The sweep*): plateaus that FALL at knees (analysis/knees.hpp). A coarse pass measures every
// other point of the fine grid (and its last); then, while some gap between measured neighbours
// still holds unmeasured fine points and is not flat, or lies next to one that is not, its middle
// fine point is measured. Where it ends, every fall is measured at the fine spacing, and so are
// the gaps on either side of it; only flat stretches of plateaus are left coarser.
//
// Flat: the two ends differ by less than flat_tolerance (the smaller of find_knees' plateau band
// and fall step, 5 %) less the noise of both ends (each end's median can sit that far from its
// launches, so a true difference may look that much smaller). Why no knee hides in a flat gap:
// - find_knees follows a fall only while each point is more than `fall_step` below the one
//   before, and a knee's fall leaves its plateau's band. Every fine step of such a fall lies in a
//   gap whose ends differ by at least that much on a curve that does not rise again within it, so
//   the gap is refined, then the gaps next to it, down to the fine spacing.
// - A dip and recovery inside a flat gap: with every other point measured, a dip of two or more
//   fine points holds a measured point, which differs from its neighbours and refines their gaps.
//   A dip of one fine point between two flat measured ones is removed on the fine grid too:
//   find_knees' running median of three puts it between its neighbours. (What the coarse pass
//   assumes: no structure at every other fine point, a zig-zag no cache level makes.)
// - A slow ramp of less than the tolerance per coarse gap stays coarse: it never is a fall, and
//   it leaves a plateau's band at a point at most one fine step from where the fine grid's would.
// The knees of the adaptive points therefore equal the fine grid's (interval and estimate within
// one fine step; tests/unit/knee_grid_test.cpp: 984 knees of 500 random curves, 0.70 of the
// points measured). The gaps either side of a fall are refined for the agreement test alone: a
// knee's interval is then bounded by fine gaps, so its local resolution (knee_resolution) is the
// fine grid's 2^1/4. Without them the knees are the same, from 0.61 of the points, but the test
// would widen to 2^1/2.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "analysis/knees.hpp"

namespace memtopo {

// A measured point: its bandwidth (the median of its launches) and the relative noise of that
// median (the largest relative distance of one of its launches from it).
struct SweepPoint {
  std::uint64_t footprint_bytes = 0;
  double bandwidth = 0;
  double noise = 0;
};

// The relative difference a gap's ends may show and be flat, for noise-free ends: the smaller of
// find_knees' plateau band and fall step.
double flat_tolerance(const KneeOptions& options = {});

// Whether two measured neighbours differ (relative to the higher one) by less than
// flat_tolerance less the noise of both: ends whose noise adds up to the tolerance never are.
bool gap_is_flat(const SweepPoint& a, const SweepPoint& b, const KneeOptions& options = {});

// The fine points to measure next: the middle fine point (the lower middle of an even count) of
// every gap between neighbours of `points` (ascending footprints of `grid`) that holds points of
// `grid` strictly inside and is not flat, or whose neighbouring gap is not flat.
std::vector<std::uint64_t> knee_gaps_to_refine(std::span<const SweepPoint> points,
                                               std::span<const std::uint64_t> grid,
                                               const KneeOptions& options = {});

// Measures one footprint; nullopt where it cannot run (the sweep stops growing there).
using MeasureSweepPoint = std::function<std::optional<SweepPoint>(std::uint64_t footprint)>;

struct KneeSweep {
  std::vector<SweepPoint> points;  // ascending footprints, whatever order they were measured in
  std::size_t fine_points = 0;     // of the grid up to where the sweep could run
  std::size_t rounds = 0;          // of refinement after the coarse pass
  bool stopped = false;            // a footprint could not run: the grid ends below it
};

// The coarse pass over every `spacing`-th point of `grid` (ascending; coarse_points) from the
// smallest, stopping at the first footprint `measure` cannot run, then knee_gaps_to_refine's
// points until there are none.
KneeSweep sweep_for_knees(std::span<const std::uint64_t> grid, const MeasureSweepPoint& measure,
                          std::size_t spacing = 2, const KneeOptions& options = {});

}  // namespace memtopo
