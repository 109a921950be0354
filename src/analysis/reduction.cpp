#include "analysis/reduction.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtopo {

GeometricPoint geometric_point(std::span<const double> x, std::span<const double> reference) {
  if (x.empty()) throw std::invalid_argument("geometric point of an empty vector");
  if (x.size() != reference.size())
    throw std::invalid_argument("geometric point: vector and reference differ in length");
  double dot = 0, rr = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    dot += x[i] * reference[i];
    rr += reference[i] * reference[i];
  }
  if (!(rr > 0)) throw std::invalid_argument("geometric point: reference is all zero");
  // The residual is summed directly, not as ||x||^2 - along^2: latencies of hundreds of cycles
  // with a jitter of a few would lose the residual to cancellation.
  const double scale = dot / rr;
  double residual = 0, norm2 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = x[i] - scale * reference[i];
    residual += r * r;
    norm2 += x[i] * x[i];
  }
  GeometricPoint p;
  p.along = dot / std::sqrt(rr);
  p.off_line = std::sqrt(residual);
  p.radius = std::sqrt(norm2);
  p.angle = std::atan2(p.off_line, p.along);
  return p;
}

std::size_t common_length(std::span<const std::vector<double>> traces) {
  if (traces.empty()) throw std::invalid_argument("common length of no traces");
  std::size_t shortest = traces.front().size();
  for (const auto& t : traces) shortest = std::min(shortest, t.size());
  return shortest;
}

double mean_of(std::span<const double> x) {
  if (x.empty()) throw std::invalid_argument("mean of an empty vector");
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}

double rms_from_min(std::span<const double> x) {
  if (x.empty()) throw std::invalid_argument("RMS of an empty vector");
  const double lowest = *std::min_element(x.begin(), x.end());
  double squares = 0;
  for (double v : x) squares += (v - lowest) * (v - lowest);
  return std::sqrt(squares / static_cast<double>(x.size()));
}

namespace {

// The first L entries of the reference, or L ones when none is given.
std::vector<double> reference_of_length(std::span<const double> reference, std::size_t length) {
  if (reference.empty()) return std::vector<double>(length, 1.0);
  if (reference.size() < length)
    throw std::invalid_argument("reference is shorter than the common trace length");
  return {reference.begin(), reference.begin() + static_cast<std::ptrdiff_t>(length)};
}

template <class PerPoint>
std::vector<double> map_geometric(std::span<const std::vector<double>> traces,
                                  std::span<const double> reference, PerPoint per_point) {
  const std::size_t length = common_length(traces);
  if (length == 0) throw std::invalid_argument("geometric reduction of an empty trace");
  const auto ref = reference_of_length(reference, length);
  std::vector<double> out;
  out.reserve(traces.size());
  for (const auto& t : traces)
    out.push_back(per_point(geometric_point(std::span(t).first(length), ref), length));
  return out;
}

}  // namespace

std::vector<double> reduce_traces(std::span<const std::vector<double>> traces, Reduction how,
                                  std::span<const double> reference) {
  if (traces.empty()) throw std::invalid_argument("reduction of no traces");
  if (how == Reduction::geometric) {
    return map_geometric(traces, reference, [](const GeometricPoint& p, std::size_t length) {
      return p.radius / std::sqrt(static_cast<double>(length));
    });
  }
  std::vector<double> out;
  out.reserve(traces.size());
  for (const auto& t : traces)
    out.push_back(how == Reduction::mean ? mean_of(t) : rms_from_min(t));
  return out;
}

std::vector<double> geometric_angles(std::span<const std::vector<double>> traces,
                                     std::span<const double> reference) {
  if (traces.empty()) throw std::invalid_argument("reduction of no traces");
  return map_geometric(traces, reference,
                       [](const GeometricPoint& p, std::size_t) { return p.angle; });
}

}  // namespace memtopo
