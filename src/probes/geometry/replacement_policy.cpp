// Replacement policy from the W + 1 lines of the ways' overfull set (paper 000, 4.2): chased
// cyclically from cold, several times; periodic misses are LRU or FIFO, told apart by
// re-touching the first line; otherwise the victim ways from the recorded indices, chi-square
// against uniform (analysis/policy). Without conclusive ways, the scan test (scan_resistance).
#include <algorithm>
#include <bit>
#include <map>

#include "analysis/policy.hpp"
#include "probes/geometry/geometry_measurement.hpp"
#include "probes/geometry/scan_resistance.hpp"

namespace memtopo {
namespace {

constexpr std::uint32_t kRetouchPasses = 64;   // LRU-versus-FIFO chase
constexpr std::uint32_t kPolicyLoads = 20000;  // victim-tracking chases, all together
// Victim tracking stops at the first outlier it cannot place (analysis/policy.hpp), so the loads
// are split over several chases, each from a cold set.
constexpr std::uint32_t kPolicyChases = 8;
// A victim chase whose way distribution differs from the other chases' at this level is left out
// (its victim model went wrong partway); strict, so that chances alone rarely drop one.
constexpr double kDriftAlpha = 1e-4;

// Without the ways, the scan test still tells a scan-resistant cache from LRU-like ones. No
// path that skips only this cache: judged by the threshold the ways would have used, each chase
// alone.
void policy_by_scan_test(GeometryMeasurement& g) {
  std::optional<Property> scan;
  const GeometryTarget& target = g.target();
  if (!target.next_level_path) {
    const auto threshold = g.size_threshold();
    if (!threshold) {
      throw ProbeSkipped("needs a conclusive " + g.element() + ".ways or a measured " +
                         g.element() + ".size with threshold_cycles");
    }
    scan = scan_resistance_policy_alone(g.ctx(), g.element(), target.path, threshold->cycles);
  } else {
    scan = scan_resistance_policy(g.ctx(), g.element(), target.path, *target.next_level_path);
  }
  if (!scan) throw ProbeSkipped("needs a conclusive " + g.element() + ".ways or size");
  g.store(std::move(*scan));
}

// What the victim chases showed.
struct VictimEvidence {
  RepeatedPasses periodic;  // over all chases
  VictimCounts victims;     // pooled over the chases that did not drift
  std::vector<VictimCounts> pooled_chases;
  std::vector<std::size_t> drifted;
  std::uint32_t stopped = 0;  // chases whose tracking stopped at an outlier
};

VictimEvidence read_victim_chases(const GeometryMeasurement& g, const std::vector<Trace>& traces,
                                  const std::vector<std::uint32_t>& words, std::uint32_t ways) {
  const auto members = static_cast<std::uint32_t>(words.size());
  std::map<std::uint32_t, std::uint32_t> id_of;
  for (std::uint32_t i = 0; i < members; ++i) id_of[words[i]] = i;
  VictimEvidence out;
  std::vector<VictimCounts> per_chase;
  for (std::uint32_t t = 0; t < kPolicyChases; ++t) {
    const auto c = corrected_cycles(traces[t]);
    std::vector<bool> slow;
    std::vector<std::uint32_t> ids;
    for (std::size_t i = 0; i < c.size(); ++i) {
      slow.push_back(c[i] > g.threshold());
      ids.push_back(id_of.at(traces[t].indices[i]));
    }
    out.periodic += repeated_passes(slow, members);
    const auto kinds = classify_accesses(c, ids, g.threshold());
    const auto v = victim_ways(ids, kinds, ways);
    per_chase.push_back(v);
    if (v.stopped_at != SIZE_MAX) ++out.stopped;
  }
  out.victims = pool_homogeneous_victims(per_chase, kDriftAlpha, out.drifted);
  for (std::size_t i = 0; i < per_chase.size(); ++i) {
    if (std::find(out.drifted.begin(), out.drifted.end(), i) == out.drifted.end())
      out.pooled_chases.push_back(per_chase[i]);
  }
  return out;
}

// The re-touch chase: the fraction of passes in which the re-touched first line missed (-1
// without touches) and what it says.
std::pair<double, LruFifo> read_retouch_chase(const GeometryMeasurement& g, const Trace& rt,
                                              std::uint32_t first_word) {
  const auto rc = corrected_cycles(rt);
  std::size_t touches = 0, slow_touches = 0;
  for (std::size_t i = 0; i < rc.size(); ++i) {
    if (rt.indices[i] != first_word) continue;
    ++touches;
    if (rc[i] > g.threshold()) ++slow_touches;
  }
  if (!touches) return {-1, LruFifo{}};
  return {static_cast<double>(slow_touches) / static_cast<double>(touches),
          lru_or_fifo(slow_touches, touches)};
}

}  // namespace

void measure_policy(GeometryMeasurement& g) {
  if (!g.conclusive_ways()) {
    policy_by_scan_test(g);
    return;
  }
  const Property& w = g.plan_from_ways();
  const auto group = w.evidence.at("overflow_lines").get<std::vector<std::uint64_t>>();
  const auto ways = static_cast<std::uint32_t>(group.size() - 1);
  std::vector<std::uint32_t> words;
  for (auto x : group) words.push_back(g.word_of_line(x));
  const auto members = static_cast<std::uint32_t>(group.size());
  const std::uint32_t timed =
      std::max(kPolicyLoads / kPolicyChases / members, kRetouchPasses) * members;  // whole passes
  std::vector<ChaseSpec> specs;
  for (std::uint32_t i = 0; i < kPolicyChases; ++i)
    specs.push_back(g.explicit_chase(words, 0, timed));
  // Re-touch: a0, a1 .. a(W-1), a0 again (its second word, same sector), then aW.
  const bool retouch = ways >= 2;
  if (retouch) {
    std::vector<std::uint32_t> r(words.begin(), words.end() - 1);
    r.push_back(words.front() + 1);
    r.push_back(words.back());
    specs.push_back(g.explicit_chase(r, 1, (members + 1) * kRetouchPasses));
  }
  g.isolate_arrays(!w.value.is_number() &&
                   !std::has_single_bit(w.evidence.at("sets").get<std::uint64_t>()));
  const auto traces = g.run_set_targeted(specs, "policy");
  const VictimEvidence victims = read_victim_chases(g, traces, words, ways);
  const auto [first_touch_slow, lf] =
      retouch ? read_retouch_chase(g, traces[kPolicyChases], words.front())
              : std::pair<double, LruFifo>{-1, LruFifo{}};
  const auto verdict =
      classify_policy(victims.periodic, lf, victims.victims, victims.pooled_chases);
  Property p;
  p.name = "policy";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "the W + 1 lines of one overfull set chased cyclically from cold, several times (paper 000, "
      "4.2): periodic misses = LRU/FIFO, told apart by re-touching the first line; otherwise "
      "victim ways from the recorded indices, chi-square against uniform";
  p.evidence = {{"from", g.element() + ".ways"},
                {"set_lines", group},
                {"ways", ways},
                {"periodic_fraction", victims.periodic.fraction()},
                {"retouch_first_touch_slow_fraction", first_touch_slow},
                {"victims_per_way", victims.victims.per_way},
                {"victims", victims.victims.victims},
                {"inconsistencies", victims.victims.inconsistencies},
                {"victim_chases", kPolicyChases},
                {"victim_chases_stopped_at_an_outlier", victims.stopped},
                {"victim_chases_left_out_as_drifted", victims.drifted},
                {"why", verdict.why},
                {"loads", g.loads()},
                {"batches", g.batches()}};
  if (!verdict.weights.empty()) {
    p.evidence["estimated_weights"] = verdict.weights;
    p.evidence["chi_square"] = {{"statistic", verdict.chi_square.statistic},
                                {"dof", verdict.chi_square.dof},
                                {"p_value", verdict.chi_square.p_value},
                                {"alpha", kPolicyAlpha}};
  }
  if (verdict.policy.empty()) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = verdict.why;
    g.store(std::move(p));
    return;
  }
  p.value = verdict.policy;
  g.write(std::move(p), verdict.confidence);
}

}  // namespace memtopo
