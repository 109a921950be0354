#include "probes/sharing/sharing_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"

namespace memtopo {
namespace {

// Plan of one direction (A chased, B swept), after what an H100 showed: its L1 resists scans.
// A sweep whose lines are never used again (a single pass, or one larger than the cache)
// displaced none of a warm chase's lines, whatever its size; a sweep that fits the cache and
// is repeated competes like any reused data. So A's chase covers a quarter of A (warm twice),
// and B's sweeps cover 0.8 and 0.9 of B, eight passes each: under LRU the two together
// overflow a shared array by 5-15% of it, which evicts 20-60% of the chase's lines; on the H100
// the same plan evicted 30-40% (a quarter plus 0.75-0.9 of the unified L1).
constexpr std::uint64_t kChaseDenominator = 4;
constexpr double kSweepFractions[] = {0.8, 0.9};
constexpr std::uint32_t kSweepPasses = 8;
constexpr std::uint32_t kChaseWarmPasses = 2;
// The smallest share of A's lines the plan evicts from a shared LRU array (5% of the array
// over a chase of a quarter of it): a contrast this large is full confidence in sharing.
constexpr double kExpectedEvictedShare = 0.2;
// When a build has no probe for a constant cache's size: the chase covers 1 KiB (where the size
// searches start, which any cache holds) and the sweep the whole constant bank, larger than any
// constant cache in front of it. (A size probe that ran and found nothing excludes the cache.)
constexpr std::uint64_t kFallbackChaseBytes = 1024;
// A pair whose two directions disagree is reported at this fraction of its confidence.
constexpr double kContradictionPenalty = 0.5;

// An element the relation includes, with the chase and sweep planned from its findings.
struct Candidate {
  const SmCacheElement* row = nullptr;
  std::uint32_t stride = 0;       // its line when measured: one load per line
  std::uint64_t chase_bytes = 0;  // A's footprint when it is the chased element
  std::vector<std::uint64_t> sweep_bytes;  // B's sweeps when it is the swept element
  std::uint64_t miss_bytes = 0;   // a chase this large on its path misses it
  std::string planned_from;       // "measured size" or the fallback used
  LevelBaselines baselines;       // its hit and next-level latencies and the fit rule
  FitVerdict control;             // its chase after a control sweep on cg
  double overflow = 1;            // miss fraction of its overflowing chase: the contrast scale
};

// A's chase after B's sweep.
struct Direction {
  bool measured = false;
  FitVerdict verdict;
  // A's miss fraction after B's sweep minus after the control sweep, over A's overflow fraction
  double contrast = 0;
  bool evicted() const { return measured && !verdict.fits; }
};

class SharingMeasurement {
 public:
  explicit SharingMeasurement(ProbeContext& ctx) : ctx_(ctx), limits_(ctx.backend.limits()) {}

  // Measures and writes every compared element's shared_with; returns why the others were not
  // compared.
  std::map<std::string, std::string> run();

 private:
  void plan_candidates();
  ChaseSpec chase_of(const Candidate& a) const;
  std::vector<Trace> run_all(const std::vector<ChaseSpec>& specs);
  void measure();
  void conclude();
  std::uint64_t path_limit(LoadPath path) const {
    return path == LoadPath::constant ? limits_.max_constant_footprint_bytes
                                      : limits_.max_footprint_bytes;
  }

  ProbeContext& ctx_;
  BackendLimits limits_;
  std::vector<Candidate> candidates_;
  std::map<std::string, std::string> excluded_;  // element -> why it is not compared
  std::map<std::pair<std::size_t, std::size_t>, Direction> directions_;  // (A, B) -> result
  std::uint64_t control_bytes_ = 0;
  std::uint32_t control_stride_ = kSmallestLineBytes;
  std::uint64_t loads_ = 0;
};

void SharingMeasurement::plan_candidates() {
  for (const SmCacheElement& row : sm_cache_elements()) {
    Candidate c;
    c.row = &row;
    c.stride = measured_line_or(ctx_.topology, row.element, kSmallestLineBytes);
    const std::uint64_t limit = path_limit(row.path);
    std::uint64_t capacity = 0;  // what the plan takes the cache's size to be
    if (const auto size = measured_size(ctx_.topology, row.element)) {
      capacity = *size;
      c.chase_bytes = round_down(*size / kChaseDenominator, c.stride);
      for (const double fraction : kSweepFractions) {
        c.sweep_bytes.push_back(std::max<std::uint64_t>(
            c.stride, round_down(static_cast<std::uint64_t>(fraction * *size), c.stride)));
      }
      c.planned_from = "measured size " + format_bytes(*size);
    } else if (row.path == LoadPath::constant && !probe_registered(row.element + ".size")) {
      capacity = kFallbackChaseBytes;
      c.chase_bytes = kFallbackChaseBytes;
      c.sweep_bytes = {round_down(limit, c.stride)};
      c.planned_from = row.element +
                       ".size not measured: a 1 KiB chase and a sweep of the "
                       "whole constant bank";
    } else {
      excluded_[row.element] = row.element + ".size was not measured (skipped or inconclusive)";
      continue;
    }
    c.miss_bytes = round_down(std::min(capacity * kMissReferenceCapacities, limit), c.stride);
    if (c.chase_bytes < c.stride) {
      excluded_[row.element] = "its measured size holds less than one line";
      continue;
    }
    candidates_.push_back(std::move(c));
  }
}

ChaseSpec SharingMeasurement::chase_of(const Candidate& a) const {
  ChaseSpec spec;
  spec.path = a.row->path;
  spec.footprint_bytes = a.chase_bytes;
  spec.stride_bytes = a.stride;
  spec.order = ChaseOrder::sequential;
  spec.warm_passes = kChaseWarmPasses;  // reused lines: what a scan-resistant cache keeps
  spec.timed_loads = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(a.chase_bytes / a.stride, limits_.max_timed_loads));
  return spec;
}

std::vector<Trace> SharingMeasurement::run_all(const std::vector<ChaseSpec>& specs) {
  // Independent chases, one per SM: batches of as many as the device runs at once.
  const std::size_t slots = std::max<std::uint32_t>(1, limits_.concurrent_slots);
  std::vector<Trace> traces;
  for (std::size_t first = 0; first < specs.size(); first += slots) {
    const std::vector<ChaseSpec> batch(specs.begin() + first,
                                       specs.begin() + std::min(specs.size(), first + slots));
    auto done = ctx_.run(batch, "shared_with");
    for (const auto& spec : batch) loads_ += loads_of(spec);
    std::move(done.begin(), done.end(), std::back_inserter(traces));
  }
  return traces;
}

void SharingMeasurement::measure() {
  for (const Candidate& b : candidates_) {
    for (const std::uint64_t bytes : b.sweep_bytes) {
      if (bytes > control_bytes_) {
        control_bytes_ = bytes;
        control_stride_ = b.stride;
      }
    }
  }
  // Per candidate A: its chase alone, the same chase on cg (the level behind it) and after a
  // control sweep on cg; then one chase per pair (A, B) after B's sweep. One bank serves the
  // constant path, so a constant sweep against a constant chase cannot be planned.
  std::vector<ChaseSpec> specs;
  std::vector<std::pair<std::size_t, std::size_t>> pair_of_spec;  // one entry per sweep size
  for (const Candidate& a : candidates_) {
    const ChaseSpec alone = chase_of(a);
    ChaseSpec misses = alone;  // several capacities on the same path: what its misses cost
    misses.footprint_bytes = a.miss_bytes;
    misses.timed_loads = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(a.miss_bytes / a.stride, limits_.max_timed_loads));
    ChaseSpec control = alone;
    control.eviction = EvictionSweep{LoadPath::cg, control_bytes_, control_stride_, kSweepPasses};
    specs.insert(specs.end(), {alone, misses, control});
  }
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    for (std::size_t b = 0; b < candidates_.size(); ++b) {
      const LoadPath pa = candidates_[a].row->path, pb = candidates_[b].row->path;
      if (a == b || (pa == LoadPath::constant && pb == LoadPath::constant)) continue;
      for (const std::uint64_t bytes : candidates_[b].sweep_bytes) {
        ChaseSpec spec = chase_of(candidates_[a]);
        spec.eviction = EvictionSweep{pb, bytes, candidates_[b].stride, kSweepPasses};
        specs.push_back(std::move(spec));
        pair_of_spec.emplace_back(a, b);
      }
    }
  }
  ctx_.progress("shared_with: " + std::to_string(specs.size()) + " chases for " +
                std::to_string(candidates_.size()) + " caches");
  const std::vector<Trace> traces = run_all(specs);

  std::vector<bool> usable(candidates_.size(), true);
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    Candidate& c = candidates_[a];
    const Trace& alone = traces[3 * a];
    try {
      c.baselines = judge_against_own_misses(
          alone, traces[3 * a + 1], c.row->path,
          c.row->element + " does not cache " + std::string(to_string(c.row->path)) + " loads");
    } catch (const ProbeSkipped& skipped) {
      excluded_[c.row->element] = skipped.what();
      usable[a] = false;
      continue;
    }
    c.overflow = overflow_miss_fraction(traces[3 * a + 1], c.baselines.rule);
    const Trace& control = traces[3 * a + 2];
    c.control = judge_fit(corrected_cycles(control), control.indices, c.baselines.rule);
    if (!c.control.fits) {
      excluded_[c.row->element] =
          "its chase missed after a control sweep on cg, which reaches no SM cache: the "
          "comparison would not tell sharing from other evictions";
      usable[a] = false;
    }
  }
  for (std::size_t i = 0; i < pair_of_spec.size(); ++i) {
    const auto [a, b] = pair_of_spec[i];
    if (!usable[a] || !usable[b]) continue;
    const Trace& trace = traces[3 * candidates_.size() + i];
    Direction d;
    d.measured = true;
    d.verdict = judge_fit(corrected_cycles(trace), trace.indices, candidates_[a].baselines.rule);
    // Misses beyond what outliers or the control sweep explain, on the scale of what a
    // certainly overflowing chase at this stride shows (see sm_caches).
    const std::size_t explained = std::max(d.verdict.allowed, candidates_[a].control.missing);
    const std::size_t unexplained = d.verdict.missing > explained ? d.verdict.missing - explained : 0;
    d.contrast = static_cast<double>(unexplained) /
                 static_cast<double>(std::max<std::size_t>(d.verdict.elements, 1)) /
                 std::max(candidates_[a].overflow, 1e-9);
    // Of B's sweep sizes, the one that evicted most speaks for the direction.
    Direction& kept = directions_[{a, b}];
    if (!kept.measured || d.verdict.miss_fraction > kept.verdict.miss_fraction) kept = d;
  }
  // Drop the unusable candidates from what is reported.
  std::vector<std::size_t> kept;
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    if (usable[a]) kept.push_back(a);
  }
  std::map<std::pair<std::size_t, std::size_t>, Direction> renumbered;
  std::vector<Candidate> remaining;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    remaining.push_back(candidates_[kept[i]]);
    for (std::size_t j = 0; j < kept.size(); ++j) {
      if (auto it = directions_.find({kept[i], kept[j]}); it != directions_.end()) {
        renumbered[{i, j}] = it->second;
      }
    }
  }
  candidates_ = std::move(remaining);
  directions_ = std::move(renumbered);
}

// One unordered pair's conclusion from its (up to) two directions.
struct PairConclusion {
  bool shared = false;
  double confidence = 0;
  std::string contradiction;  // non-empty when the directions disagree
};

// Confidence that a direction shows sharing (or, with `shared` false, that it does not): its
// contrast on the scale of the share the plan evicts from a shared array.
double direction_confidence(double contrast, bool shared) {
  const double scaled = std::clamp(contrast / kExpectedEvictedShare, 0.0, 1.0);
  return shared ? scaled : 1 - scaled;
}

PairConclusion conclude_pair(const Direction* ab, const Direction* ba, const std::string& a,
                             const std::string& b) {
  PairConclusion c;
  const Direction* only = ab && ab->measured ? ab : ba;
  const bool both = ab && ba && ab->measured && ba->measured;
  if (!both) {
    c.shared = only->evicted();
    c.confidence = direction_confidence(only->contrast, c.shared);
    return c;
  }
  if (ab->evicted() == ba->evicted()) {
    c.shared = ab->evicted();
    c.confidence = std::min(direction_confidence(ab->contrast, c.shared),
                            direction_confidence(ba->contrast, c.shared));
    return c;
  }
  // One direction evicted and the other did not: a positive observation (B's loads reached
  // A's lines) outweighs an absent one, but the pair is flagged.
  const Direction& evicting = ab->evicted() ? *ab : *ba;
  c.shared = true;
  c.confidence = direction_confidence(evicting.contrast, true) * kContradictionPenalty;
  c.contradiction = ab->evicted() ? a + "'s chase missed after a " + b + " sweep, but " + b +
                                        "'s did not after an " + a + " sweep"
                                  : b + "'s chase missed after an " + a + " sweep, but " + a +
                                        "'s did not after a " + b + " sweep";
  return c;
}

nlohmann::json direction_evidence(const Direction& d) {
  nlohmann::json j = verdict_evidence(d.verdict);
  j["evicted"] = d.evicted();
  j["contrast"] = d.contrast;
  return j;
}

void SharingMeasurement::conclude() {
  const std::size_t n = candidates_.size();
  std::vector<std::vector<PairConclusion>> pair(n, std::vector<PairConclusion>(n));
  std::vector<std::string> contradictions;
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      const auto ab = directions_.find({a, b});
      const auto ba = directions_.find({b, a});
      const Direction* pab = ab == directions_.end() ? nullptr : &ab->second;
      const Direction* pba = ba == directions_.end() ? nullptr : &ba->second;
      pair[a][b] =
          conclude_pair(pab, pba, candidates_[a].row->element, candidates_[b].row->element);
      pair[b][a] = pair[a][b];
      if (!pair[a][b].contradiction.empty()) contradictions.push_back(pair[a][b].contradiction);
    }
  }
  // Storage sharing is an equivalence: A~B and B~C must give A~C.
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      for (std::size_t c = a + 1; c < n; ++c) {
        if (b == a || b == c || !pair[a][b].shared || !pair[b][c].shared || pair[a][c].shared) {
          continue;
        }
        const std::string& ea = candidates_[a].row->element;
        const std::string& eb = candidates_[b].row->element;
        const std::string& ec = candidates_[c].row->element;
        contradictions.push_back("not transitive: " + ea + " shares with " + eb + " and " + eb +
                                 " with " + ec + ", but " + ea + " not with " + ec);
      }
    }
  }
  for (const std::string& c : contradictions) {
    ctx_.topology.warnings.push_back("shared_with: " + c);
  }

  nlohmann::json excluded = nlohmann::json::object();
  for (const auto& [element, reason] : excluded_) excluded[element] = reason;
  for (std::size_t a = 0; a < n; ++a) {
    const Candidate& ca = candidates_[a];
    Property p;
    p.name = "shared_with";
    p.unit = "";
    p.source = Source::measured;
    p.method =
        "warm a sequential chase over 1/4 of the element's size twice, sweep another cache's "
        "path 8 times over 0.8 and 0.9 of that cache's size (an array of its own; reused, "
        "so that a scan-resistant cache keeps it), time the chase again; misses beyond those "
        "after a control sweep on cg mean the two share storage (thesis 004, 4.5); every "
        "ordered pair, the relation made symmetric and checked for transitivity";
    nlohmann::json partners = nlohmann::json::array();
    nlohmann::json pairs = nlohmann::json::object();
    double confidence = 1;
    for (std::size_t b = 0; b < n; ++b) {
      if (b == a) continue;
      const PairConclusion& c = pair[a][b];
      const std::string& eb = candidates_[b].row->element;
      if (c.shared) partners.push_back(eb);
      confidence = std::min(confidence, c.confidence);
      nlohmann::json entry = {{"shared", c.shared}, {"confidence", c.confidence}};
      if (auto it = directions_.find({a, b}); it != directions_.end()) {
        entry["chase_after_" + eb + "_sweep"] = direction_evidence(it->second);
      }
      if (auto it = directions_.find({b, a}); it != directions_.end()) {
        entry[eb + "_chase_after_sweep"] = direction_evidence(it->second);
      }
      if (!c.contradiction.empty()) entry["contradiction"] = c.contradiction;
      pairs[eb] = std::move(entry);
    }
    p.value = std::move(partners);
    p.confidence = confidence;
    p.evidence = {{"path", to_string(ca.row->path)},
                  {"chase_bytes", ca.chase_bytes},
                  {"sweep_bytes", ca.sweep_bytes},
                  {"sweep_passes", kSweepPasses},
                  {"stride_bytes", ca.stride},
                  {"planned_from", ca.planned_from},
                  {"hit_cycles", spread_evidence(ca.baselines.hit)},
                  {"next_level_cycles", spread_evidence(ca.baselines.next_level)},
                  {"threshold_cycles", ca.baselines.rule.threshold_cycles},
                  {"overflow_miss_fraction", ca.overflow},
                  {"control_sweep", verdict_evidence(ca.control, control_bytes_)},
                  {"pairs", std::move(pairs)},
                  {"not_compared", excluded},
                  {"contradictions", contradictions},
                  {"loads", loads_}};
    if (!contradictions.empty()) {
      p.note = "the measured relation is not consistent: " + contradictions.front() +
               (contradictions.size() > 1 ? " (and more, see evidence)" : "");
    } else if (!excluded_.empty()) {
      p.note = "not compared with " + excluded_.begin()->first +
               (excluded_.size() > 1 ? " and others" : "") + " (see evidence)";
    }
    element_for(ctx_.topology, ca.row->element).set(std::move(p));
  }
}

std::map<std::string, std::string> SharingMeasurement::run() {
  plan_candidates();
  if (candidates_.size() >= 2) measure();
  if (candidates_.size() >= 2) {
    conclude();
  } else {
    for (const Candidate& c : candidates_) {
      excluded_[c.row->element] = "no other SM cache could be compared with it";
    }
  }
  return excluded_;
}

// Why `element` has no shared_with, from a sibling's evidence: its "not compared" list.
std::string exclusion_reason(const Topology& topology, const std::string& element) {
  for (const SmCacheElement& row : sm_cache_elements()) {
    const Element* e = topology.find(row.element);
    const Property* p = e ? e->find("shared_with") : nullptr;
    if (!p || !p->evidence.contains("not_compared")) continue;
    const auto& excluded = p->evidence["not_compared"];
    if (excluded.contains(element)) return excluded[element].get<std::string>();
  }
  return "fewer than two SM caches could be compared";
}

}  // namespace

std::string SharingProbe::description() const {
  return "caches sharing storage with " + target_.element +
         ": chase, sweep another cache's path, chase again (every pair at once)";
}

void SharingProbe::run(ProbeContext& ctx) {
  const auto has_finding = [&] {
    const Element* e = ctx.topology.find(target_.element);
    return e && e->find("shared_with");
  };
  const auto sibling_measured = [&] {
    for (const SmCacheElement& row : sm_cache_elements()) {
      const Element* e = ctx.topology.find(row.element);
      if (e && e->find("shared_with")) return true;
    }
    return false;
  };
  // A sibling probe of this run measured the whole relation already.
  if (has_finding()) return;
  std::string why;
  if (sibling_measured()) {
    why = exclusion_reason(ctx.topology, target_.element);
  } else {
    const auto excluded = SharingMeasurement(ctx).run();
    if (has_finding()) return;
    const auto reason = excluded.find(target_.element);
    why = reason != excluded.end() ? reason->second : "no other SM cache could be compared with it";
  }
  // An element whose size probe did not apply is skipped like it; one whose size search ran
  // without a conclusion gets an inconclusive finding, like its size.
  if (!has_size_finding(ctx.topology, target_.element)) throw ProbeSkipped(why);
  set_inconclusive(ctx.topology, target_.element, "shared_with",
                   "chase, sweep another cache's path, chase again (thesis 004, 4.5)", why);
}

std::vector<std::unique_ptr<Probe>> sharing_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const SmCacheElement& row : sm_cache_elements()) {
    probes.push_back(std::make_unique<SharingProbe>(row));
  }
  return probes;
}

}  // namespace memtopo
