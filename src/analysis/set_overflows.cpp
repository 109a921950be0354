#include "analysis/set_overflows.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "analysis/line_fit.hpp"

namespace memtopo {

SetsFromOverflows sets_from_overflows(std::uint64_t first_elements,
                                      std::span<const std::uint64_t> missing) {
  SetsFromOverflows result;
  std::uint64_t before = 0;  // the chain one shorter than the first missed on none
  for (std::size_t i = 0; i < missing.size(); ++i) {
    const std::uint64_t elements = first_elements + i;
    const std::uint64_t now = missing[i];
    ++result.steps;
    if (result.complete) {  // a confirmation: every element of a longer chain misses too
      result.consistent += now == elements ? 1 : 0;
      continue;
    }
    if (now < before || now > elements) {
      before = std::min(now, elements);
      continue;  // inconsistent: not counted, and the count goes on from here
    }
    const std::uint64_t increment = now - before;
    before = now;
    // One more miss is an overflowed set taking one more page; before any set overflowed it is
    // a misjudged word (an H200 L1 TLB scan counted 1, 1, then all 17 at 15, 16, 17 elements).
    if (increment == 1 && result.ways.empty()) continue;
    ++result.consistent;
    if (now == elements && increment >= 2 && result.ways.empty()) {
      // The first overflow misses on every element: one set holds them all, ways + 1 of them,
      // whatever words were misjudged before (they are among the elements now).
      result.ways.push_back(elements - 1);
      result.overflowed_at.push_back(elements);
    } else if (increment >= 2) {
      result.ways.push_back(increment - 1);
      result.overflowed_at.push_back(elements);
    }
    if (now == elements) {
      result.complete = true;
      result.all_missing_elements = elements;
    }
  }
  result.entries = std::accumulate(result.ways.begin(), result.ways.end(), std::uint64_t{0});
  return result;
}

namespace {

// Chain lengths the fit needs on the ramp, and past its end (every element missing but noise).
constexpr std::size_t kMinRampPoints = 8;
constexpr std::size_t kMinTailPoints = 4;
// The least slope of a ramp: ways + 1 with at least one way, rounded (1.5 rounds to 2).
constexpr double kMinRampSlope = 1.5;
// The slope lies at most this far from a whole number: on the H200 the clean ramps rose by
// 8.8-9.0 per element; one whose sets filled in bursts (a pause of 45 lengths mid-ramp) by 6.4.
constexpr double kMaxSlopeFromWhole = 0.25;
// The line explains at least this share of the ramp's variance: clean H200 ramps gave R^2 of
// 0.9997-0.99999 (38 of 44 recorded scans); two scans that held at 87 % missing for 80 lengths
// before the end gave 0.91-0.92 and a slope of 8.1-8.2, which rounds to 7 ways
// (docs/results/nvidia-h200/2026-11-24_732bab2); one that paused for 12 lengths mid-ramp gave
// 0.9957 and a slope of 8.2 (7 ways, 292 sets: 2026-11-24_385b78d), others 0.991-0.998 with a
// slope of 8.9.
constexpr double kMinRampExplained = 0.999;
// Past the ramp's end most chains have at least this share of their elements missing (the rest
// misjudged words: on the H200 about 120 of 2300 words missed only 50 lengths later).
constexpr double kTailMissingShare = 0.9;

}  // namespace

std::vector<std::uint64_t> sparse_ramp_lengths(std::uint64_t first_miss, double slope,
                                               std::uint64_t longest) {
  std::vector<std::uint64_t> lengths;
  if (slope < kMinRampSlope || first_miss < 2) return lengths;
  const auto ways = static_cast<std::uint64_t>(std::llround(slope - 1));
  const std::uint64_t entries = first_miss - 1;
  const std::uint64_t sets = std::max<std::uint64_t>(1, entries / ways);
  const auto add = [&](std::uint64_t n) {
    if (n <= longest && (lengths.empty() || n > lengths.back())) lengths.push_back(n);
  };
  // From 12 % to 80 % of the way from E to E + S: a share x of it puts x (W + 1) / (W + x) of the
  // chain's elements missing, inside [kRampLow, kRampHigh] for any W from 1 way (21-89 %) up
  // (16 ways: 13-81 %).
  constexpr std::uint64_t kFromPercent = 12, kToPercent = 80;
  for (std::uint64_t i = 0; i < kSparseRampPoints; ++i) {
    const std::uint64_t percent =
        kFromPercent + (kToPercent - kFromPercent) * i / (kSparseRampPoints - 1);
    add(entries + sets * percent / 100);
  }
  const std::uint64_t tail_step = std::max<std::uint64_t>(1, sets / 64);
  for (std::uint64_t j = 0; j < kSparseTailPoints; ++j) add(entries + sets + 1 + j * tail_step);
  return lengths;
}

RampFit equal_sets_from_ramp(std::uint64_t first_elements, std::span<const std::uint64_t> missing) {
  std::vector<std::uint64_t> lengths(missing.size());
  std::iota(lengths.begin(), lengths.end(), first_elements);
  return equal_sets_from_ramp(std::span<const std::uint64_t>(lengths), missing);
}

RampFit equal_sets_from_ramp(std::span<const std::uint64_t> lengths,
                             std::span<const std::uint64_t> missing) {
  RampFit fit;
  std::vector<double> xs, ys;
  for (std::size_t i = 0; i < missing.size() && i < lengths.size(); ++i) {
    const double n = static_cast<double>(lengths[i]);
    const double m = static_cast<double>(missing[i]);
    if (m >= kRampLow * n && m <= kRampHigh * n) {
      xs.push_back(n);
      ys.push_back(m);
    }
  }
  fit.points = xs.size();
  if (xs.size() < kMinRampPoints) {
    fit.why = "only " + std::to_string(xs.size()) + " chain lengths on the ramp";
    return fit;
  }
  // Theil-Sen, so that a stretch of the ramp bent by misjudged words does not tilt the line (on
  // the H200 a least-squares line through one such ramp gave 7 ways and 290 sets, the median
  // slope 8 and 256).
  const std::optional<LineFit> line = fit_line(xs, ys, LineMethod::theil_sen);
  if (!line) {
    fit.why = "the ramp's chain lengths are all equal";
    return fit;
  }
  fit.slope = line->slope;
  const double intercept = line->intercept;
  if (std::adjacent_find(ys.begin(), ys.end(), std::not_equal_to<>()) == ys.end()) {
    fit.why = "the ramp's counts do not vary";
    return fit;
  }
  fit.explained = line->r_squared;
  if (fit.slope < kMinRampSlope) {
    fit.why = "the counts rise by " + std::to_string(fit.slope) +
              " per element: no set overflows at once (not LRU, or unequal fills)";
    return fit;
  }
  if (std::fabs(fit.slope - 1 - std::round(fit.slope - 1)) > kMaxSlopeFromWhole) {
    fit.why = "the counts rise by " + std::to_string(fit.slope) +
              " per element, not a whole number of ways + 1: the sets fill unevenly";
    fit.uneven = true;
    return fit;
  }
  if (fit.explained < kMinRampExplained) {
    fit.why = "a line explains " + std::to_string(fit.explained) +
              " of the ramp's counts: the sets fill unevenly (a pause or a stall on the ramp)";
    fit.uneven = true;
    return fit;
  }
  fit.onset = -intercept / fit.slope;
  fit.end = intercept / (1 - fit.slope);
  fit.ways = static_cast<std::uint64_t>(std::llround(fit.slope - 1));
  // E = S x W and E + S = S x (W + 1), so S = (E + (E + S)) / (2W + 1): a line tilted by a few
  // misjudged words moves its onset and its end in opposite directions, and their sum hardly.
  // Five H200 L2 TLB ramps at 59c91cd read E / W = 255.50-255.89 (255 once, 256 four times),
  // the sum 255.84-256.04.
  fit.sets = static_cast<std::uint64_t>(
      std::llround((fit.onset + fit.end) / static_cast<double>(2 * fit.ways + 1)));
  std::size_t tail = 0, tail_full = 0;
  for (std::size_t i = 0; i < missing.size() && i < lengths.size(); ++i) {
    const double n = static_cast<double>(lengths[i]);
    if (n <= fit.end + 1) continue;
    ++tail;
    tail_full += static_cast<double>(missing[i]) >= kTailMissingShare * n ? 1 : 0;
  }
  if (tail < kMinTailPoints || 2 * tail_full <= tail) {
    fit.why = "the scan ended before the ramp met the chain (" + std::to_string(tail_full) +
              " of " + std::to_string(tail) + " longer chains had almost every element missing)";
    return fit;
  }
  if (fit.sets == 0) {
    fit.why = "the ramp starts before a single set is full";
    return fit;
  }
  fit.found = true;
  return fit;
}

nlohmann::json RampFit::evidence() const {
  nlohmann::json e = {{"slope", slope},  {"onset_elements", onset}, {"end_elements", end},
                      {"r2", explained}, {"points", points},        {"ways", ways},
                      {"sets", sets},    {"found", found}};
  if (!why.empty()) e["why"] = why;
  return e;
}

std::optional<std::uint64_t> aligned_start(std::uint64_t start_page,
                                           std::uint64_t first_miss_elements,
                                           std::uint64_t needed_elements,
                                           std::uint64_t max_elements) {
  if (start_page == 0 || first_miss_elements < 2) return 0;
  std::uint64_t block = 1;
  while (block <= first_miss_elements / 2) block *= 2;
  for (; block > 1; block /= 2) {
    const std::uint64_t first = (block - start_page % block) % block;
    if (first + needed_elements <= max_elements) return first;
  }
  return std::nullopt;
}

bool overflows_fit_even_fill(const SetsFromOverflows& sets) {
  if (!sets.complete || sets.ways.empty()) return true;
  const std::uint64_t count = sets.ways.size();
  for (std::size_t i = 0; i < sets.ways.size(); ++i) {
    const std::uint64_t most_pages = (sets.overflowed_at[i] + count - 1) / count;
    if (sets.ways[i] + 1 > most_pages) return false;
  }
  return true;
}

bool overflows_in_fill_order(const SetsFromOverflows& sets) {
  return std::is_sorted(sets.ways.begin(), sets.ways.end());
}

nlohmann::json ways_value(const std::vector<std::uint64_t>& ways) {
  if (ways.empty()) return nullptr;
  if (std::all_of(ways.begin(), ways.end(), [&](std::uint64_t w) { return w == ways.front(); })) {
    return ways.front();
  }
  std::vector<std::uint64_t> sorted = ways;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  return sorted;
}

}  // namespace memtopo
