#include "probes/latency/miss_penalty_probe.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "model/units.hpp"
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

// "521 / 710 cy (44 % / 56 %)"-like list of a latency's modes for the evidence, or null.
nlohmann::json modes_text_of(const Property& latency) {
  if (latency.modes.empty()) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const Mode& mode : latency.modes) {
    out.push_back({{"name", mode.name}, {"cycles", mode.value}, {"share", mode.share}});
  }
  return out;
}

// A conclusive latency of this run with its spread (what the penalty subtracts), or nullptr.
const Property* latency_with_spread(const Topology& topology, const std::string& element) {
  const Property* p = conclusive_finding(topology, element, "latency");
  return p && p->spread ? p : nullptr;
}

nlohmann::json latency_evidence(const std::string& element, const Property& latency) {
  return {{"property", element + ".latency"},
          {"cycles", spread_evidence(*latency.spread)},
          {"confidence", latency.confidence ? nlohmann::json(*latency.confidence) : nullptr},
          {"modes", modes_text_of(latency)}};
}

// Mode i of a latency; one of one mode is the latency itself (its value, spread, confidence).
Mode mode_or_whole(const Property& latency, std::size_t i) {
  if (i < latency.modes.size()) return latency.modes[i];
  return Mode{"", latency.value.get<double>(), 1.0, *latency.spread, latency.confidence,
              nlohmann::json::array()};
}

// The penalty of each mode: mode i of the next level minus mode i of the element (near minus
// near, far minus far; a latency of one mode stands for both of its sides), with the next
// level's shares (the misses'), else the element's; as sure as the less sure of the two.
std::vector<Mode> penalty_modes(const Property& hit, const Property& next) {
  const Property& named = next.modes.empty() ? hit : next;
  std::vector<Mode> modes;
  for (std::size_t i = 0; i < named.modes.size(); ++i) {
    const Mode a = mode_or_whole(next, i), b = mode_or_whole(hit, i);
    Mode m;
    m.name = named.modes[i].name;
    m.share = named.modes[i].share;
    m.spread = difference_spread(a.spread, b.spread);
    m.value = m.spread.p50;
    std::vector<double> sure;
    for (const Mode* side : {&a, &b}) {
      if (side->confidence) sure.push_back(*side->confidence);
    }
    if (!sure.empty()) {
      const Confidence c{weakest_of(sure, "the two latencies' " + m.name + " modes")};
      m.confidence = c.value();
      m.confidence_factors = c.evidence();
    }
    modes.push_back(std::move(m));
  }
  return modes;
}

// The typical penalty: the typical latencies' difference (typical_value: each latency's modes
// weighted by their shares), what a miss costs on average over near and far lines.
nlohmann::json typical_evidence(const Property& hit, const Property& next) {
  const double hit_typical = *typical_value(hit), next_typical = *typical_value(next);
  return {{"cycles", next_typical - hit_typical},
          {"next_level_cycles", next_typical},
          {"hit_cycles", hit_typical},
          {"rule", "each latency's modes' p50 weighted by their shares (the p50 for one mode)"}};
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
  const bool modes = !hit->modes.empty() || !next->modes.empty();
  p.method = target_.next_level + ".latency p50 minus " + target_.element +
             ".latency p50 (overhead-corrected cycles" +
             (modes ? "; of the near modes where a latency has two: near minus near" : "") +
             "); spread: the difference of the two spreads (p5 = next p5 - hit p95, p95 = next "
             "p95 - hit p5)";
  p.spread = difference_spread(*next->spread, *hit->spread);
  p.value = p.spread->p50;
  p.evidence = {{"hit", latency_evidence(target_.element, *hit)},
                {"next_level", latency_evidence(target_.next_level, *next)},
                {"typical", typical_evidence(*hit, *next)}};
  if (modes) {
    p.modes = penalty_modes(*hit, *next);
    p.mix = difference_spread(next->mix.value_or(*next->spread), hit->mix.value_or(*hit->spread));
    p.method += "; each mode: the next level's mode minus the element's (far minus far, or minus "
                "the one latency of a level of one mode); typical: the latencies' modes weighted "
                "by their shares";
  }
  if (!(p.spread->p50 > 0)) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = "the next level is not slower than the element: no penalty to derive";
  } else {
    // Nothing of its own against it: as sure as the less sure of the two latencies, which the
    // runner's `inherited` factor says (core/inheritance.hpp).
    set_confidence(p, Confidence{});
    if (modes) {
      p.note = "near minus near; a miss to a line behind a far partition costs " +
               format_number(p.modes.back().value, 0) + " cycles, the typical miss (modes " +
               "weighted by their shares) " +
               format_number(p.evidence.at("typical").at("cycles").get<double>(), 0);
    } else if (next->confidence && *next->confidence < kSeveralLatenciesBelow) {
      p.note = "the next level answers at more than one latency (" + target_.next_level +
               ".latency's note); the p50 difference describes only some misses";
    }
  }
  element_for(ctx.topology, target_.element).set(std::move(p));
}

}  // namespace memtopo
