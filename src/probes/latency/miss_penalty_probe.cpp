#include "probes/latency/miss_penalty_probe.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/latency/latency_probe.hpp"

namespace memtopo {

const std::vector<MissPenaltyTarget>& miss_penalty_targets() {
  static const std::vector<MissPenaltyTarget> table = {
      {"l1", "l2", "L1 miss penalty: l2.latency minus l1.latency (derived)"},
      {"tex", "l2", "texture cache miss penalty: l2.latency minus tex.latency (derived)"},
      {"ro", "l2", "read-only cache miss penalty: l2.latency minus ro.latency (derived)"},
      {"l2", "dram", "L2 miss penalty: dram.latency minus l2.latency (derived)"},
  };
  return table;
}

Spread difference_spread(const Spread& next_level, const Spread& hit) {
  Spread d;
  d.p50 = next_level.p50 - hit.p50;
  d.mean = next_level.mean - hit.mean;
  d.stdev = std::hypot(next_level.stdev, hit.stdev);
  d.p5 = next_level.p5 - hit.p95;
  d.p95 = next_level.p95 - hit.p5;
  d.min = next_level.min - hit.max;
  d.max = next_level.max - hit.min;
  d.samples = std::min(next_level.samples, hit.samples);
  return d;
}

namespace {

// A conclusive latency of this run with its spread (what the penalty subtracts), or nullptr.
const Property* latency_with_spread(const Topology& topology, const std::string& element) {
  const Property* p = conclusive_finding(topology, element, "latency");
  return p && p->spread ? p : nullptr;
}

nlohmann::json latency_evidence(const std::string& element, const Property& latency) {
  return {{"property", element + ".latency"},
          {"cycles", spread_evidence(*latency.spread)},
          {"confidence", latency.confidence ? nlohmann::json(*latency.confidence) : nullptr}};
}

}  // namespace

void MissPenaltyProbe::run(ProbeContext& ctx) {
  const Property* hit = latency_with_spread(ctx.topology, target_.element);
  const Property* next = latency_with_spread(ctx.topology, target_.next_level);
  if (!hit || !next) {
    throw ProbeSkipped("needs measured " + target_.element + ".latency and " + target_.next_level +
                       ".latency (absent or inconclusive in this run)");
  }
  Property p;
  p.name = "miss_penalty";
  p.unit = "cycles";
  p.source = Source::derived;
  p.method = target_.next_level + ".latency p50 minus " + target_.element +
             ".latency p50 (overhead-corrected cycles); spread: the difference of the two "
             "spreads (p5 = next p5 - hit p95, p95 = next p95 - hit p5)";
  p.spread = difference_spread(*next->spread, *hit->spread);
  p.value = p.spread->p50;
  p.evidence = {{"hit", latency_evidence(target_.element, *hit)},
                {"next_level", latency_evidence(target_.next_level, *next)}};
  if (!(p.spread->p50 > 0)) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = "the next level is not slower than the element: no penalty to derive";
  } else {
    // Nothing of its own against it: as sure as the less sure of the two latencies, which the
    // runner's `inherited` factor says (core/inheritance.hpp).
    set_confidence(p, Confidence{});
    if (next->confidence && *next->confidence < kSeveralLatenciesBelow) {
      p.note = "the next level answers at more than one latency (" + target_.next_level +
               ".latency's note); the p50 difference describes only some misses";
    }
  }
  element_for(ctx.topology, target_.element).set(std::move(p));
}

}  // namespace memtopo
