#include "probes/geometry/geometry_measurement.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// The own baseline (no threshold in the size's evidence): a footprint every cache holds.
constexpr std::uint64_t kBaselineFootprintBytes = 1024;
// Line-size hypotheses: power-of-two strides up to this, and passes of their chases.
constexpr std::uint32_t kMaxLineCandidate = 512;
constexpr std::uint32_t kLinePasses = 4;
// A line hypothesis needs the cache to hold this many lines of it at least.
constexpr std::uint64_t kMinLinesPerCandidate = 4;
// The accepted probability that outliers alone make C look overflowing (fit_min_slow).
constexpr double kFalseOverflowProbability = 1e-6;

}  // namespace

GeometryMeasurement::GeometryMeasurement(ProbeContext& ctx, const GeometryTarget& target,
                                         std::string probe_id)
    : ctx_(ctx),
      target_(target),
      id_(std::move(probe_id)),
      limits_(ctx.backend.limits()),
      passes_(target.device_wide ? kTimedPasses : kGeometryPasses) {}

std::vector<Trace> GeometryMeasurement::run(const std::vector<ChaseSpec>& specs,
                                            const std::string& phase) {
  std::vector<Trace> out;
  const auto start = std::chrono::steady_clock::now();
  // Device-wide: a batch of one, so that no other chase shares the cache under test.
  const std::size_t slots =
      target_.device_wide ? 1 : std::max<std::uint32_t>(1, limits_.concurrent_slots);
  for (std::size_t first = 0; first < specs.size(); first += slots) {
    const std::vector<ChaseSpec> chunk(
        specs.begin() + static_cast<std::ptrdiff_t>(first),
        specs.begin() + static_cast<std::ptrdiff_t>(std::min(specs.size(), first + slots)));
    auto traces = ctx_.run(chunk, id_ + "/" + phase);
    ++batches_;
    std::uint64_t longest = 0;
    for (const auto& s : chunk) {
      loads_ += loads_of(s);
      longest = std::max(longest, loads_of(s));
    }
    critical_path_loads_ += longest;
    for (auto& t : traces) out.push_back(std::move(t));
  }
  chase_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Chases that name sets by line numbers counted from their array's start (set s = line s mod
// sets) agree on which set is which only when their arrays start at the same offset modulo
// sets x line. With equal sets that does not matter (every set behaves alike); with unequal
// sets it does. Arrays are aligned to a power of two, so with 2^n sets any two start alike;
// otherwise only the same array does: isolated, every chase runs alone in its batch (a
// batch's first chase gets the backend's first buffer).
std::vector<Trace> GeometryMeasurement::run_set_targeted(const std::vector<ChaseSpec>& specs,
                                                         const std::string& phase) {
  if (!isolate_arrays_) return run(specs, phase);
  std::vector<Trace> out;
  for (const auto& spec : specs) out.push_back(std::move(run({spec}, phase).front()));
  return out;
}

ChaseSpec GeometryMeasurement::sequential(std::uint64_t footprint, std::uint32_t stride,
                                          std::uint32_t passes) const {
  // A device-wide cache's chase (tens of MiB, one dependent load per L2 latency) is warmed by
  // the backend's streamed warm pass where it can: the L2 row's size chases showed it leaves the
  // cache as following the chain does (l2_size.cpp), at a fraction of the time.
  return make_chase(target_.path, footprint, stride)
      .warming_as_a_stream(target_.device_wide)
      .timed_loads(static_cast<std::uint32_t>(
          std::min<std::uint64_t>(limits_.max_timed_loads, footprint / stride * passes)));
}

ChaseSpec GeometryMeasurement::explicit_chase(std::vector<std::uint32_t> words, std::uint32_t warm,
                                              std::uint32_t timed) const {
  const std::uint32_t top = *std::max_element(words.begin(), words.end());
  // The array reaches to the end of the last word's line.
  const std::uint64_t footprint =
      round_down((std::uint64_t{top} + 1) * kWordBytes + line_ - 1, line_);
  return make_chase(target_.path, footprint, kWordBytes)
      .visiting(std::move(words))
      .warm_passes(warm)
      .timed_loads(std::min(timed, limits_.max_timed_loads));
}

LineSlowCounts GeometryMeasurement::counts(const Trace& trace) const {
  return slow_counts_per_line(corrected_cycles(trace), trace.indices, line_, threshold_);
}

std::optional<DeviceWideThreshold> GeometryMeasurement::size_threshold() const {
  const Property* size = conclusive_finding(ctx_.topology, target_.element, "size");
  if (!size) return std::nullopt;
  if (target_.device_wide) return device_wide_threshold(size->evidence);
  if (!size->evidence.contains("threshold_cycles") ||
      !size->evidence.at("threshold_cycles").is_number())
    return std::nullopt;
  return DeviceWideThreshold{size->evidence.at("threshold_cycles").get<double>(), "midpoint"};
}

std::optional<std::uint64_t> GeometryMeasurement::first_miss_lines() const {
  const auto& ev = conclusive_finding(ctx_.topology, target_.element, "size")->evidence;
  if (!ev.contains("first_miss_bytes") || !ev.at("first_miss_bytes").is_number_unsigned())
    return std::nullopt;
  return ev.at("first_miss_bytes").get<std::uint64_t>() / line_;
}

// More slow accesses than outliers at the size probe's measured rate give any of `lines` lines
// but with probability 10^-6. Two would do for rare outliers, not for heavy noise (0.5 %: some
// line of a few hundred collects two every few runs, and the edge check would move C down).
// C + b keeps 2: there a thrashing set's lines are slow on every pass, and random replacement
// needs the low bar.
std::uint32_t GeometryMeasurement::fit_min_slow(std::uint64_t lines) const {
  const std::size_t allowed = allowed_misses(
      outlier_rate_ * passes_,
      kFalseOverflowProbability / static_cast<double>(std::max<std::uint64_t>(lines, 1)));
  return std::max<std::uint32_t>(kMinSlowToMiss, static_cast<std::uint32_t>(allowed) + 1);
}

std::uint32_t GeometryMeasurement::set_min_slow(std::uint64_t accesses, std::uint64_t sets) const {
  const std::size_t allowed = allowed_misses(
      outlier_rate_ * static_cast<double>(accesses),
      kFalseOverflowProbability / static_cast<double>(std::max<std::uint64_t>(sets, 1)));
  return std::max(passes_, static_cast<std::uint32_t>(allowed) + 1);
}

bool GeometryMeasurement::explained_by_outliers(std::uint64_t slow, std::uint64_t accesses) const {
  return slow <=
         allowed_misses(outlier_rate_ * static_cast<double>(accesses), kFalseOverflowProbability);
}

void GeometryMeasurement::measure_threshold() {
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  const LoadPath next_path = *target_.next_level_path;
  const auto hit =
      make_chase(target_.path, kBaselineFootprintBytes, kSmallestLineBytes).timed_loads(samples);
  const auto next =
      make_chase(next_path, kBaselineFootprintBytes, kSmallestLineBytes).timed_loads(samples);
  const auto traces = run({hit, next}, "baseline");
  threshold_ = judge_baselines(traces[0], traces[1], target_.path, next_path,
                               target_.element + " does not cache " +
                                   std::string(to_string(target_.path)) + " loads")
                   .rule.threshold_cycles;
  threshold_source_ = "own baseline";
}

void GeometryMeasurement::prepare() {
  const Property* size = conclusive_finding(ctx_.topology, target_.element, "size");
  if (!size) throw ProbeSkipped("needs a measured " + target_.element + ".size");
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
  if (const auto line = finding_count(ctx_.topology, target_.element, "line");
      line && *line >= kWordBytes) {
    line_ = static_cast<std::uint32_t>(*line);
    line_source_ = target_.element + ".line";
    return;
  }
  if (!target_.device_wide) {
    search_line();
    return;
  }
  // A line search would chase the whole cache a dozen more times. When the line probe found
  // only an upper bound (line < u) and the size staircase's stride is at least u / 2, that
  // stride is at least the line: every element of a chase at it takes a line of its own, as
  // the runs need, and "past the size" means what the size search meant.
  const Property* bounded = bound_finding(ctx_.topology, target_.element, "line", Bound::upper);
  const auto stride = staircase_stride_bytes(size->evidence);
  const bool usable = bounded && bounded->value.is_number_unsigned() && stride &&
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
}

std::vector<std::uint32_t> GeometryMeasurement::line_candidates() const {
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t b = kSmallestLineBytes;
       b <= kMaxLineCandidate && b * kMinLinesPerCandidate <= size_; b *= 2)
    candidates.push_back(b);
  return candidates;
}

// No measured line size: try power-of-two hypotheses. At the true line b a chase of C + b at
// stride b overfills one set and C + 2b a second one (twice the missing lines); below b both
// extra elements fall into the same line and set (one more missing element only). Fully
// associative caches never show the doubling: there the line is the largest stride at which
// C + stride still overflows (one more line than the cache holds).
void GeometryMeasurement::search_line() {
  const std::vector<std::uint32_t> candidates = line_candidates();
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
      const auto per_line = [&](const Trace& t) {
        return slow_counts_per_line(corrected_cycles(t), t.indices, candidates[i], threshold_);
      };
      const auto one = overflow_lines(per_line(traces[2 * i]), min_slow);
      const auto two = overflow_lines(per_line(traces[2 * i + 1]), min_slow);
      deterministic = deterministic && one.partial == 0 && two.partial == 0;
      out.push_back({one.lines.size(), two.lines.size()});
    }
    return out;
  };
  bool deterministic = true;
  auto missing = measure(kLinePasses, kMinSlowToMiss, deterministic);
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
    // The second extra element overfills a second set: the missing lines (nearly) double.
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

const Property* GeometryMeasurement::conclusive_ways() const {
  const Property* ways = any_finding(ctx_.topology, target_.element, "ways");
  if (!ways || ways->source != Source::measured || ways->inconclusive ||
      !ways->evidence.contains("overflow_lines"))
    return nullptr;
  return ways;
}

const Property& GeometryMeasurement::plan_from_ways() {
  const Property* ways = conclusive_ways();
  if (!ways) throw ProbeSkipped("needs a conclusive " + target_.element + ".ways");
  line_ = ways->evidence.at("line_bytes").get<std::uint32_t>();
  threshold_ = ways->evidence.at("threshold_cycles").get<double>();
  return *ways;
}

nlohmann::json GeometryMeasurement::common_evidence() const {
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
          {"chase_seconds", chase_seconds_},
          {"each_chase_alone", target_.device_wide}};
}

void GeometryMeasurement::write(Property property, const Confidence& confidence) {
  set_confidence(property, confidence);
  store(std::move(property));
}

void GeometryMeasurement::store(Property property) {
  element_for(ctx_.topology, target_.element).set(std::move(property));
}

const char* GeometryMeasurement::overfull_set_method() {
  return "overfull-set pointer chases (paper 000, 3.2)";
}

void GeometryMeasurement::write_inconclusive(const std::string& name, const std::string& note,
                                             nlohmann::json evidence) {
  Property p;
  p.name = name;
  p.unit = "";
  p.source = Source::measured;
  p.method = overfull_set_method();
  p.value = nullptr;
  p.inconclusive = true;
  p.note = note;
  p.evidence = std::move(evidence);
  store(std::move(p));
}

}  // namespace memtopo
