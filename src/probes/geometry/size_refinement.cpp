// Unequal sets: a contiguous footprint overflows the smallest set first, so the size search
// finds where that happens (the first overflow), not the capacity. The per-set ways, each
// verified by chases with m lines in every set, add up to the capacity: the size is written
// again from them, the first overflow kept in the evidence.
#include <algorithm>

#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/geometry/geometry_measurement.hpp"

namespace memtopo {

void refine_size_from_unequal_sets(GeometryMeasurement& g, std::uint64_t capacity_bytes,
                                   const Confidence& ways_confidence) {
  const Property* old = any_finding(g.ctx().topology, g.element(), "size");
  if (!old || old->value == nlohmann::json(capacity_bytes)) return;
  const Property* ways = g.conclusive_ways();
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.source = Source::derived;
  p.method = "sum of the per-set ways (" + g.element() + ".ways, unequal sets) x the line (" +
             std::to_string(g.line()) + " B, " + g.line_source() +
             "); a contiguous footprint overflows the smallest set first, at the " + g.element() +
             ".size search's edge (first_overflow_bytes)";
  p.value = capacity_bytes;
  // As sure as the ways it sums; the first overflow (the size search's), which the ways were
  // planned from, caps both through the runner's `inherited` factor (core/inheritance.hpp).
  const Confidence& confidence = ways_confidence;
  p.evidence = {{"from", g.element() + ".ways"},
                {"first_overflow_bytes", old->value},
                {"first_overflow_method", old->method},
                {"first_overflow_confidence",
                 old->confidence ? nlohmann::json(*old->confidence) : nlohmann::json(nullptr)},
                {"ways_per_set", ways->value},
                {"line_bytes", g.line()},
                {"line_source", g.line_source()}};
  // What later probes read from the size's evidence (the hit/miss threshold) stays available.
  for (const char* key :
       {"threshold_cycles", "outlier_rate", "hit_cycles", "next_level_cycles", "path"}) {
    if (old->evidence.contains(key)) p.evidence[key] = old->evidence.at(key);
  }
  set_confidence(p, confidence);
  element_for(g.ctx().topology, g.element()).set(std::move(p));
}

}  // namespace memtopo
