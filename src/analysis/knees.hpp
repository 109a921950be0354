#pragma once
// Knees of a bandwidth-versus-footprint curve: where the bandwidth falls from one plateau to a
// lower one because the footprint outgrew a level of the memory hierarchy (L1 -> L2, L2 ->
// DRAM). Pure host code, tested on synthetic curves.
//
// The curve is first smoothed with a running median of three (a single slow or fast launch moves
// no knee). A plateau is a run of points within `plateau_band` of its running median; where a
// point falls below it, the curve is followed down while it keeps falling by more than
// `fall_step` per point, and the next plateau starts where it stops. A fall to a level at least
// `min_drop` below the plateau is a knee. Its estimate is where the curve crosses the geometric
// mean of the two plateaus (log-log interpolation between the sweep points around the crossing);
// its interval runs from the last footprint on the upper plateau to the first on the lower one.
#include <cstddef>
#include <span>
#include <vector>

namespace memtopo {

struct Knee {
  double footprint_bytes = 0;  // the estimate
  double last_high_bytes = 0;  // the largest footprint still on the upper plateau
  double first_low_bytes = 0;  // the smallest footprint on the lower plateau
  double upper_bandwidth = 0;  // median of the upper plateau
  double lower_bandwidth = 0;  // median of the lower plateau
};

struct KneeOptions {
  double plateau_band = 0.1;  // a plateau's points lie within 10 % of its median
  double min_drop = 0.25;     // a knee loses at least 25 % of the bandwidth
  double fall_step = 0.05;    // a fall goes on while each point is 5 % below the one before
};

// The knees of the curve, in footprint order. `footprints` ascending and positive, one
// bandwidth per footprint; fewer than three points have no knee. Throws std::invalid_argument
// for mismatched lengths or footprints that do not ascend.
std::vector<Knee> find_knees(std::span<const double> footprints, std::span<const double> bandwidths,
                             const KneeOptions& options = {});

// The largest ratio between neighbouring footprints: how finely the sweep resolves a size.
double sweep_resolution(std::span<const double> footprints);

// How finely the sweep resolves `knee` (one of find_knees(footprints, ...)): the largest ratio
// between neighbouring footprints next to its last_high and its first_low, so that a plateau
// measured coarsely far from the knee does not loosen the agreement test (knee_agrees).
double knee_resolution(std::span<const double> footprints, const Knee& knee);

// Whether a size measured otherwise (a latency probe's) agrees with a knee within the knee's
// resolution: it lies in the knee's interval widened by `resolution` on both sides.
bool knee_agrees(const Knee& knee, double size_bytes, double resolution);

// The knee nearest to `size_bytes` (by the ratio between size and estimate), or nullptr.
const Knee* nearest_knee(std::span<const Knee> knees, double size_bytes);

}  // namespace memtopo
