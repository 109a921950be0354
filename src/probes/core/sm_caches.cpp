#include "probes/core/sm_caches.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "analysis/stats.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/registry.hpp"

namespace memtopo {

const std::vector<SmCacheElement>& sm_cache_elements() {
  static const std::vector<SmCacheElement> table = {
      {"l1", LoadPath::ca},
      {"tex", LoadPath::tex},
      {"ro", LoadPath::nc},
      {"constant_l1", LoadPath::constant},
  };
  return table;
}

bool probe_registered(const std::string& id) {
  // Built once: registration constructs the probes (cheap; nothing runs), and the ids of one
  // build never change. Not all_probes(): its run order asks needs(), which asks this.
  static const std::set<std::string> registered = [] {
    std::set<std::string> ids;
    for (const auto& probe : registered_probes()) ids.insert(probe->id());
    return ids;
  }();
  return registered.count(id) > 0;
}

std::vector<std::string> registered_size_probes() {
  std::vector<std::string> needs;
  for (const SmCacheElement& row : sm_cache_elements()) {
    if (probe_registered(row.element + ".size")) needs.push_back(row.element + ".size");
  }
  return needs;
}

LevelBaselines judge_against_own_misses(const Trace& hit, const Trace& miss, LoadPath path,
                                        const std::string& not_cached_reason) {
  LevelBaselines b;
  b.hit = summarize(corrected_cycles(hit));
  b.next_level = summarize(corrected_cycles(miss));
  // clearly_faster (analysis/stats) on the misses' p95 instead of their p5 and p50: the lower
  // part of an overflowing chase may hold hits within a line.
  constexpr double kMinRelativeGap = 0.1;
  if (!(b.hit.p95 < b.next_level.p95 && b.hit.p50 < b.next_level.p95 * (1 - kMinRelativeGap))) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers,
                  ": p50 %.1f cycles within its size vs p95 %.1f beyond it, via %s", b.hit.p50,
                  b.next_level.p95, std::string(to_string(path)).c_str());
    throw ProbeSkipped(not_cached_reason + numbers);
  }
  b.rule = fit_rule_for({.hit_cycles = b.hit.p50, .next_level_cycles = b.next_level.p95});
  return b;
}

double overflow_miss_fraction(const Trace& miss, const FitRule& rule) {
  return judge_fit(corrected_cycles(miss), miss.indices, rule).miss_fraction;
}

}  // namespace memtopo
