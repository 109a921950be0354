#include "analysis/staircase.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats.hpp"

namespace memtopo {

std::string_view to_string(Reduction reduction) {
  switch (reduction) {
    case Reduction::geometric:
      return "geometric";
    case Reduction::mean:
      return "mean";
    case Reduction::rms_from_min:
      return "rms_from_min";
  }
  return "?";
}

namespace {

// A run of footprints [begin, end) of the reduced series.
using Segment = SeriesSegment;

double median_of(std::span<const double> series, Segment s) {
  return median(series.subspan(s.begin, s.end - s.begin));
}

// An interior segment whose values lie between its neighbours' plateaus and are spread over more
// than half of the smaller jump to them is a ramp, not a level: PELT cuts a gradual rise into
// short pieces because a straight line is not piecewise constant. Spread: twice the interquartile
// range (a straight ramp's whole range; two or three points: their range), so that a plateau of
// four lengths or more whose last point or two already climb the next level's gradual overflow
// stays a level. With the range instead, a simulated H200-like L1 TLB (16 x 16 MiB, a 10-cycle
// step in +-3 cycles of jitter) was taken for a ramp in 39 noise seeds of 60 (now none): its
// plateau of eleven lengths at 267 cycles ended on the L2 TLB's first partial miss, 5 cycles up,
// and the L2 TLB was reported as tlb_l1. (Twice the distance from the median to the nearer
// extreme, which would also keep a plateau of two lengths and one rising, read 1-MiB ramps of
// unequal sets as levels of their own.)
bool is_ramp(std::span<const double> series, const std::vector<Segment>& segments, std::size_t j) {
  const double before = median_of(series, segments[j - 1]);
  const double here = median_of(series, segments[j]);
  const double after = median_of(series, segments[j + 1]);
  if ((here - before) * (after - here) <= 0) return false;  // not between them: a level
  std::vector<double> values(series.begin() + static_cast<std::ptrdiff_t>(segments[j].begin),
                             series.begin() + static_cast<std::ptrdiff_t>(segments[j].end));
  std::sort(values.begin(), values.end());
  constexpr double kLowerQuartile = 0.25, kUpperQuartile = 0.75;
  const double spread = values.size() <= 3 ? values.back() - values.front()
                                           : 2 * (percentile_of_sorted(values, kUpperQuartile) -
                                                  percentile_of_sorted(values, kLowerQuartile));
  const double smaller_jump = std::min(std::abs(here - before), std::abs(after - here));
  return spread > 0.5 * smaller_jump;
}

// The plateaus ("cores") left after ramps are removed; ramp footprints lie between two cores.
// The ramps removed go to `ramps`.
std::vector<Segment> plateau_cores(std::span<const double> series, std::vector<Segment> segments,
                                   std::vector<Segment>& ramps) {
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t j = 1; j + 1 < segments.size(); ++j) {
      if (!is_ramp(series, segments, j)) continue;
      ramps.push_back(segments[j]);
      segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(j));
      merged = true;
      break;
    }
  }
  return segments;
}

// Where the level changes between two cores: the first footprint from the end of `a` on whose
// value lies on b's side of the midpoint of the two plateaus (at the latest, b's first).
std::size_t step_between(std::span<const double> series, Segment a, Segment b) {
  const double level_a = median_of(series, a), level_b = median_of(series, b);
  const double mid = 0.5 * (level_a + level_b);
  const double direction = level_b >= level_a ? 1.0 : -1.0;
  for (std::size_t t = std::max(a.end, a.begin + 1); t < b.begin; ++t) {
    if ((series[t] - mid) * direction >= 0) return t;
  }
  return b.begin;
}

// Each trace with its samples above the q-quantile lowered to it.
std::vector<std::vector<double>> winsorised(std::span<const std::vector<double>> cycles, double q) {
  std::vector<std::vector<double>> out;
  out.reserve(cycles.size());
  for (const auto& trace : cycles) {
    std::vector<double> sorted(trace);
    std::sort(sorted.begin(), sorted.end());
    const double cap = percentile_of_sorted(sorted, q);
    auto& clipped = out.emplace_back(trace);
    for (double& x : clipped) x = std::min(x, cap);
  }
  return out;
}

std::vector<double> medians_of(std::span<const std::vector<double>> cycles) {
  std::vector<double> out;
  for (const auto& c : cycles) out.push_back(median(c));
  return out;
}

StaircaseLevel describe_level(const Staircase& s, std::span<const std::vector<double>> cycles,
                              std::span<const double> per_footprint_medians, Segment range,
                              Segment core) {
  StaircaseLevel level;
  level.first = range.begin;
  level.last = range.end - 1;
  level.from_bytes = s.footprints[level.first];
  level.to_bytes = s.footprints[level.last];
  const std::size_t count = range.end - range.begin;
  level.latency = median(per_footprint_medians.subspan(range.begin, count));
  level.mean = median(std::span(s.mean).subspan(range.begin, count));
  level.reduced = median_of(s.series, core);
  std::vector<double> pooled;
  for (std::size_t i = range.begin; i < range.end; ++i) {
    pooled.insert(pooled.end(), cycles[i].begin(), cycles[i].end());
  }
  level.spread = summarize(pooled);
  return level;
}

StaircaseStep describe_step(const Staircase& s, std::span<const std::vector<double>> cycles,
                            const StaircaseLevel& before, const StaircaseLevel& after,
                            const StaircaseOptions& options) {
  StaircaseStep step;
  step.index = after.first;
  step.before_bytes = s.footprints[step.index - 1];
  step.after_bytes = s.footprints[step.index];
  step.latency_before = before.latency;
  step.latency_after = after.latency;
  step.jump = after.reduced - before.reduced;
  step.ks = ks_two_sample(cycles[step.index - 1], cycles[step.index], options.ks_alpha);
  step.significance = change_confidence(step.ks);
  const double clear = options.clear_jump_sigmas * s.noise_sigma;
  step.contrast = clear > 0 ? std::clamp(std::abs(step.jump) / clear, 0.0, 1.0) : 1.0;
  const double here = s.series[step.index] - s.series[step.index - 1];
  step.sharpness = step.jump != 0 ? std::clamp(here / step.jump, 0.0, 1.0) : 0.0;
  step.confidence = step.significance * step.contrast * step.sharpness;
  return step;
}

}  // namespace

Staircase analyze_staircase(std::span<const std::uint64_t> footprints,
                            std::span<const std::vector<double>> cycles,
                            const StaircaseOptions& options) {
  if (footprints.empty() || footprints.size() != cycles.size()) {
    throw std::invalid_argument("staircase: one trace per footprint, at least one");
  }
  for (const auto& c : cycles) {
    if (c.empty()) throw std::invalid_argument("staircase: an empty trace");
  }
  Staircase s;
  s.footprints.assign(footprints.begin(), footprints.end());
  const auto clipped = winsorised(cycles, options.winsor_quantile);
  s.geometric = reduce_traces(clipped, Reduction::geometric);
  s.mean = reduce_traces(clipped, Reduction::mean);
  s.rms_from_min = reduce_traces(clipped, Reduction::rms_from_min);
  s.used = options.reduction;
  s.series = options.reduction == Reduction::geometric ? s.geometric
             : options.reduction == Reduction::mean    ? s.mean
                                                       : s.rms_from_min;
  s.noise_sigma = noise_sigma(s.series, options.change_points);
  s.change_points = change_points(s.series, options.change_points);

  const auto cores =
      plateau_cores(s.series, segments_between(s.change_points, s.series.size()), s.ramps);
  const auto per_footprint_medians = medians_of(cycles);
  std::size_t begin = 0;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    const std::size_t end =
        k + 1 < cores.size() ? step_between(s.series, cores[k], cores[k + 1]) : s.series.size();
    s.levels.push_back(describe_level(s, cycles, per_footprint_medians, {begin, end}, cores[k]));
    begin = end;
  }
  for (std::size_t k = 0; k + 1 < s.levels.size(); ++k) {
    s.steps.push_back(describe_step(s, cycles, s.levels[k], s.levels[k + 1], options));
  }
  return s;
}

ModeSplit split_two_modes(std::span<const double> samples, const ModeSplitOptions& options) {
  ModeSplit split;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const auto min_count =
      static_cast<std::size_t>(std::ceil(options.min_share * static_cast<double>(sorted.size())));
  ChangePointOptions cp;
  cp.robust = false;  // sorted samples: nothing to winsorise, the minimum share keeps tails out
  cp.min_segment = std::max<std::size_t>(1, min_count);
  if (sorted.size() < 2 * cp.min_segment || sorted.size() < 4) {
    split.fast = summarize(sorted.empty() ? std::vector<double>{0.0} : sorted);
    split.reason = "too few samples for two modes";
    return split;
  }
  const std::size_t t = opt_single_change_point(sorted, cp);
  const std::span<const double> fast(sorted.data(), t), slow(sorted.data() + t, sorted.size() - t);
  const double sigma = std::max({robust_sigma(fast), robust_sigma(slow), options.min_noise});
  split.separation_sigmas = (median(slow) - median(fast)) / sigma;
  split.slow_share = static_cast<double>(slow.size()) / static_cast<double>(sorted.size());
  if (split.separation_sigmas < options.min_separation_sigmas) {
    split.fast = summarize(sorted);
    split.slow_share = 0;
    split.reason = "one mode: the best split leaves modes only " +
                   std::to_string(split.separation_sigmas) + " sigmas apart";
    return split;
  }
  split.bimodal = true;
  split.threshold = 0.5 * (fast.back() + slow.front());
  split.fast = summarize(fast);
  split.slow = summarize(slow);
  split.reason = "two modes " + std::to_string(split.separation_sigmas) + " sigmas apart";
  return split;
}

}  // namespace memtopo
