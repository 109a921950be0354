// Reading a TLB level's scan of sets (tlb_sets.cpp chases it): which reading stands
// (LevelSets::exact, from_ramp), the mean of its all-missing chains, and the two searches the
// scan makes over chain lengths, as functions of counts so that tests give them numbers.
#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "probes/tlb/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Different ways an exact reading may list and still be taken as it is (see LevelSets::exact).
constexpr std::size_t kMaxDistinctWays = 3;

}  // namespace

std::size_t LevelSets::distinct_ways() const {
  std::vector<std::uint64_t> values = sets.ways;
  std::sort(values.begin(), values.end());
  return static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

bool LevelSets::exact() const {
  if (!sets.complete) return false;
  const std::size_t ways = distinct_ways();
  // A straight ramp of equal sets explains the counts with two numbers: many different ways
  // read off the same counts are the noise of single words moving misses between lengths (on
  // the H200 the increments of every aligned scan ranged over 7-11 around 9). A few different
  // ways (a sim's 120 sets of 16 and 8 of 15, whose ramp is straight too) stay exact.
  if (ways > kMaxDistinctWays && ramp.found) return false;
  // A straight ramp shows sets that fill evenly; sets that could not have overflowed so under
  // an even fill were read off misses that are not theirs (overflows_fit_even_fill).
  if (ramp.found && !overflows_fit_even_fill(sets)) return false;
  // Nor can sets that fill in turn overflow a set of fewer ways after one of more.
  if (!overflows_in_fill_order(sets)) return false;
  // Many different ways are believed only from counts without noise: every count explained.
  return ways <= kMaxDistinctWays || sets.consistent == sets.steps;
}

double LevelSets::all_missing_mean_cycles() const {
  // Complete readings come from consecutive counts: index i is the chain of first + i elements.
  const std::size_t first = sets.all_missing_elements - first_miss_elements;
  double sum = 0;
  for (std::size_t i = first; i < mean_cycles.size(); ++i) sum += mean_cycles[i];
  return sum / static_cast<double>(std::max<std::size_t>(1, mean_cycles.size() - first));
}

FirstOverflow confirm_first_overflow(
    std::uint64_t elements, std::uint64_t first_count,
    const std::function<std::uint64_t(std::uint64_t)>& count_missing) {
  const auto median_of = [&](std::uint64_t length, std::optional<std::uint64_t> known) {
    std::vector<std::uint64_t> counts;
    if (known) counts.push_back(*known);
    while (counts.size() < kFirstCountChases) counts.push_back(count_missing(length));
    nlohmann::json check = {{"elements", length}, {"counts", counts}};
    std::nth_element(counts.begin(), counts.begin() + counts.size() / 2, counts.end());
    return std::pair{counts[counts.size() / 2], check};
  };
  FirstOverflow out;
  out.elements = elements;
  auto [missing, check] = median_of(elements, first_count);
  out.missing = missing;
  out.checks.push_back(std::move(check));
  for (std::size_t back = 0; back < kMaxFirstStepsBack && out.elements > 1; ++back) {
    auto [shorter, shorter_check] = median_of(out.elements - 1, std::nullopt);
    out.checks.push_back(std::move(shorter_check));
    if (shorter < 2) break;
    --out.elements;
    out.missing = shorter;
  }
  return out;
}

std::optional<std::uint64_t> first_length_missing(
    std::uint64_t none, std::uint64_t longest, const std::function<bool(std::uint64_t)>& misses) {
  std::optional<std::uint64_t> some;  // the shortest length known to miss
  for (std::uint64_t jump = 1; !some; jump *= 2) {
    const std::uint64_t next = std::min(none + jump, longest);
    if (next <= none) return std::nullopt;
    if (misses(next)) {
      some = next;
    } else {
      none = next;
    }
  }
  while (*some > none + 1) {
    const std::uint64_t middle = none + (*some - none) / 2;
    if (misses(middle)) {
      some = middle;
    } else {
      none = middle;
    }
  }
  return some;
}

}  // namespace memtopo::staircase
