#pragma once
// The SM-local caches that the sharing and per-SM probes compare, as one table: the element,
// the load path it caches, and how a probe reads its measured size and line from the topology.
// One row per cache; the probes iterate it, never a copy per cache.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/experiment.hpp"
#include "model/topology.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"

namespace memtopo {

struct SmCacheElement {
  std::string element;  // element id, e.g. "tex"
  LoadPath path;        // the loads it caches
};

// l1 (ca), tex (tex), ro (nc), constant_l1 (const).
const std::vector<SmCacheElement>& sm_cache_elements();

// Whether this build registers a probe with this id, for needs() that name probes another build
// may not have yet (constant_l1.size): what is not registered cannot be needed.
bool probe_registered(const std::string& id);

// The "<element>.size" probe ids of the table that this build registers.
std::vector<std::string> registered_size_probes();

// The fit rule of an element from a warm chase that fits it (`hit`) and one on the same path and
// stride that overflows it (`miss`): the threshold midway between the hits' median and the
// misses' p95. The p95, because at a stride below the line (the line not measured) the loads
// after the first of each line still hit: only the upper part of the overflowing chase is
// sure to be misses. Unlike a reference on cg, this holds for caches whose misses another
// SM-local level answers (constant L1 misses by the constant L1.5). Throws ProbeSkipped with
// `not_cached_reason` and both medians unless the hits are clearly faster.
LevelBaselines judge_against_own_misses(const Trace& hit, const Trace& miss, LoadPath path,
                                        const std::string& not_cached_reason);

// The miss fraction (FitVerdict::miss_fraction) of the overflowing chase under `rule`: the most
// that a chase at this stride can show when its lines are all evicted, the scale on which the
// probes' contrasts are read (1 at a line stride, 1/2 at half a line ...).
double overflow_miss_fraction(const Trace& miss, const FitRule& rule);

}  // namespace memtopo
