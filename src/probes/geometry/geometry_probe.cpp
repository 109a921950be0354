#include "probes/geometry/geometry_probe.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "analysis/associativity.hpp"
#include "analysis/policy.hpp"
#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/geometry/scan_resistance.hpp"

namespace memtopo {

const std::vector<GeometryTarget>& geometry_targets() {
  static const std::vector<GeometryTarget> table = {
      {"l1", LoadPath::ca, LoadPath::cg},
      {"tex", LoadPath::tex, LoadPath::cg},
      {"ro", LoadPath::nc, LoadPath::cg},
      // L2: cg loads skip L1; the threshold is l2.size's (L2 hit against DRAM).
      {"l2", LoadPath::cg, std::nullopt, true},
      // The constant L1: its threshold is constant_l1.size's (against the L1.5).
      {"constant_l1", LoadPath::constant, std::nullopt},
  };
  return table;
}

namespace {

constexpr std::uint32_t kPasses = 8;  // timed passes of overflow and set chases
// A device-wide cache is tens of MiB: one pass of a C + b chase at the line is C / b loads
// (400 k on a 50 MiB L2, about 12 ms of simulation each). An overfull LRU or FIFO set misses on
// every pass, so two timed passes (two slow accesses per missing line) already tell its lines.
constexpr std::uint32_t kDeviceWidePasses = 2;
// A device-wide cache's runs chase reaches this many lines past its size at least, so that the
// overfull sets' runs show even when the size search's edge is exact.
constexpr std::uint64_t kMinRunLines = 8;
// Sets of a device-wide cache checked with W and W + 1 lines each (every set when fewer): the
// runs chase verifies only the k overfull sets, and a full per-set search would chase the
// whole cache twice more.
constexpr std::uint64_t kSampledSets = 256;
constexpr std::uint32_t kRandomPasses = 128;   // when the misses are not periodic
constexpr std::uint32_t kRandomMinSlow = 4;    // slow accesses a line needs then
constexpr std::uint32_t kLinePasses = 4;       // line-size hypothesis chases
constexpr std::uint32_t kRetouchPasses = 64;   // LRU-versus-FIFO chase
constexpr std::uint32_t kPolicyLoads = 20000;  // victim-tracking chases, all together
// Victim tracking stops at the first outlier it cannot place (analysis/policy.hpp), so the loads
// are split over several chases, each from a cold set.
constexpr std::uint32_t kPolicyChases = 8;
// A victim chase whose way distribution differs from the other chases' at this level is left out
// (its victim model went wrong partway); strict, so that chances alone rarely drop one.
constexpr double kDriftAlpha = 1e-4;
constexpr std::uint32_t kMinLineCandidate = 32;
constexpr std::uint32_t kMaxLineCandidate = 512;
constexpr int kEdgeAdjustments = 4;
constexpr int kMaxSearchRounds = 16;
constexpr std::uint32_t kBaselineSamples = 2048;

const char* aspect_name(GeometryAspect a) {
  switch (a) {
    case GeometryAspect::ways:
      return "ways";
    case GeometryAspect::sets:
      return "sets";
    case GeometryAspect::set_bits:
      return "set_bits";
    case GeometryAspect::policy:
      return "policy";
  }
  return "?";
}

const Property* measured(const Topology& t, const std::string& element, const std::string& name) {
  const Element* e = t.find(element);
  const Property* p = e ? e->find(name) : nullptr;
  if (!p || p->source != Source::measured || p->inconclusive || p->value.is_null()) return nullptr;
  return p;
}

class Geometry {
 public:
  Geometry(ProbeContext& ctx, const GeometryTarget& target, std::string id)
      : ctx_(ctx),
        target_(target),
        id_(std::move(id)),
        limits_(ctx.backend.limits()),
        passes_(target.device_wide ? kDeviceWidePasses : kPasses) {}

  void ways_and_sets();
  void ways_and_sets_device_wide();
  void sets_from_ways();
  void set_bits();
  void policy();

 private:
  std::vector<Trace> run(const std::vector<ChaseSpec>& specs, const std::string& phase) {
    std::vector<Trace> out;
    // Device-wide: a batch of one, so that no other chase shares the cache under test.
    const std::size_t slots =
        target_.device_wide ? 1 : std::max<std::uint32_t>(1, limits_.concurrent_slots);
    for (std::size_t first = 0; first < specs.size(); first += slots) {
      const std::vector<ChaseSpec> chunk(
          specs.begin() + static_cast<std::ptrdiff_t>(first),
          specs.begin() + static_cast<std::ptrdiff_t>(std::min(specs.size(), first + slots)));
      auto traces = ctx_.run(chunk, id_ + "/" + phase);
      ++batches_;
      for (const auto& s : chunk) loads_ += loads_of(s);
      for (auto& t : traces) out.push_back(std::move(t));
    }
    return out;
  }
  // Chases that name sets by line numbers counted from their array's start (set s = line s mod
  // sets) agree on which set is which only when their arrays start at the same offset modulo
  // sets x line. With equal sets that does not matter (every set behaves alike); with unequal
  // sets it does. Arrays are aligned to a power of two, so with 2^n sets any two start alike;
  // otherwise only the same array does: isolated, every chase runs alone in its batch (a
  // batch's first chase gets the backend's first buffer).
  std::vector<Trace> run_set_targeted(const std::vector<ChaseSpec>& specs,
                                      const std::string& phase) {
    if (!isolate_arrays_) return run(specs, phase);
    std::vector<Trace> out;
    for (const auto& spec : specs) out.push_back(std::move(run({spec}, phase).front()));
    return out;
  }
  ChaseSpec sequential(std::uint64_t footprint, std::uint32_t stride, std::uint32_t passes) {
    ChaseSpec s;
    s.path = target_.path;
    s.footprint_bytes = footprint;
    s.stride_bytes = stride;
    s.order = ChaseOrder::sequential;
    s.seed = ctx_.seed + seed_++;
    s.warm_passes = 1;
    s.timed_loads = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(limits_.max_timed_loads, footprint / stride * passes));
    return s;
  }
  // A chase over the given words, in this order.
  ChaseSpec explicit_chase(std::vector<std::uint32_t> words, std::uint32_t warm,
                           std::uint32_t timed) {
    ChaseSpec s;
    s.path = target_.path;
    const std::uint32_t top = *std::max_element(words.begin(), words.end());
    s.footprint_bytes = (std::uint64_t{top} + 1) * 4;
    s.footprint_bytes = (s.footprint_bytes + line_ - 1) / line_ * line_;
    s.stride_bytes = 4;
    s.order = ChaseOrder::explicit_indices;
    s.start_index = words.front();
    s.indices = std::move(words);
    s.seed = ctx_.seed + seed_++;
    s.warm_passes = warm;
    s.timed_loads = std::min(timed, limits_.max_timed_loads);
    return s;
  }
  std::uint32_t word_of_line(std::uint64_t line) const {
    return static_cast<std::uint32_t>(line * line_ / 4);
  }
  LineSlowCounts counts(const Trace& t, std::uint32_t line) const {
    return slow_counts_per_line(corrected_cycles(t), t.indices, line, threshold_);
  }

  void prepare();  // size, threshold, line
  std::uint64_t capacity_lines_estimate(nlohmann::json& ev);
  // The measured size's hit/miss threshold, when its evidence has one: for a device-wide cache
  // raised to the floor of its misses (device_wide_threshold), else the size probe's own.
  std::optional<DeviceWideThreshold> size_threshold() const {
    const Property* size = measured(ctx_.topology, target_.element, "size");
    if (!size) return std::nullopt;
    if (target_.device_wide) return device_wide_threshold(size->evidence);
    if (!size->evidence.contains("threshold_cycles") ||
        !size->evidence.at("threshold_cycles").is_number())
      return std::nullopt;
    return DeviceWideThreshold{size->evidence.at("threshold_cycles").get<double>(), "midpoint"};
  }
  // The size search's smallest missing footprint in lines, when its evidence has one.
  std::optional<std::uint64_t> first_miss_lines() const {
    const auto& ev = measured(ctx_.topology, target_.element, "size")->evidence;
    if (!ev.contains("first_miss_bytes") || !ev.at("first_miss_bytes").is_number_unsigned())
      return std::nullopt;
    return ev.at("first_miss_bytes").get<std::uint64_t>() / line_;
  }
  // Slow accesses (of passes_) a line needs before C counts as overflowing: more than outliers
  // at the size probe's measured rate give any of `lines` lines but with probability 10^-6. Two
  // would do for rare outliers, not for heavy noise (0.5 %: some line of a few hundred collects
  // two every few runs, and the edge check would move C down). C + b keeps 2: there a thrashing
  // set's lines are slow on every pass, and random replacement needs the low bar.
  std::uint32_t fit_min_slow(std::uint64_t lines) const {
    constexpr double kFalseOverflowProbability = 1e-6;
    const std::size_t allowed = allowed_misses(
        outlier_rate_ * passes_,
        kFalseOverflowProbability / static_cast<double>(std::max<std::uint64_t>(lines, 1)));
    return std::max<std::uint32_t>(2, static_cast<std::uint32_t>(allowed) + 1);
  }
  void refine_size(std::uint64_t capacity_bytes, double ways_confidence);
  void measure_threshold();
  void search_line();
  void write_inconclusive(const std::string& name, const std::string& unit, const std::string& note,
                          nlohmann::json evidence);
  nlohmann::json common_evidence() const;
  const Property& ways_property() const;

  ProbeContext& ctx_;
  const GeometryTarget& target_;
  std::string id_;
  BackendLimits limits_;
  std::uint32_t passes_;  // timed passes of the overflow and per-set chases
  std::uint64_t seed_ = 0;
  std::uint64_t loads_ = 0, batches_ = 0;
  std::uint64_t size_ = 0;
  std::uint32_t line_ = 0;
  std::string line_source_;
  nlohmann::json line_evidence_ = nlohmann::json::object();
  double threshold_ = 0;
  std::string threshold_source_;
  std::string threshold_rule_ = "midpoint";
  bool isolate_arrays_ = false;                // see run_set_targeted
  double outlier_rate_ = kAssumedOutlierRate;  // the size probe's, when it measured one
};

void Geometry::measure_threshold() {
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  auto hit = sequential(1024, 32, 1), next = sequential(1024, 32, 1);
  hit.timed_loads = next.timed_loads = samples;
  next.path = *target_.next_level_path;
  const auto traces = run({hit, next}, "baseline");
  threshold_ = judge_baselines(traces[0], traces[1], target_.path, *target_.next_level_path,
                               target_.element + " does not cache " +
                                   std::string(to_string(target_.path)) + " loads")
                   .rule.threshold_cycles;
  threshold_source_ = "own baseline";
}

void Geometry::prepare() {
  const Property* size = measured(ctx_.topology, target_.element, "size");
  if (!size || !size->value.is_number()) {
    throw ProbeSkipped("needs a measured " + target_.element + ".size");
  }
  size_ = size->value.get<std::uint64_t>();
  if (size->evidence.contains("outlier_rate")) {
    outlier_rate_ = size->evidence.at("outlier_rate").get<double>();
  }
  if (const auto threshold = size_threshold()) {
    threshold_ = threshold->cycles;
    threshold_source_ = target_.element + ".size";
    threshold_rule_ = threshold->rule;
  } else if (!target_.next_level_path) {
    throw ProbeSkipped(target_.element +
                       ".size has no threshold_cycles in its evidence (no "
                       "load path skips only this cache for a threshold of its own)");
  } else {
    measure_threshold();
  }
  const Property* line = measured(ctx_.topology, target_.element, "line");
  if (line && line->value.is_number() && line->value.get<std::uint64_t>() >= 4) {
    line_ = line->value.get<std::uint32_t>();
    line_source_ = target_.element + ".line";
  } else if (target_.device_wide) {
    // A line search would chase the whole cache a dozen more times. When the line probe found
    // only an upper bound (line < u) and the size staircase's stride is at least u / 2, that
    // stride is at least the line: every element of a chase at it takes a line of its own, as
    // the runs need, and "past the size" means what the size search meant.
    const Element* element = ctx_.topology.find(target_.element);
    const Property* bounded = element ? element->find("line") : nullptr;
    const auto stride =
        staircase_stride_bytes(measured(ctx_.topology, target_.element, "size")->evidence);
    const bool usable = bounded && bounded->bound == Bound::upper &&
                        bounded->value.is_number_unsigned() && stride &&
                        2 * *stride >= bounded->value.get<std::uint64_t>();
    if (!usable) {
      throw ProbeSkipped("needs a measured " + target_.element +
                         ".line, or an upper bound on it that the size staircase's stride "
                         "reaches (a line search would chase the whole cache a dozen more "
                         "times)");
    }
    line_ = static_cast<std::uint32_t>(*stride);
    line_source_ = target_.element + ".size staircase stride (" + target_.element +
                   ".line is below " + std::to_string(bounded->value.get<std::uint64_t>()) + " B)";
  } else {
    search_line();
  }
}

// No measured line size: try power-of-two hypotheses. At the true line b a chase of C + b at
// stride b overfills one set and C + 2b a second one (twice the missing lines); below b both
// extra elements fall into the same line and set (one more missing element only). Fully
// associative caches never show the doubling: there the line is the largest stride at which
// C + stride still overflows (one more line than the cache holds).
void Geometry::search_line() {
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t b = kMinLineCandidate; b <= kMaxLineCandidate && b * 4 <= size_; b *= 2)
    candidates.push_back(b);
  // Under random-like replacement a few passes show only some of the missing lines, and the
  // counts that the doubling rule compares are noise: then every hypothesis is chased again
  // with many passes, where each missing line collects several slow accesses.
  struct Counts {
    std::size_t at_c_plus_1 = 0, at_c_plus_2 = 0;
  };
  auto measure = [&](std::uint32_t passes, std::uint32_t min_slow, bool& deterministic) {
    std::vector<ChaseSpec> specs;
    for (auto b : candidates) {
      specs.push_back(sequential(size_ + b, b, passes));
      specs.push_back(sequential(size_ + 2 * b, b, passes));
    }
    const auto traces =
        run(specs, passes == kLinePasses ? "line_hypotheses" : "line_hypotheses_many");
    std::vector<Counts> out;
    deterministic = true;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto one = overflow_lines(counts(traces[2 * i], candidates[i]), min_slow);
      const auto two = overflow_lines(counts(traces[2 * i + 1], candidates[i]), min_slow);
      deterministic = deterministic && one.partial == 0 && two.partial == 0;
      out.push_back({one.lines.size(), two.lines.size()});
    }
    return out;
  };
  bool deterministic = true;
  auto missing = measure(kLinePasses, 2, deterministic);
  std::uint32_t passes = kLinePasses;
  if (!deterministic) {
    passes = kRandomPasses;
    missing = measure(kRandomPasses, kRandomMinSlow, deterministic);
  }
  std::optional<std::uint32_t> doubling, largest_overflow;
  nlohmann::json tried = nlohmann::json::array();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto b = candidates[i];
    const auto m1 = missing[i].at_c_plus_1, m2 = missing[i].at_c_plus_2;
    tried.push_back({{"line_bytes", b}, {"missing_at_C_plus_1", m1}, {"missing_at_C_plus_2", m2}});
    if (m1 > 0) largest_overflow = b;
    if (!doubling && m1 > 0 && 2 * m2 >= 3 * m1) doubling = b;
  }
  if (!doubling && !largest_overflow) {
    throw ProbeSkipped("no line-size hypothesis overflowed the cache");
  }
  line_ = doubling ? *doubling : *largest_overflow;
  line_source_ = "own power-of-two hypothesis search (no measured " + target_.element + ".line)";
  line_evidence_ = {{"rule", doubling ? "smallest stride whose second extra element overfills a "
                                        "second set"
                                      : "largest stride that still overflows (one set)"},
                    {"passes", passes},
                    {"hypotheses", std::move(tried)}};
}

nlohmann::json Geometry::common_evidence() const {
  return {{"size_bytes", size_},
          {"line_bytes", line_},
          {"line_source", line_source_},
          {"line_search", line_evidence_},
          {"threshold_cycles", threshold_},
          {"threshold_source", threshold_source_},
          {"threshold_rule", threshold_rule_},
          {"path", to_string(target_.path)},
          {"loads", loads_},
          {"batches", batches_},
          {"each_chase_alone", target_.device_wide}};
}

void Geometry::write_inconclusive(const std::string& name, const std::string& unit,
                                  const std::string& note, nlohmann::json evidence) {
  Property p;
  p.name = name;
  p.unit = unit;
  p.source = Source::measured;
  p.method = "overfull-set pointer chases (paper 000, 3.2)";
  p.value = nullptr;
  p.inconclusive = true;
  p.confidence = 0;
  p.note = note;
  p.evidence = std::move(evidence);
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

// The size search brackets the capacity between its largest fitting footprint and its first
// missing one, which for a cache of tens of MiB lie hundreds of lines apart: stepping one line
// at a time from the size would not reach the edge. One chase over the first missing footprint
// shows how many sets it overfills (the run length of its missing lines, see overflow_runs) and
// so the capacity. Without such a bracket, or without even runs (random replacement, hashed
// sets), the size stands and the edge steps by lines.
std::uint64_t Geometry::capacity_lines_estimate(nlohmann::json& ev) {
  const std::uint64_t from_size = size_ / line_;
  const std::uint64_t miss_lines = first_miss_lines().value_or(0);
  if (miss_lines <= from_size + 2) return from_size;  // no bracket, or the edge steps cover it
  const auto trace =
      run_set_targeted({sequential(miss_lines * line_, line_, passes_)}, "overflow_runs");
  const auto missing = overflow_lines(counts(trace.front(), line_), 2);
  const auto runs = overflow_runs(missing.lines, miss_lines);
  ev["capacity_from_runs"] = {
      {"chased_lines", miss_lines},
      {"missing_lines", missing.lines.size()},
      {"capacity_lines", runs ? nlohmann::json(runs->capacity_lines) : nlohmann::json(nullptr)}};
  return runs ? runs->capacity_lines : from_size;
}

// A cache every SM shares is tens of MiB, and each of its chases runs alone: the overflow and
// per-set chases of the SM caches (C, C + b, C + 2b, then m lines in every set) would cost
// several times its size staircase. One chase over C + k lines instead (k >= kMinRunLines, the
// size search's first missing footprint when that is further) overfills k sets under LRU or
// FIFO with modulo sets; its missing lines form W + 1 runs of k lines spaced by the set count,
// which gives the capacity, ways, sets and one full set's lines at once (overflow_runs), and the
// S - k sets it did not overfill held their W lines. Sampled sets, chased with W and W + 1 lines
// each, check that the rest agree. Scattered misses (random replacement, hashed sets) leave the
// ways inconclusive: the per-line method would need many passes over the whole cache.
void Geometry::ways_and_sets_device_wide() {
  prepare();
  auto ev = nlohmann::json::object();
  const std::uint64_t chased =
      std::max(size_ / line_ + kMinRunLines, first_miss_lines().value_or(0));
  const auto trace = run({sequential(chased * line_, line_, passes_)}, "overflow_runs");
  const LineSlowCounts per_line = counts(trace.front(), line_);
  const auto missing = overflow_lines(per_line, passes_);
  const std::size_t slow_on_some_pass = overflow_lines(per_line, 1).lines.size();
  const auto runs = overflow_runs(missing.lines, chased);
  ev["chased_lines"] = chased;
  ev["missing_lines"] = missing.lines.size();
  ev["lines_slow_on_some_pass"] = slow_on_some_pass;
  if (!runs) {
    const std::size_t shown = std::min<std::size_t>(missing.lines.size(), 64);
    ev["first_missing_lines"] =
        std::vector<std::uint64_t>(missing.lines.begin(), missing.lines.begin() + shown);
    ev.update(common_evidence());
    const std::string passes = std::to_string(passes_);
    write_inconclusive(
        "ways", "",
        missing.lines.empty()
            ? "no line missed on all " + passes + " passes of a chase " +
                  std::to_string(chased - size_ / line_) + " lines past the measured size (" +
                  std::to_string(slow_on_some_pass) + " of " + std::to_string(chased) +
                  " lines missed on some pass): an overfull LRU or FIFO set would miss on "
                  "every pass, so the replacement is neither, or the size is no hard edge"
            : "the lines that missed on every pass of a chase past the measured size do not "
              "form W + 1 evenly spaced runs of one length (not LRU or FIFO with modulo sets); "
              "the per-line method would need many passes over the whole cache",
        ev);
    return;
  }
  const std::uint64_t sets = runs->period;
  const std::uint64_t ways = runs->starts.size() - 1;
  ev["run_length"] = runs->run_length;
  ev["runs"] = runs->starts.size();
  ev["cache_lines"] = runs->capacity_lines;
  ev["capacity_bytes"] = runs->capacity_lines * line_;
  ev["overflow_lines"] = runs->starts;
  ev["overflow_deterministic"] = missing.deterministic();
  ev["overflow_passes"] = passes_;

  // Sampled sets, evenly spread: W lines each must fit, W + 1 must overflow every one of them.
  std::vector<std::uint64_t> sampled;
  const std::uint64_t step = std::max<std::uint64_t>(1, sets / kSampledSets);
  for (std::uint64_t set = 0; set < sets && sampled.size() < kSampledSets; set += step)
    sampled.push_back(set);
  std::vector<ChaseSpec> specs;
  for (const std::uint64_t m : {ways, ways + 1}) {
    std::vector<std::uint32_t> words;
    for (const auto set : sampled)
      for (std::uint64_t r = 0; r < m; ++r) words.push_back(word_of_line(set + r * sets));
    const auto visits = static_cast<std::uint32_t>(words.size());
    specs.push_back(explicit_chase(std::move(words), 1, visits * passes_));
  }
  const auto checks = run(specs, "sampled_sets");
  std::uint64_t fitting_at_w = 0, overflowing_at_w1 = 0;
  const auto at_w = overflowed_sets(counts(checks[0], line_), sets, passes_);
  const auto at_w1 = overflowed_sets(counts(checks[1], line_), sets, passes_);
  for (const auto set : sampled) {
    if (!at_w[set]) ++fitting_at_w;
    if (at_w1[set]) ++overflowing_at_w1;
  }
  ev["sampled_sets"] = {{"sets", sampled.size()},
                        {"fit_with_ways_lines", fitting_at_w},
                        {"overflowed_with_ways_plus_one_lines", overflowing_at_w1}};
  ev["sets"] = sets;
  ev["set_mapping"] = "modulo";
  ev.update(common_evidence());
  if (fitting_at_w != sampled.size() || overflowing_at_w1 != sampled.size()) {
    write_inconclusive("ways", "",
                       "the sampled sets disagree with the runs' " + std::to_string(ways) +
                           " ways (unequal sets, or a mapping that is not modulo)",
                       ev);
    return;
  }
  Property p;
  p.name = "ways";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "one sequential chase over C + k lines at stride b (C measured size, b line) "
      "overfills k sets: its missing lines form ways + 1 runs spaced by the sets; " +
      std::to_string(sampled.size()) +
      " sampled sets verified with ways and ways + 1 lines (paper 000, 3.2 step 3)";
  p.value = ways;
  // Deterministic runs and every sampled set agreeing; not every set was chased.
  p.confidence = sampled.size() == sets ? 0.95 : 0.9;
  p.evidence = std::move(ev);
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

void Geometry::ways_and_sets() {
  if (target_.device_wide) {
    ways_and_sets_device_wide();
    return;
  }
  prepare();
  auto ev = nlohmann::json::object();
  std::uint64_t lines = capacity_lines_estimate(ev);
  ev["edge_adjustments"] = 0;
  OverflowLines over;
  std::uint32_t passes = passes_;
  bool edge_ok = false;
  nlohmann::json cross = nullptr;
  for (int attempt = 0; attempt < kEdgeAdjustments && !edge_ok; ++attempt) {
    const auto traces = run_set_targeted(
        {sequential(lines * line_, line_, passes_), sequential((lines + 1) * line_, line_, passes_),
         sequential((lines + 2) * line_, line_, passes_)},
        "overflow");
    const auto at0 = overflow_lines(counts(traces[0], line_), fit_min_slow(lines));
    over = overflow_lines(counts(traces[1], line_), 2);
    const auto at2 = overflow_lines(counts(traces[2], line_), 2);
    if (!at0.lines.empty()) {
      // The cache holds fewer lines than the size said: by the run length when the misses
      // show one (several sets overfull), else by one.
      const auto runs = overflow_runs(at0.lines, lines);
      lines = runs ? runs->capacity_lines : lines - 1;
    } else if (over.lines.empty()) {
      ++lines;
    } else {
      edge_ok = true;
      cross = {{"missing_at_C_plus_1", over.lines.size()},
               {"missing_at_C_plus_2", at2.lines.size()}};
      break;
    }
    ev["edge_adjustments"] = attempt + 1;
  }
  ev.update(common_evidence());
  if (!edge_ok) {
    write_inconclusive("ways", "",
                       "no footprint C fitting with C + one line overflowing near the "
                       "measured size",
                       ev);
    return;
  }
  if (!over.deterministic()) {  // random-like replacement: many passes, a stricter count
    passes = kRandomPasses;
    const auto t =
        run_set_targeted({sequential((lines + 1) * line_, line_, kRandomPasses)}, "overflow_many");
    over = overflow_lines(counts(t[0], line_), kRandomMinSlow);
  }
  const auto geo = geometry_from_overflow(over.lines, lines);
  ev["cache_lines"] = lines;
  ev["overflow_lines"] = over.lines;
  ev["overflow_deterministic"] = over.deterministic();
  ev["overflow_passes"] = passes;
  ev["cross_check"] = cross;
  ev["evenly_spaced"] = geo.arithmetic;
  ev["period_lines"] = geo.period;
  if (!geo.found) {
    ev.update(common_evidence());
    write_inconclusive("ways", "", geo.why, ev);
    return;
  }
  nlohmann::json ways_value = geo.ways;
  std::uint64_t sets = geo.sets;
  std::optional<std::uint64_t> unequal_capacity;  // sum of the per-set ways x line
  double confidence = over.deterministic() ? 0.95 : 0.85;
  std::string mapping = geo.arithmetic ? "modulo" : "not modulo (other address bits or a hash)";
  if (geo.arithmetic) {
    // Verify per set with m lines in every set (m = ways fits, ways + 1 overflows everywhere);
    // sets that disagree are searched (unequal sets).
    const std::uint64_t max_m = std::min<std::uint64_t>(
        limits_.max_footprint_bytes / (sets * line_), 4 * (lines / sets + 1));
    PerSetWaysSearch search(sets, std::max<std::uint64_t>(1, max_m));
    std::vector<std::uint64_t> todo = {geo.ways, geo.ways + 1};
    nlohmann::json rounds = nlohmann::json::array();
    for (int round = 0; round < kMaxSearchRounds && !todo.empty(); ++round) {
      std::vector<ChaseSpec> specs;
      for (auto m : todo) specs.push_back(sequential(m * sets * line_, line_, passes));
      const auto traces = run_set_targeted(specs, "per_set");
      for (std::size_t i = 0; i < todo.size(); ++i) {
        const auto o = overflowed_sets(counts(traces[i], line_), sets, passes);
        search.add(todo[i], o);
        rounds.push_back({{"lines_per_set", todo[i]},
                          {"sets_overflowed", std::count(o.begin(), o.end(), true)}});
      }
      todo = search.next(std::max<std::uint32_t>(1, limits_.concurrent_slots));
    }
    const auto per_set = search.ways();
    const bool all_alike = std::all_of(per_set.begin(), per_set.end(),
                                       [&](const auto& x) { return x == per_set.front(); });
    if ((search.contradictions() > 0 || !all_alike) && !std::has_single_bit(sets) &&
        !isolate_arrays_) {
      // Unequal (or contradictory) sets over a set count that is not a power of two: the chases
      // of one batch may have named different sets alike. Everything again, each chase alone.
      isolate_arrays_ = true;
      ways_and_sets();
      return;
    }
    ev["arrays_isolated"] = isolate_arrays_;
    ev["per_set_chases"] = std::move(rounds);
    ev["contradictions"] = search.contradictions();
    std::vector<std::uint64_t> w;
    bool complete = search.contradictions() == 0;
    for (const auto& x : per_set) {
      if (!x) complete = false;
      w.push_back(x.value_or(0));
    }
    if (!complete) {
      ev["ways_per_set_partial"] = w;
      ev.update(common_evidence());
      write_inconclusive("ways", "", "the per-set chases did not bracket every set's ways", ev);
      return;
    }
    if (std::all_of(w.begin(), w.end(), [&](auto x) { return x == w.front(); })) {
      ways_value = w.front();
    } else {
      ways_value = w;
      mapping = "modulo, unequal sets";
      std::uint64_t total = 0;
      for (auto x : w) total += x;
      ev["capacity_from_ways_bytes"] = total * line_;
      unequal_capacity = total * line_;
    }
  } else {
    confidence *= 0.9;  // not verified per set: the mapping is unknown here (see set_bits)
  }
  ev["sets"] = sets;
  ev["set_mapping"] = mapping;
  ev.update(common_evidence());
  Property p;
  p.name = "ways";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "sequential chase over C + b at stride b (C measured size, b line): the lines that "
      "miss are one set's ways + 1; their spacing gives the sets; m lines per set "
      "verify every set (paper 000, 3.2 step 3)";
  p.value = ways_value;
  p.confidence = confidence;
  p.evidence = std::move(ev);
  element_for(ctx_.topology, target_.element).set(std::move(p));
  if (unequal_capacity) refine_size(*unequal_capacity, confidence);
}

// Unequal sets: a contiguous footprint overflows the smallest set first, so the size search
// finds where that happens (the first overflow), not the capacity. The per-set ways, each
// verified by chases with m lines in every set, add up to the capacity: the size is written
// again from them, the first overflow kept in the evidence.
void Geometry::refine_size(std::uint64_t capacity_bytes, double ways_confidence) {
  Element& element = element_for(ctx_.topology, target_.element);
  const Property* old = element.find("size");
  if (!old || old->value == nlohmann::json(capacity_bytes)) return;
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.source = Source::derived;
  p.method = "sum of the per-set ways (" + target_.element + ".ways, unequal sets) x the line (" +
             std::to_string(line_) + " B, " + line_source_ +
             "); a contiguous footprint overflows the smallest set first, at the " +
             target_.element + ".size search's edge (first_overflow_bytes)";
  p.value = capacity_bytes;
  p.confidence = std::min(ways_confidence, old->confidence.value_or(1.0));
  p.evidence = {{"from", target_.element + ".ways"},
                {"first_overflow_bytes", old->value},
                {"first_overflow_method", old->method},
                {"first_overflow_confidence",
                 old->confidence ? nlohmann::json(*old->confidence) : nlohmann::json(nullptr)},
                {"ways_per_set", measured(ctx_.topology, target_.element, "ways")->value},
                {"line_bytes", line_},
                {"line_source", line_source_}};
  // What later probes read from the size's evidence (the hit/miss threshold) stays available.
  for (const char* key :
       {"threshold_cycles", "outlier_rate", "hit_cycles", "next_level_cycles", "path"}) {
    if (old->evidence.contains(key)) p.evidence[key] = old->evidence.at(key);
  }
  element.set(std::move(p));
}

const Property& Geometry::ways_property() const {
  const Property* w = measured(ctx_.topology, target_.element, "ways");
  if (!w || !w->evidence.contains("overflow_lines")) {
    throw ProbeSkipped("needs a conclusive " + target_.element + ".ways");
  }
  return *w;
}

void Geometry::sets_from_ways() {
  const Property& w = ways_property();
  Property p;
  p.name = "sets";
  p.unit = "";
  p.source = Source::measured;
  p.method = "from the " + target_.element +
             ".ways chases: the spacing of the lines of one "
             "overfull set (modulo), else cache lines / ways";
  p.value = w.evidence.at("sets");
  p.confidence = w.confidence;
  p.evidence = {{"from", target_.element + ".ways"},
                {"set_mapping", w.evidence.at("set_mapping")},
                {"cache_lines", w.evidence.at("cache_lines")},
                {"ways", w.value}};
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

// Flip one address bit of one line of a known full set: the set overflows (W + 1 lines) unless
// the bit selects the set.
void Geometry::set_bits() {
  const Property& w = ways_property();
  line_ = w.evidence.at("line_bytes").get<std::uint32_t>();
  threshold_ = w.evidence.at("threshold_cycles").get<double>();
  const auto sets = w.evidence.at("sets").get<std::uint64_t>();
  const auto group = w.evidence.at("overflow_lines").get<std::vector<std::uint64_t>>();
  nlohmann::json ev = {{"from", target_.element + ".ways"}, {"sets", sets}};
  Property p;
  p.name = "set_bits";
  p.unit = "";
  p.source = Source::measured;
  if (sets == 1) {
    p.value = nlohmann::json::array();
    p.confidence = w.confidence;
    p.method = "one set (fully associative): no address bit selects a set";
    p.evidence = ev;
    element_for(ctx_.topology, target_.element).set(std::move(p));
    return;
  }
  if (!w.value.is_number()) {  // unequal sets: modulo over a set count, no bit selection
    p.value = {{"modulo", sets}};
    p.confidence = w.confidence;
    p.method = "unequal sets found by modulo spacing: line number mod sets";
    p.evidence = ev;
    element_for(ctx_.topology, target_.element).set(std::move(p));
    return;
  }
  const unsigned line_shift = static_cast<unsigned>(std::countr_zero(line_));
  const std::uint64_t cache_lines = w.evidence.at("cache_lines").get<std::uint64_t>();
  const unsigned top = line_shift + static_cast<unsigned>(std::bit_width(cache_lines)) + 1;
  std::vector<std::uint32_t> bits;
  std::vector<ChaseSpec> specs;
  const std::set<std::uint64_t> members(group.begin(), group.end());
  std::vector<std::uint64_t> base(group.begin(), group.end() - 1);  // W lines of one set
  for (unsigned bit = line_shift; bit < top; ++bit) {
    const std::uint64_t flip = std::uint64_t{1} << (bit - line_shift);
    std::optional<std::uint64_t> moved;
    for (auto x : base) {
      if (!members.count(x ^ flip)) {
        moved = x ^ flip;
        break;
      }
    }
    if (!moved || (*moved + 1) * line_ > limits_.max_footprint_bytes) continue;
    std::vector<std::uint32_t> words;
    for (auto x : base) words.push_back(word_of_line(x));
    words.push_back(word_of_line(*moved));
    bits.push_back(bit);
    specs.push_back(
        explicit_chase(std::move(words), 1, static_cast<std::uint32_t>(base.size() + 1) * kPasses));
  }
  const auto traces = run(specs, "bits");
  std::map<std::uint32_t, bool> overflowed;
  nlohmann::json tests = nlohmann::json::array();
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const auto c = corrected_cycles(traces[i]);
    const auto slow = count_above(c, threshold_);
    overflowed[bits[i]] = slow >= kPasses;
    tests.push_back({{"bit", bits[i]}, {"slow_accesses", slow}, {"overflowed", slow >= kPasses}});
  }
  const auto index_bits = index_bits_from_tests(overflowed);
  ev["bit_tests"] = std::move(tests);
  ev["index_bits"] = index_bits;
  ev["loads"] = loads_;
  ev["batches"] = batches_;
  const bool power_of_two = std::has_single_bit(sets);
  p.method =
      "W lines of one full set plus one line with a single address bit flipped: the set "
      "overflows unless the bit selects the set (paper 000, 4.3)";
  if (power_of_two && index_bits.size() == static_cast<std::size_t>(std::countr_zero(sets))) {
    p.value = index_bits;
    p.confidence = w.confidence;
    bool contiguous = index_bits.front() == line_shift;
    for (std::size_t i = 1; i < index_bits.size(); ++i)
      contiguous = contiguous && index_bits[i] == index_bits[i - 1] + 1;
    ev["equivalent_to_modulo"] = contiguous;
  } else if (!power_of_two && w.evidence.at("set_mapping") == "modulo") {
    p.value = {{"modulo", sets}};
    p.confidence = w.confidence;
    p.method +=
        "; the set count is not a power of two and every bit moves lines: line number "
        "mod sets";
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.confidence = 0;
    p.note = std::to_string(index_bits.size()) + " bits move lines to another set, but " +
             std::to_string(sets) + " sets need " +
             (power_of_two ? std::to_string(std::countr_zero(sets)) : std::string("a non-bit")) +
             " selection";
  }
  p.evidence = std::move(ev);
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

void Geometry::policy() {
  const Property* conclusive_ways = measured(ctx_.topology, target_.element, "ways");
  if (!conclusive_ways || !conclusive_ways->evidence.contains("overflow_lines")) {
    // Without the ways, the scan test still tells a scan-resistant cache from LRU-like ones.
    // No path that skips only this cache: judged by the threshold the ways would have used,
    // each chase alone.
    std::optional<Property> scan;
    if (!target_.next_level_path) {
      const auto threshold = size_threshold();
      if (!threshold) {
        throw ProbeSkipped("needs a conclusive " + target_.element + ".ways or a measured " +
                           target_.element + ".size with threshold_cycles");
      }
      scan = scan_resistance_policy_alone(ctx_, target_.element, target_.path, threshold->cycles);
    } else {
      scan = scan_resistance_policy(ctx_, target_.element, target_.path, *target_.next_level_path);
    }
    if (!scan) throw ProbeSkipped("needs a conclusive " + target_.element + ".ways or size");
    element_for(ctx_.topology, target_.element).set(std::move(*scan));
    return;
  }
  const Property& w = ways_property();
  line_ = w.evidence.at("line_bytes").get<std::uint32_t>();
  threshold_ = w.evidence.at("threshold_cycles").get<double>();
  const auto group = w.evidence.at("overflow_lines").get<std::vector<std::uint64_t>>();
  const auto ways = static_cast<std::uint32_t>(group.size() - 1);
  std::vector<std::uint32_t> words;
  for (auto x : group) words.push_back(word_of_line(x));
  const auto members = static_cast<std::uint32_t>(group.size());
  const std::uint32_t timed =
      std::max(kPolicyLoads / kPolicyChases / members, kRetouchPasses) * members;  // whole passes
  std::vector<ChaseSpec> specs;
  for (std::uint32_t i = 0; i < kPolicyChases; ++i)
    specs.push_back(explicit_chase(words, 0, timed));
  // Re-touch: a0, a1 .. a(W-1), a0 again (its second word, same sector), then aW.
  const bool retouch = ways >= 2;
  if (retouch) {
    std::vector<std::uint32_t> r(words.begin(), words.end() - 1);
    r.push_back(words.front() + 1);
    r.push_back(words.back());
    specs.push_back(explicit_chase(r, 1, (members + 1) * kRetouchPasses));
  }
  isolate_arrays_ =
      !w.value.is_number() && !std::has_single_bit(w.evidence.at("sets").get<std::uint64_t>());
  const auto traces = run_set_targeted(specs, "policy");
  std::map<std::uint32_t, std::uint32_t> id_of;
  for (std::uint32_t i = 0; i < members; ++i) id_of[words[i]] = i;
  double periodic = 0;
  std::vector<VictimCounts> per_chase;
  std::uint32_t stopped = 0;
  for (std::uint32_t t = 0; t < kPolicyChases; ++t) {
    const auto c = corrected_cycles(traces[t]);
    std::vector<bool> slow;
    std::vector<std::uint32_t> ids;
    for (std::size_t i = 0; i < c.size(); ++i) {
      slow.push_back(c[i] > threshold_);
      ids.push_back(id_of.at(traces[t].indices[i]));
    }
    periodic += periodic_fraction(slow, members) / kPolicyChases;
    const auto kinds = classify_accesses(c, ids, threshold_);
    const auto v = victim_ways(ids, kinds, ways);
    per_chase.push_back(v);
    if (v.stopped_at != SIZE_MAX) ++stopped;
  }
  std::vector<std::size_t> drifted;
  const VictimCounts victims = pool_homogeneous_victims(per_chase, kDriftAlpha, drifted);
  LruFifo lf;
  double first_touch_slow = -1;
  if (retouch) {
    const Trace& rt = traces[kPolicyChases];
    const auto rc = corrected_cycles(rt);
    std::size_t touches = 0, slow_touches = 0;
    for (std::size_t i = 0; i < rc.size(); ++i) {
      if (rt.indices[i] != words.front()) continue;
      ++touches;
      if (rc[i] > threshold_) ++slow_touches;
    }
    first_touch_slow =
        touches ? static_cast<double>(slow_touches) / static_cast<double>(touches) : -1;
    if (touches) lf = lru_or_fifo(first_touch_slow);
  }
  const auto verdict = classify_policy(periodic, lf, victims);
  Property p;
  p.name = "policy";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "the W + 1 lines of one overfull set chased cyclically from cold, several times (paper 000, "
      "4.2): "
      "periodic misses = LRU/FIFO, told apart by re-touching the first line; otherwise "
      "victim ways from the recorded indices, chi-square against uniform";
  p.evidence = {{"from", target_.element + ".ways"},
                {"set_lines", group},
                {"ways", ways},
                {"periodic_fraction", periodic},
                {"retouch_first_touch_slow_fraction", first_touch_slow},
                {"victims_per_way", victims.per_way},
                {"victims", victims.victims},
                {"inconsistencies", victims.inconsistencies},
                {"victim_chases", kPolicyChases},
                {"victim_chases_stopped_at_an_outlier", stopped},
                {"victim_chases_left_out_as_drifted", drifted},
                {"why", verdict.why},
                {"loads", loads_},
                {"batches", batches_}};
  if (!verdict.weights.empty()) {
    p.evidence["estimated_weights"] = verdict.weights;
    p.evidence["chi_square"] = {{"statistic", verdict.chi_square.statistic},
                                {"dof", verdict.chi_square.dof},
                                {"p_value", verdict.chi_square.p_value},
                                {"alpha", kPolicyAlpha}};
  }
  p.confidence = verdict.confidence;
  if (verdict.policy.empty()) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = verdict.why;
  } else {
    p.value = verdict.policy;
  }
  element_for(ctx_.topology, target_.element).set(std::move(p));
}

}  // namespace

std::string GeometryProbe::id() const {
  return target_.element + "." + aspect_name(aspect_);
}

std::string GeometryProbe::description() const {
  switch (aspect_) {
    case GeometryAspect::ways:
      return "cache ways (per set when unequal): overfull-set chases at stride of a line";
    case GeometryAspect::sets:
      return "cache sets, from the ways probe's overfull-set chases";
    case GeometryAspect::set_bits:
      return "address bits that select the set: single-bit flips in a full set";
    case GeometryAspect::policy:
      return "replacement policy: periodicity, re-touch test, victim-way statistics";
  }
  return "";
}

std::vector<std::string> GeometryProbe::needs() const {
  if (aspect_ == GeometryAspect::ways && target_.device_wide)
    return {target_.element + ".size", target_.element + ".line"};
  if (aspect_ == GeometryAspect::ways) return {target_.element + ".size"};
  return {target_.element + ".ways"};
}

void GeometryProbe::run(ProbeContext& ctx) {
  Geometry g(ctx, target_, id());
  switch (aspect_) {
    case GeometryAspect::ways:
      g.ways_and_sets();
      break;
    case GeometryAspect::sets:
      g.sets_from_ways();
      break;
    case GeometryAspect::set_bits:
      g.set_bits();
      break;
    case GeometryAspect::policy:
      g.policy();
      break;
  }
}

std::vector<std::unique_ptr<Probe>> geometry_probes() {
  std::vector<std::unique_ptr<Probe>> out;
  for (const auto& t : geometry_targets()) {
    for (auto a : {GeometryAspect::ways, GeometryAspect::sets, GeometryAspect::set_bits,
                   GeometryAspect::policy})
      out.push_back(std::make_unique<GeometryProbe>(t, a));
  }
  return out;
}

}  // namespace memtopo
