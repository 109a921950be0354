#pragma once
// Reduction of per-footprint traces to one series for change-point detection (thesis 004, 3.3.2).
//
// A probe records, for each footprint (array size) it tries, one vector of per-access latencies
// in cycles. Change-point detection works on one number per footprint; these functions make it.
//
// Lengths: vectors of different footprints may differ in length. The mean and the RMS from the
// minimum are properties of one vector and use all of its samples. The geometric reduction
// compares vectors in one space, so it truncates every vector to the common (shortest) length
// L: it keeps x[0..L) and drops the tail. Truncation, not resampling: a resampled latency is not
// a latency that was ever measured, and interpolating between a hit and a miss invents a level.
#include <cstddef>
#include <span>
#include <vector>

namespace memtopo {

enum class Reduction {
  geometric,     // ||x|| / sqrt(L), see geometric_point
  mean,          // arithmetic mean of the vector
  rms_from_min,  // sqrt(mean((x - min x)^2)): 0 for a constant vector, grows with slow accesses
};

// A vector x described in the plane spanned by the reference r and x (polar coordinates):
//   along    = <x, r> / ||r||, the signed length of the projection of x onto the line of r;
//   off_line = ||x - (<x, r> / <r, r>) r||, the Euclidean distance from x to that line (>= 0);
//   radius   = ||x|| = hypot(along, off_line), the distance from the origin;
//   angle    = atan2(off_line, along) in [0, pi], the angle between x and r (radians).
// With r = (1, ..., 1): along = sqrt(L) * mean, off_line = sqrt(L) * population stdev, and the
// angle is atan(stdev / mean). The distance to the line alone is blind to a clean step from all
// hits to all misses (both constant vectors lie on the line); the radius sees the level and the
// angle sees a mixture of levels inside one vector.
struct GeometricPoint {
  double along = 0;
  double off_line = 0;
  double radius = 0;
  double angle = 0;
};

// Throws std::invalid_argument when x and r differ in length, are empty, or r is all zero.
GeometricPoint geometric_point(std::span<const double> x, std::span<const double> reference);

// The shortest length among the traces; throws std::invalid_argument for no traces.
std::size_t common_length(std::span<const std::vector<double>> traces);

// Throw std::invalid_argument for an empty vector.
double mean_of(std::span<const double> x);
double rms_from_min(std::span<const double> x);

// One value per trace, in trace order. For Reduction::geometric the value is radius / sqrt(L)
// (the quadratic mean of the truncated vector, in cycles, so the three reductions share a
// unit); `reference` (empty = all ones) must then have at least L entries, of which the first L
// are used. Throws std::invalid_argument for no traces, an empty trace, or a bad reference.
std::vector<double> reduce_traces(std::span<const std::vector<double>> traces, Reduction how,
                                  std::span<const double> reference = {});

// The angle (radians) of each truncated trace to the reference (empty = all ones): the second
// coordinate of the geometric reduction, a series of its own for changes in shape.
std::vector<double> geometric_angles(std::span<const std::vector<double>> traces,
                                     std::span<const double> reference = {});

}  // namespace memtopo
