#include "analysis/set_overflows.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

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
    ++result.consistent;
    if (increment >= 2) result.ways.push_back(increment - 1);
    before = now;
    if (now == elements) {
      result.complete = true;
      result.all_missing_elements = elements;
    }
  }
  result.entries = std::accumulate(result.ways.begin(), result.ways.end(), std::uint64_t{0});
  return result;
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
