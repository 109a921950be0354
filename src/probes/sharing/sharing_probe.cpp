#include "probes/sharing/sharing_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/sharing/sharing_relation.hpp"

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
// The least share of A's lines this plan evicts from a shared array is kExpectedEvictedShare
// (sharing_relation.hpp), the scale on which every direction is read.

// An element the relation includes, with the chase and sweep planned from its findings.
struct Candidate {
  const SmCacheElement* row = nullptr;
  std::uint32_t stride = 0;                // its line when measured: one load per line
  std::uint64_t chase_bytes = 0;           // A's footprint when it is the chased element
  std::vector<std::uint64_t> sweep_bytes;  // B's sweeps when it is the swept element
  std::uint64_t miss_bytes = 0;            // a chase this large on its path misses it
  std::string planned_from;                // "measured size" or the fallback used
  LevelBaselines baselines;                // its hit and next-level latencies and the fit rule
  FitVerdict control;                      // its chase after a control sweep on cg
  double overflow = 1;  // miss fraction of its overflowing chase: the contrast scale
};

class SharingMeasurement {
 public:
  explicit SharingMeasurement(ProbeContext& ctx) : ctx_(ctx), limits_(ctx.backend.limits()) {}

  // Measures and writes every compared element's shared_with; returns why the others were not
  // compared.
  std::map<std::string, std::string> run();

 private:
  // Which of A's traces of the measurement is which: its chase alone, on several capacities,
  // after the control sweep; then one trace per (A, B, sweep size).
  enum CandidateTrace : std::size_t { kAlone, kMisses, kControl, kTracesPerCandidate };

  void plan_candidates();
  std::optional<Candidate> plan_candidate(const SmCacheElement& row);
  ChaseBuilder chase_of(const Candidate& a, std::uint64_t footprint) const;
  std::vector<Trace> run_all(const std::vector<ChaseSpec>& specs);
  void measure();
  void plan_control_sweep();
  std::vector<ChaseSpec> plan_chases(std::vector<std::pair<std::size_t, std::size_t>>& pairs) const;
  std::vector<bool> judge_candidates(const std::vector<Trace>& traces);
  void judge_direction(std::size_t a, std::size_t b, const Trace& trace);
  void keep_only(const std::vector<bool>& usable);
  void conclude();
  Property finding(std::size_t a, const SharingRelation& relation) const;
  nlohmann::json pairs_evidence(std::size_t a, const SharingRelation& relation) const;
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

// The candidate planned from the row's findings, or nullopt with the reason in excluded_.
std::optional<Candidate> SharingMeasurement::plan_candidate(const SmCacheElement& row) {
  Candidate c;
  c.row = &row;
  c.stride = static_cast<std::uint32_t>(
      finding_count(ctx_.topology, row.element, "line").value_or(kSmallestLineBytes));
  const std::uint64_t limit = path_limit(row.path);
  std::uint64_t capacity = 0;  // what the plan takes the cache's size to be
  if (const auto size = finding_count(ctx_.topology, row.element, "size")) {
    capacity = *size;
    c.chase_bytes = round_down(*size / kChaseDenominator, c.stride);
    for (const double fraction : kSweepFractions) {
      c.sweep_bytes.push_back(std::max<std::uint64_t>(
          c.stride, round_down(static_cast<std::uint64_t>(fraction * *size), c.stride)));
    }
    c.planned_from = "measured size " + format_bytes(*size);
  } else if (row.path == LoadPath::constant && !probe_registered(row.element + ".size")) {
    // A build without a probe for a constant cache's size: a chase any cache holds and a sweep
    // of the whole constant bank, larger than any constant cache in front of it. (A size probe
    // that ran and found nothing excludes the cache.)
    capacity = kFitsAnyCacheBytes;
    c.chase_bytes = kFitsAnyCacheBytes;
    c.sweep_bytes = {round_down(limit, c.stride)};
    c.planned_from = row.element +
                     ".size not measured: a 1 KiB chase and a sweep of the "
                     "whole constant bank";
  } else {
    excluded_[row.element] = row.element + ".size was not measured (skipped or inconclusive)";
    return std::nullopt;
  }
  c.miss_bytes = round_down(std::min(capacity * kMissReferenceCapacities, limit), c.stride);
  if (c.chase_bytes < c.stride) {
    excluded_[row.element] = "its measured size holds less than one line";
    return std::nullopt;
  }
  return c;
}

void SharingMeasurement::plan_candidates() {
  for (const SmCacheElement& row : sm_cache_elements()) {
    if (auto c = plan_candidate(row)) candidates_.push_back(std::move(*c));
  }
}

// A's sequential chase over `footprint`, warmed twice (reused lines: what a scan-resistant
// cache keeps), every element timed once.
ChaseBuilder SharingMeasurement::chase_of(const Candidate& a, std::uint64_t footprint) const {
  return make_chase(a.row->path, footprint, a.stride)
      .warm_passes(kChaseWarmPasses)
      .timed_loads(static_cast<std::uint32_t>(
          std::min<std::uint64_t>(footprint / a.stride, limits_.max_timed_loads)));
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

// The control sweep on cg is as large as the largest sweep of any candidate.
void SharingMeasurement::plan_control_sweep() {
  for (const Candidate& b : candidates_) {
    for (const std::uint64_t bytes : b.sweep_bytes) {
      if (bytes > control_bytes_) {
        control_bytes_ = bytes;
        control_stride_ = b.stride;
      }
    }
  }
}

// Per candidate A: its chase alone, the same chase over several capacities (what its misses
// cost) and after a control sweep on cg; then one chase per pair (A, B) and sweep size of B,
// after B's sweep. `pairs` gets (A, B) per chase of the second part. One bank serves the
// constant path, so a constant sweep against a constant chase cannot be planned.
std::vector<ChaseSpec> SharingMeasurement::plan_chases(
    std::vector<std::pair<std::size_t, std::size_t>>& pairs) const {
  std::vector<ChaseSpec> specs;
  for (const Candidate& a : candidates_) {
    specs.push_back(chase_of(a, a.chase_bytes));
    specs.push_back(chase_of(a, a.miss_bytes));
    specs.push_back(chase_of(a, a.chase_bytes)
                        .evicting({LoadPath::cg, control_bytes_, control_stride_, kSweepPasses}));
  }
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    for (std::size_t b = 0; b < candidates_.size(); ++b) {
      const LoadPath pa = candidates_[a].row->path, pb = candidates_[b].row->path;
      if (a == b || (pa == LoadPath::constant && pb == LoadPath::constant)) continue;
      for (const std::uint64_t bytes : candidates_[b].sweep_bytes) {
        specs.push_back(chase_of(candidates_[a], candidates_[a].chase_bytes)
                            .evicting({pb, bytes, candidates_[b].stride, kSweepPasses}));
        pairs.emplace_back(a, b);
      }
    }
  }
  return specs;
}

// Each candidate's fit rule, overflow scale and control verdict; false for a candidate that
// cannot be compared (the reason goes to excluded_).
std::vector<bool> SharingMeasurement::judge_candidates(const std::vector<Trace>& traces) {
  std::vector<bool> usable(candidates_.size(), true);
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    Candidate& c = candidates_[a];
    const Trace* own = &traces[kTracesPerCandidate * a];
    try {
      c.baselines = judge_against_own_misses(
          own[kAlone], own[kMisses], c.row->path,
          c.row->element + " does not cache " + std::string(to_string(c.row->path)) + " loads");
    } catch (const ProbeSkipped& skipped) {
      excluded_[c.row->element] = skipped.what();
      usable[a] = false;
      continue;
    }
    c.overflow = overflow_miss_fraction(own[kMisses], c.baselines.rule);
    c.control = judge_fit(corrected_cycles(own[kControl]), own[kControl].indices, c.baselines.rule);
    if (!c.control.fits) {
      excluded_[c.row->element] =
          "its chase missed after a control sweep on cg, which reaches no SM cache: the "
          "comparison would not tell sharing from other evictions";
      usable[a] = false;
    }
  }
  return usable;
}

// A's chase after one of B's sweeps; of B's sweep sizes, the one that evicted most speaks for
// the direction.
void SharingMeasurement::judge_direction(std::size_t a, std::size_t b, const Trace& trace) {
  const Candidate& chased = candidates_[a];
  Direction d;
  d.measured = true;
  d.verdict = judge_fit(corrected_cycles(trace), trace.indices, chased.baselines.rule);
  // Misses beyond what outliers or the control sweep explain, on the scale of what a
  // certainly overflowing chase at this stride shows (see sm_caches).
  const std::size_t explained = std::max(d.verdict.allowed, chased.control.missing);
  const std::size_t unexplained = d.verdict.missing > explained ? d.verdict.missing - explained : 0;
  d.contrast = static_cast<double>(unexplained) /
               static_cast<double>(std::max<std::size_t>(d.verdict.elements, 1)) /
               std::max(chased.overflow, 1e-9);
  Direction& kept = directions_[{a, b}];
  if (!kept.measured || d.verdict.miss_fraction > kept.verdict.miss_fraction) kept = d;
}

// Drops the candidates that cannot be compared, renumbering the directions among the others.
void SharingMeasurement::keep_only(const std::vector<bool>& usable) {
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

void SharingMeasurement::measure() {
  plan_control_sweep();
  std::vector<std::pair<std::size_t, std::size_t>> pair_of_spec;  // one entry per sweep size
  const std::vector<ChaseSpec> specs = plan_chases(pair_of_spec);
  ctx_.progress("shared_with: " + std::to_string(specs.size()) + " chases for " +
                std::to_string(candidates_.size()) + " caches");
  const std::vector<Trace> traces = run_all(specs);
  const std::vector<bool> usable = judge_candidates(traces);
  const std::size_t first_pair_trace = kTracesPerCandidate * candidates_.size();
  for (std::size_t i = 0; i < pair_of_spec.size(); ++i) {
    const auto [a, b] = pair_of_spec[i];
    if (usable[a] && usable[b]) judge_direction(a, b, traces[first_pair_trace + i]);
  }
  keep_only(usable);
}

nlohmann::json direction_evidence(const Direction& d) {
  nlohmann::json j = verdict_evidence(d.verdict);
  j["evicted"] = d.evicted();
  j["contrast"] = d.contrast;
  return j;
}

// Per other element: the pair's verdict and confidence, and both directions as measured.
nlohmann::json SharingMeasurement::pairs_evidence(std::size_t a,
                                                  const SharingRelation& relation) const {
  nlohmann::json pairs = nlohmann::json::object();
  for (std::size_t b = 0; b < candidates_.size(); ++b) {
    if (b == a) continue;
    const PairConclusion& c = relation.pairs[a][b];
    const std::string& eb = candidates_[b].row->element;
    nlohmann::json entry = {{"shared", c.shared}, {"confidence", c.confidence().value()}};
    if (auto it = directions_.find({a, b}); it != directions_.end()) {
      entry["chase_after_" + eb + "_sweep"] = direction_evidence(it->second);
    }
    if (auto it = directions_.find({b, a}); it != directions_.end()) {
      entry[eb + "_chase_after_sweep"] = direction_evidence(it->second);
    }
    if (!c.contradiction.empty()) entry["contradiction"] = c.contradiction;
    pairs[eb] = std::move(entry);
  }
  return pairs;
}

Property SharingMeasurement::finding(std::size_t a, const SharingRelation& relation) const {
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
  for (std::size_t b = 0; b < candidates_.size(); ++b) {
    if (b != a && relation.pairs[a][b].shared) partners.push_back(candidates_[b].row->element);
  }
  p.value = std::move(partners);
  nlohmann::json excluded = nlohmann::json::object();
  for (const auto& [element, reason] : excluded_) excluded[element] = reason;
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
                {"pairs", pairs_evidence(a, relation)},
                {"not_compared", std::move(excluded)},
                {"contradictions", relation.contradictions},
                {"loads", loads_}};
  set_confidence(p, relation.element_confidence(a));
  const auto& contradictions = relation.contradictions;
  if (!contradictions.empty()) {
    p.note = "the measured relation is not consistent: " + contradictions.front() +
             (contradictions.size() > 1 ? " (and more, see evidence)" : "");
  } else if (!excluded_.empty()) {
    p.note = "not compared with " + excluded_.begin()->first +
             (excluded_.size() > 1 ? " and others" : "") + " (see evidence)";
  }
  return p;
}

void SharingMeasurement::conclude() {
  std::vector<std::string> elements;
  for (const Candidate& c : candidates_) elements.push_back(c.row->element);
  const SharingRelation relation = conclude_relation(elements, directions_);
  for (const std::string& c : relation.contradictions) {
    ctx_.topology.warnings.push_back("shared_with: " + c);
  }
  for (std::size_t a = 0; a < candidates_.size(); ++a) {
    element_for(ctx_.topology, candidates_[a].row->element).set(finding(a, relation));
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
    const Property* p = any_finding(topology, row.element, "shared_with");
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
    return finding_exists(ctx.topology, target_.element, "shared_with");
  };
  const auto sibling_measured = [&] {
    const auto& rows = sm_cache_elements();
    return std::any_of(rows.begin(), rows.end(), [&](const SmCacheElement& row) {
      return finding_exists(ctx.topology, row.element, "shared_with");
    });
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
  if (!finding_exists(ctx.topology, target_.element, "size")) throw ProbeSkipped(why);
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
