#include "probes/staircase/staircase_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "analysis/size_rule.hpp"
#include "analysis/staircase.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/size/size_search.hpp"

namespace memtopo {

const std::vector<StaircaseRow>& staircase_rows() {
  static const std::vector<StaircaseRow> table = {
      {"constant_l1.size",
       StaircaseQuestion::constant_caches,
       LoadPath::constant,
       {"constant_l1", "constant_l15"},
       false,
       std::sqrt(2.0),
       "constant L1 and L1.5: sizes and latencies from one ld.const staircase over the bank"},
      {"l2.size",
       StaircaseQuestion::l2_and_dram,
       LoadPath::cg,
       {"l2"},
       true,
       2.0,
       "L2 size (and segments inside it): ld.global.cg staircase from beyond L1 to 3x the API L2"},
      {"tlb_l1.reach",
       StaircaseQuestion::tlb_reach,
       LoadPath::cg,
       {"tlb_l1", "tlb_l2"},
       true,
       std::sqrt(2.0),
       "TLB levels: reach, miss penalty and page size from a chain of one L2 line per page; "
       "DRAM latency with TLB misses"},
  };
  return table;
}

namespace {

using Clock = std::chrono::steady_clock;

// Constant caches: the thesis' stride of one constant L1 line (4.4). A smaller stride lets the
// second element of a line hit the level below, so the levels' latencies would mix.
constexpr std::uint32_t kConstantStrideBytes = 64;
// L2: the measured L1 line, else 32 B, no line or sector being smaller: each element then
// takes its own line (or shares one), and the footprint at the step is the capacity.
constexpr std::uint32_t kFallbackL2StrideBytes = 32;
constexpr std::uint64_t kL2SweepStartBytes = 1ull << 20;          // without a measured L1 size
constexpr std::uint64_t kL2SweepEndFactor = 3;                    // up to 3x the API L2 size
constexpr std::uint64_t kL1Multiple = 4;                          // start beyond the L1
constexpr std::uint64_t kFallbackL2SweepEndBytes = 256ull << 20;  // no API L2 size
// TLB: a chain of a few to thousands of elements, one per page.
constexpr std::uint64_t kMaxTlbElements = 4096;
// The least step confidence (staircase.hpp) that counts as a TLB level.
constexpr double kMinTlbStepConfidence = 0.5;
// The chain keeps to one element per KiB of L2, so that its lines hold a small share of any
// set (any line size up to 1 KiB) and the TLB steps show over L2 hits.
constexpr std::uint64_t kL2BytesPerTlbElement = 1024;
constexpr std::uint64_t kSmallestPageBytes = 4096;  // the smallest page any MMU maps
// 32-bit word indices: a chase's array holds at most 2^32 words.
constexpr std::uint64_t kMaxIndexedBytes = std::uint64_t{4} * UINT32_MAX;
// Timed loads per chase: two passes over the chain (so that a missing element is slow twice and
// an outlier never makes one), at least this many samples, at most that many.
constexpr std::uint32_t kTimedPasses = 2;
constexpr std::uint32_t kMinTimedLoads = 1024;
constexpr std::uint32_t kMaxTimedLoads = 16384;
constexpr std::uint32_t kDramSamples = 4096;
constexpr double kDescribedBand = 0.1;
// A new answer after a step lies above the level before's p95 by at least this: 2 % (well above
// jitter at any latency), at least 2 cycles.
constexpr double kThresholdMarginShare = 0.02;
constexpr double kMinThresholdMarginCycles =
    2.0;  // latency confidence: share within 10 % of the p50
// The miss floor lies below the new answers' p5 by their p50 - p5 spread, at least 1 % of the
// p5: a spread of a cycle or two (a simulated device) says nothing about the jitter that the
// per-chase overhead correction adds.
constexpr double kMissFloorMinShare = 0.01;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A size measured earlier (not an API value, not a bound), or 0.
std::uint64_t measured(const Topology& topology, const std::string& element,
                       const std::string& property) {
  const Element* e = topology.find(element);
  const Property* p = e ? e->find(property) : nullptr;
  if (!p || p->source != Source::measured || p->inconclusive || !p->value.is_number()) return 0;
  return p->value.get<std::uint64_t>();
}

// How a footprint becomes a chain.
struct Layout {
  enum Kind {
    sequential,    // every stride, in address order: pages in turn, every pass the same order
    one_per_page,  // one element per stride (>= a page) at a seeded offset, random order
  } kind = sequential;
  std::uint32_t stride_bytes = 32;
  std::optional<std::uint32_t> sm;  // pin every chase to this SM (near/far L2 depend on it)
  std::uint64_t first_element = 0;  // one_per_page: elements below this are not on the chain
};

// Per-word reference latencies (word -> cycles), subtracted from every access of that word with
// their median added back: removes what is fixed per address (a line in a near or a far L2
// partition) and leaves what changes with the footprint (TLB misses). The thesis' reduction
// against a reference vector (004, 3.3.2), applied per access.
using WordReference = std::map<std::uint32_t, double>;

// The coarse grid: start, start * ratio, ... up to end (always included), on the stride.
std::vector<std::uint64_t> footprint_grid(std::uint64_t start, std::uint64_t end, double ratio,
                                          std::uint64_t stride) {
  std::vector<std::uint64_t> grid;
  for (double f = static_cast<double>(start); f < static_cast<double>(end) * 0.999; f *= ratio) {
    const std::uint64_t point = std::max(stride, round_down(static_cast<std::uint64_t>(f), stride));
    if (grid.empty() || point > grid.back()) grid.push_back(point);
  }
  const std::uint64_t last = round_down(end, stride);
  if (grid.empty() || last > grid.back()) grid.push_back(last);
  return grid;
}

// One refined step: the largest footprint of the level before and the evidence around it.
struct RefinedStep {
  StaircaseStep step;
  double threshold_cycles = 0;
  double miss_floor_cycles = 0;        // see step_miss_floor
  std::uint64_t edge_bytes = 0;        // largest footprint that fits (the level before holds it)
  std::uint64_t first_miss_bytes = 0;  // smallest footprint that misses
  std::vector<ScanPoint> verdicts;     // every footprint judged, coarse and section
  double edge_confidence = 0;
  double confidence = 0;  // step confidence x edge confidence
};

// What one chase gave: corrected cycles and the word each timed load read.
struct Measured {
  std::vector<double> cycles;
  std::vector<std::uint32_t> indices;
};

// A sweep on one row: plans chases, runs them, keeps traces and costs.
class Sweep {
 public:
  Sweep(ProbeContext& ctx, const StaircaseRow& row, Layout layout)
      : ctx_(ctx), row_(row), layout_(layout), limits_(ctx.backend.limits()) {}
  void set_reference(WordReference reference);

  ChaseSpec chase(std::uint64_t footprint) const;
  std::vector<Measured> measure(std::span<const std::uint64_t> footprints,
                                const std::string& phase);
  Staircase coarse(std::span<const std::uint64_t> footprints);
  RefinedStep refine(const Staircase& s, std::size_t k);
  std::uint32_t stride() const { return layout_.stride_bytes; }
  const Layout& layout() const { return layout_; }
  nlohmann::json cost() const {
    nlohmann::json timings = nlohmann::json::object();
    for (const auto& [phase, seconds] : seconds_) timings[phase + "_s"] = seconds;
    return {{"batches", batches_}, {"loads", loads_}, {"timings", timings}};
  }
  const std::vector<Measured>& coarse() const { return coarse_; }
  std::vector<double> pooled_after(const Staircase& s, std::size_t k) const;

 private:
  std::vector<std::uint32_t> one_per_page_indices(std::uint64_t elements) const;

  ProbeContext& ctx_;
  const StaircaseRow& row_;
  Layout layout_;
  BackendLimits limits_;
  std::vector<Measured> coarse_;
  WordReference reference_;
  double reference_median_ = 0;
  std::map<std::string, double> seconds_;
  std::uint64_t loads_ = 0;
  std::uint32_t batches_ = 0;
};

std::vector<std::uint32_t> Sweep::one_per_page_indices(std::uint64_t elements) const {
  // Element i sits at a seeded offset inside its stride, the same for every chain length, so
  // that the elements spread over L2 sets (a stride of a page would put them all in one set of
  // a modulo-indexed L2) and a refined footprint walks the same addresses as the coarse ones.
  const std::uint64_t words_per_stride = layout_.stride_bytes / 4;
  std::vector<std::uint32_t> indices;
  for (std::uint64_t i = layout_.first_element; i < elements; ++i) {
    SplitMix64 offset(ctx_.seed * 0x9E3779B97F4A7C15ull + i);
    indices.push_back(
        static_cast<std::uint32_t>(i * words_per_stride + offset.below(words_per_stride)));
  }
  // A seeded single cycle (Sattolo): every pass visits the pages in the same order, which
  // thrashes an LRU TLB as soon as the pages exceed its entries.
  SplitMix64 rng(ctx_.seed);
  for (std::size_t i = indices.size() - 1; i > 0; --i) std::swap(indices[i], indices[rng.below(i)]);
  return indices;
}

void Sweep::set_reference(WordReference reference) {
  reference_ = std::move(reference);
  std::vector<double> values;
  for (const auto& [word, cycles] : reference_) values.push_back(cycles);
  reference_median_ = values.empty() ? 0 : median(values);
}

ChaseSpec Sweep::chase(std::uint64_t footprint) const {
  ChaseSpec spec;
  spec.sm = layout_.sm;
  spec.path = row_.path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = layout_.stride_bytes;
  spec.seed = ctx_.seed;
  spec.warm_passes = 1;
  const std::uint64_t elements = footprint / layout_.stride_bytes;
  if (layout_.kind == Layout::one_per_page) {
    spec.order = ChaseOrder::explicit_indices;
    spec.indices = one_per_page_indices(elements);
    spec.start_index = spec.indices.front();
  } else {
    spec.order = ChaseOrder::sequential;
  }
  const std::uint64_t timed =
      std::clamp<std::uint64_t>(elements * kTimedPasses, kMinTimedLoads, kMaxTimedLoads);
  spec.timed_loads =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(timed, limits_.max_timed_loads));
  return spec;
}

std::vector<Measured> Sweep::measure(std::span<const std::uint64_t> footprints,
                                     const std::string& phase) {
  const auto start = Clock::now();
  const std::size_t per_batch =
      row_.run_alone ? 1 : std::max<std::size_t>(1, limits_.concurrent_slots);
  std::vector<Measured> out;
  for (std::size_t first = 0; first < footprints.size(); first += per_batch) {
    std::vector<ChaseSpec> batch;
    for (std::size_t i = first; i < std::min(footprints.size(), first + per_batch); ++i) {
      batch.push_back(chase(footprints[i]));
      loads_ += loads_of(batch.back());
    }
    ctx_.progress(row_.id + ": " + phase + " " + format_bytes(footprints[first]));
    for (Trace& t : ctx_.run(batch, row_.id + "/" + phase)) {
      Measured m{corrected_cycles(t), std::move(t.indices)};
      for (std::size_t j = 0; j < m.cycles.size() && !reference_.empty(); ++j) {
        const auto it = reference_.find(m.indices[j]);
        if (it != reference_.end()) m.cycles[j] += reference_median_ - it->second;
      }
      out.push_back(std::move(m));
    }
    ++batches_;
  }
  seconds_[phase] += seconds_since(start);
  return out;
}

Staircase Sweep::coarse(std::span<const std::uint64_t> footprints) {
  coarse_ = measure(footprints, "sweep");
  std::vector<std::vector<double>> cycles;
  for (const auto& m : coarse_) cycles.push_back(m.cycles);
  return analyze_staircase(footprints, cycles);
}

// The accesses of the level after a step that lie clearly above the level before's slowest
// typical answer (its p95 plus a margin), sorted: the step's new answers.
double new_answer_margin(const StaircaseLevel& before) {
  return std::max(kMinThresholdMarginCycles, kThresholdMarginShare * before.spread.p95);
}
std::vector<double> new_answers(const StaircaseLevel& before, std::vector<double> after) {
  const double above = before.spread.p95 + new_answer_margin(before);
  std::erase_if(after, [&](double x) { return x <= above; });
  std::sort(after.begin(), after.end());
  return after;
}

// An access is slow above the midpoint of the level before's slowest typical answer (its p95)
// and the fastest typical new answer after the step (the p5 of the new answers). A level with
// two modes (near and far L2) keeps its far answers below the threshold, and a level where only
// some accesses go further (a line that several elements share) still has its new answers above.
double step_threshold(const StaircaseLevel& before, const std::vector<double>& after) {
  const auto fresh = new_answers(before, after);
  if (fresh.empty()) return before.spread.p95 + new_answer_margin(before);
  return 0.5 * (before.spread.p95 + percentile_of_sorted(fresh, 0.05));
}

// A floor that almost no new answer falls under: their p5 less their p50 - p5 spread
// (kMissFloorMinShare). A cache
// that every SM shares has no load path that skips only it, and its hits can be slow (a far
// partition with a TLB miss on top) while all its misses go to the next level: its geometry
// judges misses against this floor too (device_wide_threshold).
double step_miss_floor(const StaircaseLevel& before, const std::vector<double>& after) {
  const auto fresh = new_answers(before, after);
  if (fresh.empty()) return before.spread.p95 + new_answer_margin(before);
  const double p5 = percentile_of_sorted(fresh, 0.05);
  return p5 - std::max(percentile_of_sorted(fresh, 0.5) - p5, kMissFloorMinShare * p5);
}

std::vector<double> Sweep::pooled_after(const Staircase& s, std::size_t k) const {
  std::vector<double> out;
  const StaircaseLevel& after = s.levels[k + 1];
  for (std::size_t i = after.first; i <= after.last; ++i) {
    out.insert(out.end(), coarse_[i].cycles.begin(), coarse_[i].cycles.end());
  }
  return out;
}

RefinedStep Sweep::refine(const Staircase& s, std::size_t k) {
  RefinedStep r;
  r.step = s.steps[k];
  const StaircaseLevel& before = s.levels[k];
  const StaircaseLevel& after = s.levels[k + 1];
  const std::vector<double> after_accesses = pooled_after(s, k);
  r.threshold_cycles = step_threshold(before, after_accesses);
  r.miss_floor_cycles = step_miss_floor(before, after_accesses);
  FitRule rule;
  rule.threshold_cycles = r.threshold_cycles;

  std::map<std::uint64_t, FitVerdict> verdicts;
  const auto judge = [&](std::span<const std::uint64_t> footprints,
                         std::span<const Measured> measured) {
    for (std::size_t i = 0; i < footprints.size(); ++i) {
      verdicts[footprints[i]] = judge_fit(measured[i].cycles, measured[i].indices, rule);
    }
  };
  const std::span<const std::uint64_t> level_range(s.footprints.data() + before.first,
                                                   after.last - before.first + 1);
  judge(level_range, std::span(coarse_).subspan(before.first, level_range.size()));

  // Bracket: the first footprint that misses at or after the step's level, and the largest
  // fitting footprint below it.
  std::uint64_t miss = level_range.back(), fit = 0;
  for (const auto& [footprint, verdict] : verdicts) {
    if (!verdict.fits && footprint >= before.to_bytes) {
      miss = footprint;
      break;
    }
  }
  for (const auto& [footprint, verdict] : verdicts) {
    if (footprint < miss && verdict.fits) fit = footprint;
  }
  if (fit == 0) fit = before.from_bytes;
  // Sampled chases (fewer timed loads than two passes) resolve no better than the share of
  // slow accesses their outlier limit allows: stop the section there.
  const auto resolution_strides = [&](std::uint64_t footprint) {
    const FitVerdict& v = verdicts.at(footprint);
    const double resolved_bytes = v.min_passes >= kTimedPasses ? 0 : v.limit * footprint;
    return static_cast<std::uint32_t>(
        std::max(1.0, std::floor(resolved_bytes / static_cast<double>(stride()))));
  };
  const std::uint32_t slots =
      row_.run_alone ? 1 : std::max<std::uint32_t>(1, limits_.concurrent_slots);
  for (;;) {
    const auto points = section_points(fit, miss, stride(), slots, resolution_strides(miss));
    if (points.empty()) break;
    judge(points, measure(points, "section"));
    std::uint64_t first_miss = miss;
    for (std::uint64_t p : points) {
      if (!verdicts.at(p).fits) {
        first_miss = p;
        break;
      }
    }
    for (std::uint64_t p : points) {
      if (p < first_miss && verdicts.at(p).fits) fit = p;
    }
    miss = first_miss;
  }
  r.edge_bytes = fit;
  r.first_miss_bytes = miss;
  for (const auto& [footprint, verdict] : verdicts) {
    r.verdicts.push_back({footprint, verdict.miss_fraction, verdict.fits});
  }
  r.edge_confidence = edge_confidence(r.verdicts, fit);
  r.confidence = r.step.confidence * r.edge_confidence;
  return r;
}

// ---- evidence ----------------------------------------------------------------------------

nlohmann::json staircase_evidence(const Staircase& s, const Sweep& sweep) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : s.levels) {
    levels.push_back({{"from_bytes", l.from_bytes},
                      {"to_bytes", l.to_bytes},
                      {"latency_cycles", l.latency},
                      {"mean_cycles", l.mean},
                      {"reduced_cycles", l.reduced},
                      {"spread", spread_evidence(l.spread)}});
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& st : s.steps) {
    steps.push_back({{"between_bytes", {st.before_bytes, st.after_bytes}},
                     {"latency_before", st.latency_before},
                     {"latency_after", st.latency_after},
                     {"jump_cycles", st.jump},
                     {"ks",
                      {{"D", st.ks.statistic},
                       {"critical_value", st.ks.critical_value},
                       {"p_value", st.ks.p_value},
                       {"different", st.ks.different}}},
                     {"significance", st.significance},
                     {"contrast", st.contrast},
                     {"sharpness", st.sharpness},
                     {"confidence", st.confidence}});
  }
  return {
      {"footprints", s.footprints},
      {"reduction", to_string(s.used)},
      {"series", {{"geometric", s.geometric}, {"mean", s.mean}, {"rms_from_min", s.rms_from_min}}},
      {"noise_sigma", s.noise_sigma},
      {"change_points", s.change_points},
      {"levels", levels},
      {"steps", steps},
      {"stride_bytes", sweep.stride()},
      {"order", sweep.layout().kind == Layout::sequential ? "sequential" : "one per page, random"},
      {"cost", sweep.cost()}};
}

nlohmann::json refined_evidence(const RefinedStep& r) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& v : r.verdicts) {
    verdicts.push_back({{"footprint_bytes", v.footprint_bytes},
                        {"miss_fraction", v.miss_fraction},
                        {"fits", v.fits}});
  }
  return {{"threshold_cycles", r.threshold_cycles},
          {"miss_floor_cycles", r.miss_floor_cycles},
          {"edge_bytes", r.edge_bytes},
          {"first_miss_bytes", r.first_miss_bytes},
          {"step_confidence", r.step.confidence},
          {"edge_confidence", r.edge_confidence},
          {"verdicts", verdicts}};
}

// The accesses of a level's footprints, pooled.
std::vector<double> pooled(const Sweep& sweep, const StaircaseLevel& level) {
  std::vector<double> out;
  for (std::size_t i = level.first; i <= level.last; ++i) {
    const auto& c = sweep.coarse()[i].cycles;
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

Property latency_of_level(const Sweep& sweep, const StaircaseLevel& level, double clock_khz,
                          const std::string& method) {
  Property p;
  p.name = "latency";
  p.unit = "cycles";
  p.value = level.latency;
  p.spread = level.spread;
  const auto samples = pooled(sweep, level);
  p.confidence = level.latency > 0 ? fraction_within(samples, level.latency, kDescribedBand) : 0;
  if (clock_khz > 0) p.seconds_value = level.latency / (clock_khz * 1e3);
  p.method = method;
  p.evidence = {{"level_bytes", {level.from_bytes, level.to_bytes}},
                {"statistic", "median of the per-footprint medians"}};
  return p;
}

Property size_from_step(const RefinedStep& r, const std::string& method) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.value = r.edge_bytes;
  p.confidence = r.confidence;
  p.method = method;
  p.evidence = refined_evidence(r);
  return p;
}

Property lower_bound_size(const StaircaseLevel& level, const std::string& why,
                          const std::string& method) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.value = level.to_bytes;
  p.inconclusive = true;
  p.bound = Bound::lower;
  p.note = "lower bound: " + why;
  p.method = method;
  p.evidence = {{"bound", "lower"}};
  return p;
}

double clock_of(ProbeContext& ctx) {
  return ctx.backend.current_sm_clock_khz();
}

// ---- rows --------------------------------------------------------------------------------

// Skips unless the first constant level answers clearly faster than L2 (a cg chase on the
// smallest footprint): otherwise no cache on the SM holds constants and the staircase is L2's.
void require_constant_cache(ProbeContext& ctx, const StaircaseLevel& first,
                            std::uint64_t footprint) {
  ChaseSpec l2;
  l2.path = LoadPath::cg;
  l2.footprint_bytes = footprint;
  l2.stride_bytes = kConstantStrideBytes;
  l2.seed = ctx.seed;
  l2.timed_loads = std::min(kMinTimedLoads, ctx.backend.limits().max_timed_loads);
  const std::vector<ChaseSpec> batch = {l2};
  const Spread reference =
      summarize(corrected_cycles(ctx.run(batch, "constant_l1.size/l2").front()));
  require_clearly_faster(first.spread, reference, LoadPath::constant, LoadPath::cg,
                         "constant loads are not cached on the SM (const ≈ cg)");
}

void run_constant_caches(ProbeContext& ctx, const StaircaseRow& row) {
  const std::uint64_t bank = ctx.backend.limits().max_constant_footprint_bytes;
  const std::uint64_t start = 2 * kConstantStrideBytes;
  if (bank < 4 * start) throw ProbeSkipped("the backend cannot chase the constant bank");
  Sweep sweep(ctx, row, {Layout::sequential, kConstantStrideBytes, std::nullopt, 0});
  const Staircase s =
      sweep.coarse(footprint_grid(start, bank, row.grid_ratio, kConstantStrideBytes));
  require_constant_cache(ctx, s.levels.front(), start);
  std::vector<RefinedStep> refined;
  for (std::size_t k = 0; k < s.steps.size(); ++k) refined.push_back(sweep.refine(s, k));

  const std::string method =
      "fine-grained pointer chase via const, " + format_bytes(kConstantStrideBytes) +
      " stride, sequential, 1 warm + 2 timed passes over footprints up to the constant bank (" +
      format_bytes(static_cast<double>(bank)) +
      "); staircase: geometric reduction, PELT change points, KS test per step, then a section "
      "search between the footprints bracketing each step";
  const nlohmann::json evidence = staircase_evidence(s, sweep);
  const double clock = clock_of(ctx);
  for (std::size_t k = 0; k < row.elements.size() && k < s.levels.size(); ++k) {
    Element& element = element_for(ctx.topology, row.elements[k]);
    Property size =
        k < refined.size()
            ? size_from_step(refined[k], method)
            : lower_bound_size(s.levels[k],
                               "the constant bank (" + format_bytes(static_cast<double>(bank)) +
                                   ") caps the footprint",
                               method);
    size.evidence["staircase"] = evidence;
    size.evidence["level"] = k;
    element.set(std::move(size));
    element.set(
        latency_of_level(sweep, s.levels[k], clock,
                         "level " + std::to_string(k) + " of the constant staircase: " + method));
  }
}

void run_l2_and_dram(ProbeContext& ctx, const StaircaseRow& row) {
  const BackendLimits limits = ctx.backend.limits();
  const std::uint64_t l2_api = ctx.backend.facts().l2_bytes;
  const std::uint64_t l1 = measured(ctx.topology, "l1", "size");
  const std::uint64_t line = measured(ctx.topology, "l1", "line");
  const std::uint32_t stride = line > 0 ? static_cast<std::uint32_t>(line) : kFallbackL2StrideBytes;
  const std::uint64_t start = l1 > 0 ? kL1Multiple * l1 : kL2SweepStartBytes;
  std::uint64_t end = l2_api > 0 ? kL2SweepEndFactor * l2_api : kFallbackL2SweepEndBytes;
  end = std::min({end, limits.max_footprint_bytes, kMaxIndexedBytes});
  if (end < 4 * start) throw ProbeSkipped("the backend's footprint limit leaves no L2 sweep");

  Sweep sweep(ctx, row, {Layout::sequential, stride, std::nullopt, 0});
  const Staircase s = sweep.coarse(footprint_grid(start, end, row.grid_ratio, stride));
  const std::string method =
      "fine-grained pointer chase via cg, alone, " + format_bytes(stride) + " stride (" +
      (line > 0 ? "the measured l1.line" : "no measured line: 32 B") +
      "), sequential, 1 warm pass + up to " + std::to_string(kMaxTimedLoads) +
      " timed loads, footprints " + format_bytes(static_cast<double>(start)) + " to " +
      format_bytes(static_cast<double>(end)) +
      "; staircase (geometric reduction, PELT, KS), last step refined by a section search";
  nlohmann::json evidence = staircase_evidence(s, sweep);
  evidence["api_l2_bytes"] = l2_api;
  Element& l2 = element_for(ctx.topology, "l2");
  if (s.steps.empty()) {
    Property p =
        lower_bound_size(s.levels.back(), "no step up to the largest footprint swept", method);
    p.evidence["staircase"] = evidence;
    l2.set(std::move(p));
    return;
  }
  const RefinedStep last = sweep.refine(s, s.steps.size() - 1);
  Property size = size_from_step(last, method);
  size.evidence["staircase"] = evidence;
  size.evidence["api_l2_bytes"] = l2_api;
  if (l2_api > 0) {
    const double ratio = static_cast<double>(last.edge_bytes) / static_cast<double>(l2_api);
    size.evidence["measured_over_api"] = ratio;
    const double resolution = static_cast<double>(last.first_miss_bytes - last.edge_bytes);
    if (std::abs(static_cast<double>(last.edge_bytes) - static_cast<double>(l2_api)) <=
        resolution + stride) {
      size.note = "agrees with the API L2 size (" + format_bytes(static_cast<double>(l2_api)) +
                  ") within the search resolution";
    } else {
      size.note = "API says " + format_bytes(static_cast<double>(l2_api)) +
                  "; measured/API = " + format_number(ratio, 3) +
                  ": below 1, part of the L2 is not available to these loads (reserved, "
                  "persisting or a partition holding only its own share); above 1, the line "
                  "is smaller than the stride";
    }
  }
  l2.set(std::move(size));
  // Steps before the last one lie inside L2: a segment (e.g. the near partition's share).
  if (s.steps.size() > 1) {
    RefinedStep segment = sweep.refine(s, 0);
    Property p = size_from_step(segment, "the first of several steps below the L2 size: " + method);
    p.name = "segment_size";
    p.note = "a step inside L2 (" + std::to_string(s.steps.size() - 1) +
             " before the last): a near/far partition boundary or a segment";
    p.evidence["staircase"] = evidence;
    l2.set(std::move(p));
  }
}

// TLB reach: chains of one element per page-or-larger stride, N elements from a few to
// thousands; the step from level k to k + 1 is TLB level k running out of entries.
class TlbMeasurement {
 public:
  TlbMeasurement(ProbeContext& ctx, const StaircaseRow& row) : ctx_(ctx), row_(row) {}
  void run();

 private:
  struct PageSize {
    std::uint64_t bytes = 0;   // page size, or the stride when only a lower bound is known
    bool lower_bound = false;  // the page is at least `bytes`
    nlohmann::json evidence;
  };
  // One staircase over chains of 2 .. max_elements elements, `stride` apart, every step refined.
  struct Ladder {
    std::unique_ptr<Sweep> sweep;
    Staircase staircase;
    std::vector<RefinedStep> refined;
    std::size_t rejected_steps = 0;  // steps past the last level: down, or within the noise
  };
  Ladder climb(std::uint64_t stride, std::uint64_t max_elements, std::uint32_t sm);
  PageSize detect_page(Sweep& sweep, const Staircase& s, const RefinedStep& first);
  void report_dram_with_tlb_misses(std::uint64_t stride, std::uint64_t max_elements,
                                   std::uint64_t last_reach_elements, bool levels_found);

  ProbeContext& ctx_;
  const StaircaseRow& row_;
};

// Per-word medians of the timed loads of some chases: a reference (see WordReference).
WordReference per_word_medians(std::span<const Measured> chases) {
  std::map<std::uint32_t, std::vector<double>> samples;
  for (const Measured& m : chases) {
    for (std::size_t j = 0; j < m.cycles.size(); ++j) samples[m.indices[j]].push_back(m.cycles[j]);
  }
  WordReference reference;
  for (auto& [word, cycles] : samples) reference[word] = median(cycles);
  return reference;
}

TlbMeasurement::PageSize TlbMeasurement::detect_page(Sweep& sweep, const Staircase& s,
                                                     const RefinedStep& first) {
  // 2 E1 elements (E1 = the first level's entries, counted in strides) at strides below the
  // sweep's: while the stride is at least a page they touch 2 E1 pages and miss; at half a page
  // and below they touch at most E1 and hit. The page is the smallest stride that misses. Each
  // element's own latency (near or far L2) comes from chasing each half alone (E1 elements,
  // E1 pages at most: no miss), so that only the TLB's share is judged.
  PageSize page{sweep.stride(), true, nlohmann::json::array()};
  const std::uint64_t half = first.edge_bytes / sweep.stride();
  const double penalty = s.levels[1].mean - s.levels[0].mean;
  for (std::uint64_t stride = sweep.stride() / 2; stride >= kSmallestPageBytes; stride /= 2) {
    const auto s32 = static_cast<std::uint32_t>(stride);
    const std::uint64_t halves[] = {half * stride, 2 * half * stride};
    Sweep lower(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, 0});
    Sweep upper(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, half});
    std::vector<Measured> reference_chases = lower.measure(std::span(halves, 1), "page");
    reference_chases.push_back(upper.measure(std::span(halves + 1, 1), "page").front());
    WordReference reference = per_word_medians(reference_chases);
    std::vector<double> levels;
    for (const auto& [word, cycles] : reference) levels.push_back(cycles);
    const double base = median(levels);
    Sweep both(ctx_, row_, {Layout::one_per_page, s32, sweep.layout().sm, 0});
    both.set_reference(std::move(reference));
    const Measured m = both.measure(std::span(halves + 1, 1), "page").front();
    FitRule rule;
    rule.threshold_cycles = base + 0.5 * penalty;
    const FitVerdict v = judge_fit(m.cycles, m.indices, rule);
    // A TLB that overflows misses on the same elements in every pass (the chain is a cycle
    // over 2 E1 pages): judge on elements slow in every pass. Slow single accesses are L2
    // noise here: on an H100, 70 of 990 accesses at a 1 MiB stride crossed the threshold with no
    // element slow in every pass, and every stride down to 4 KiB looked like a miss.
    const bool misses = v.missing > v.allowed;
    page.evidence.push_back(verdict_evidence(v, halves[1]));
    page.evidence.back()["stride_bytes"] = stride;
    page.evidence.back()["threshold_cycles"] = rule.threshold_cycles;
    page.evidence.back()["misses"] = misses;
    if (!misses) {
      page.lower_bound = stride * 2 == sweep.stride();
      return page;
    }
    page.bytes = stride;
    page.lower_bound = false;
  }
  return page;  // misses down to the smallest page: the page is at most that
}

void TlbMeasurement::report_dram_with_tlb_misses(std::uint64_t stride, std::uint64_t max_elements,
                                                 std::uint64_t last_reach_elements,
                                                 bool levels_found) {
  // Cold: L2 flushed, no warm pass, every element loaded once: each load touches a new page
  // (compulsory TLB misses at every level) and a new line (a DRAM access).
  const std::uint64_t elements =
      std::min(max_elements, std::max<std::uint64_t>(kDramSamples, 4 * last_reach_elements));
  Sweep sweep(ctx_, row_,
              {Layout::one_per_page, static_cast<std::uint32_t>(stride), std::nullopt, 0});
  ChaseSpec spec = sweep.chase(elements * stride);
  spec.warm_passes = 0;
  spec.flush_device_caches = true;
  spec.timed_loads = static_cast<std::uint32_t>(
      std::min<std::uint64_t>({elements, kDramSamples, ctx_.backend.limits().max_timed_loads}));
  ctx_.progress("dram.latency_tlb_miss: cold chase over " +
                format_bytes(static_cast<double>(spec.footprint_bytes)));
  const std::vector<ChaseSpec> batch = {spec};
  const auto traces = ctx_.run(batch, "dram.latency_tlb_miss");
  const auto corrected = corrected_cycles(traces[0]);
  const Spread spread = summarize(corrected);
  Property p;
  p.name = "latency_tlb_miss";
  p.unit = "cycles";
  p.value = spread.p50;
  p.spread = spread;
  p.raw = summarize(raw_cycles(traces[0]));
  p.confidence = spread.p50 > 0 ? fraction_within(corrected, spread.p50, kDescribedBand) : 0;
  if (traces[0].clock_khz > 0) p.seconds_value = spread.p50 / (traces[0].clock_khz * 1e3);
  p.method = "cold pointer chase via cg after flushing L2, no warm pass, one element per " +
             format_bytes(static_cast<double>(stride)) +
             " stride (at least a page) in random order over " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ": every load a new page and a new line; p50, timing overhead subtracted";
  p.evidence = {{"footprint_bytes", spec.footprint_bytes},
                {"stride_bytes", stride},
                {"elements", elements},
                {"samples", corrected.size()},
                {"overhead_cycles", traces[0].overhead_cycles},
                {"clock_khz", traces[0].clock_khz},
                {"compare", "dram.latency is page-local (TLB warm)"}};
  if (!levels_found) {
    // Without a TLB level below this footprint nothing says these loads missed the TLB.
    p.inconclusive = true;
    p.note = "no TLB level was found up to " +
             format_bytes(static_cast<double>(elements * stride)) +
             ", so these loads may have hit the TLB: a DRAM latency, not one with TLB misses";
  }
  element_for(ctx_.topology, "dram").set(std::move(p));
}

TlbMeasurement::Ladder TlbMeasurement::climb(std::uint64_t stride, std::uint64_t max_elements,
                                             std::uint32_t sm) {
  Ladder ladder;
  ladder.sweep = std::make_unique<Sweep>(
      ctx_, row_, Layout{Layout::one_per_page, static_cast<std::uint32_t>(stride), sm, 0});
  Sweep& sweep = *ladder.sweep;
  // Reference: the longest chain, where every TLB level that can overflow does for every
  // element alike; what stays different between elements is their own L2 answer.
  const std::uint64_t longest = max_elements * stride;
  sweep.set_reference(per_word_medians(sweep.measure(std::span(&longest, 1), "reference")));
  ladder.staircase = sweep.coarse(footprint_grid(2 * stride, longest, row_.grid_ratio, stride));
  // A TLB level is a step up that the staircase is sure of. The levels come in order, so the
  // first step that is not (a step down, or one within the L2's noise: on an H100 the 2 MiB
  // chain up to 8 GiB showed +10, -7.6 and +8.6 cycles at confidences 0.44, 0.25 and 0.05)
  // ends the list.
  for (std::size_t k = 0; k < ladder.staircase.steps.size(); ++k) {
    const StaircaseStep& step = ladder.staircase.steps[k];
    if (step.jump <= 0 || step.confidence < kMinTlbStepConfidence) {
      ladder.rejected_steps = ladder.staircase.steps.size() - k;
      break;
    }
    ladder.refined.push_back(sweep.refine(ladder.staircase, k));
  }
  return ladder;
}

void TlbMeasurement::run() {
  const BackendLimits limits = ctx_.backend.limits();
  const std::uint64_t l2_api = ctx_.backend.facts().l2_bytes;
  const std::uint64_t footprint_limit = std::min(limits.max_footprint_bytes, kMaxIndexedBytes);
  std::uint64_t max_elements =
      std::min<std::uint64_t>(kMaxTlbElements, limits.max_timed_loads / kTimedPasses);
  if (l2_api > 0) max_elements = std::min(max_elements, l2_api / kL2BytesPerTlbElement);
  // The stride: the largest power of two that still fits max_elements into the footprint limit,
  // so that the chain gets as far past as many pages as it can; a page larger than the stride
  // only lowers the page-size resolution (reach = elements x min(stride, page) either way).
  const std::uint64_t sweep_stride =
      floor_power_of_two(std::max<std::uint64_t>(1, footprint_limit / kMaxTlbElements));
  if (max_elements < 8 || sweep_stride < kSmallestPageBytes) {
    throw ProbeSkipped("the backend's limits leave no room for a chain of one element per page");
  }
  // One SM for every chase: which L2 partition is near depends on it.
  const std::uint32_t sm = limits.sm_ids.empty() ? 0 : limits.sm_ids.front();
  std::uint64_t stride = sweep_stride;
  Ladder ladder = climb(stride, max_elements, sm);
  PageSize page{stride, true, nullptr};
  if (!ladder.refined.empty()) {
    page = detect_page(*ladder.sweep, ladder.staircase, ladder.refined.front());
    // A stride of several pages puts every element into the same few sets of a set-associative
    // TLB (pages map to sets modulo their count): climb again with one element per page.
    if (!page.lower_bound && page.bytes < stride) {
      stride = page.bytes;
      ladder = climb(stride, std::min(max_elements, footprint_limit / stride), sm);
    }
  }
  const Staircase& s = ladder.staircase;
  const Sweep& sweep = *ladder.sweep;
  const std::vector<RefinedStep>& refined = ladder.refined;
  const std::uint64_t unit = std::min<std::uint64_t>(page.bytes, stride);
  const std::string method =
      "pointer chase via cg, alone, one element per " + format_bytes(static_cast<double>(stride)) +
      " stride at a seeded offset, random cycle, 1 warm + 2 timed passes, 2 to " +
      std::to_string(max_elements) +
      " elements (chain in L2); staircase (geometric reduction, PELT, KS), steps refined to one "
      "element; reach = elements x min(stride, page)";
  const nlohmann::json evidence = staircase_evidence(s, sweep);
  for (std::size_t k = 0; k < row_.elements.size(); ++k) {
    Element& tlb = element_for(ctx_.topology, row_.elements[k]);
    Property reach;
    reach.name = "reach";
    reach.unit = "bytes";
    reach.method = method;
    if (k < refined.size()) {
      const std::uint64_t entries = refined[k].edge_bytes / stride;
      reach.value = entries * unit;
      reach.confidence = refined[k].confidence;
      reach.evidence = refined_evidence(refined[k]);
      reach.evidence["elements"] = entries;
      reach.evidence["page_bytes"] = page.bytes;
      reach.evidence["page_is_lower_bound"] = page.lower_bound;
      reach.evidence["staircase"] = evidence;
      Property penalty;
      penalty.name = "miss_penalty";
      penalty.unit = "cycles";
      const StaircaseLevel& before = s.levels[k];
      const StaircaseLevel& after = s.levels[k + 1];
      // Means, not medians: a miss adds the same cycles to near and far L2 hits alike, which
      // shifts the mean by exactly that, while the median of two modes can jump between them.
      penalty.value = after.mean - before.mean;
      std::vector<double> shifts;
      for (std::size_t i = after.first; i <= after.last; ++i)
        shifts.push_back(s.mean[i] - before.mean);
      penalty.spread = summarize(shifts);
      penalty.confidence = refined[k].step.confidence;
      penalty.method = "mean latency of TLB level " + std::to_string(k + 1) +
                       "'s plateau minus the level below it, from the reach staircase";
      penalty.evidence = {{"mean_before_cycles", before.mean}, {"mean_after_cycles", after.mean}};
      tlb.set(std::move(penalty));
    } else {
      reach.value = max_elements * unit;
      reach.inconclusive = true;
      reach.bound = Bound::lower;
      reach.note = (ladder.rejected_steps > 0
                        ? std::to_string(ladder.rejected_steps) +
                              " step(s) down or within the noise (confidence < 0.5) were not "
                              "taken as levels; "
                        : std::string()) +
                   "no step for this level up to " + std::to_string(max_elements) + " elements (" +
                   format_bytes(static_cast<double>(max_elements * unit)) +
                   " of pages): the reach is larger, or there is no such level";
      reach.evidence = {
          {"bound", "lower"}, {"lower_bound_bytes", max_elements * unit}, {"staircase", evidence}};
    }
    tlb.set(std::move(reach));
  }
  Property page_property;
  page_property.name = "page";
  page_property.unit = "bytes";
  page_property.value = refined.empty() ? nlohmann::json(nullptr) : nlohmann::json(page.bytes);
  page_property.inconclusive = refined.empty() || page.lower_bound;
  if (!refined.empty() && page.lower_bound) page_property.bound = Bound::lower;
  page_property.note = refined.empty() ? "no TLB step to detect it with"
                       : page.lower_bound
                           ? "lower bound: the sweep stride; the page is at least this"
                           : "";
  page_property.method =
      "twice the first TLB level's entries chased at halving strides: the smallest stride that "
      "still misses is the page";
  page_property.evidence = {{"strides", page.evidence}};
  element_for(ctx_.topology, row_.elements.front()).set(std::move(page_property));

  const std::uint64_t last_reach = refined.empty() ? 0 : refined.back().edge_bytes / stride;
  report_dram_with_tlb_misses(sweep_stride, footprint_limit / sweep_stride, last_reach,
                              !refined.empty());
}

}  // namespace

void StaircaseProbe::run(ProbeContext& ctx) {
  switch (row_.question) {
    case StaircaseQuestion::constant_caches:
      return run_constant_caches(ctx, row_);
    case StaircaseQuestion::l2_and_dram:
      return run_l2_and_dram(ctx, row_);
    case StaircaseQuestion::tlb_reach:
      return TlbMeasurement(ctx, row_).run();
  }
}

// ---- L2 partitions -------------------------------------------------------------------------

namespace {

constexpr std::uint32_t kPartitionStrideBytes = 32;
constexpr std::uint32_t kPartitionSamples = 4096;
constexpr std::uint64_t kPartitionFallbackBytes = 1ull << 20;

Property mode_latency(const std::string& name, const Spread& mode, double clock_khz,
                      const std::string& method) {
  Property p;
  p.name = name;
  p.unit = "cycles";
  p.value = mode.p50;
  p.spread = mode;
  if (clock_khz > 0) p.seconds_value = mode.p50 / (clock_khz * 1e3);
  p.method = method;
  return p;
}

}  // namespace

std::string L2PartitionProbe::description() const {
  return "L2 near and far latency and partition count from the two modes of one warm L2 chase";
}

void L2PartitionProbe::run(ProbeContext& ctx) {
  const std::uint64_t l2_api = ctx.backend.facts().l2_bytes;
  const std::uint64_t l1 = measured(ctx.topology, "l1", "size");
  // Well inside L2 (1/16 of the API size) and beyond twice the measured L1, as l2.latency.
  std::uint64_t footprint = l2_api > 0 ? std::max(floor_power_of_two(l2_api / 16), 2 * l1)
                                       : std::max(kPartitionFallbackBytes, 2 * l1);
  if (l2_api > 0) footprint = std::min(footprint, l2_api / 2);
  footprint = round_down(std::min(footprint, ctx.backend.limits().max_footprint_bytes),
                         kPartitionStrideBytes);
  if (footprint < kPartitionStrideBytes) throw ProbeSkipped("no footprint for an L2 chase");
  ChaseSpec spec;
  spec.path = LoadPath::cg;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = kPartitionStrideBytes;
  spec.order = ChaseOrder::random_permutation;
  spec.seed = ctx.seed;
  spec.warm_passes = 1;
  spec.timed_loads = std::min(kPartitionSamples, ctx.backend.limits().max_timed_loads);
  ctx.progress("l2.partitions: warm chase over " + format_bytes(static_cast<double>(footprint)));
  const std::vector<ChaseSpec> batch = {spec};  // alone: nothing else in L2
  const auto traces = ctx.run(batch, "l2.partitions");
  const auto cycles = corrected_cycles(traces[0]);
  const ModeSplit split = split_two_modes(cycles);
  const double clock = traces[0].clock_khz;
  const std::string method =
      "warm pointer chase via cg, alone on SM " + std::to_string(traces[0].sm_id) + ", " +
      format_bytes(static_cast<double>(footprint)) + " footprint, 32 B stride, random cycle, " +
      std::to_string(cycles.size()) +
      " timed loads; the sorted latencies split at Opt's change point (Otsu), accepted as two "
      "modes when >= 8 robust sigmas apart with >= 5 % each";
  const nlohmann::json evidence = {
      {"footprint_bytes", footprint},  {"sm", traces[0].sm_id},
      {"bimodal", split.bimodal},      {"threshold_cycles", split.threshold},
      {"far_share", split.slow_share}, {"separation_sigmas", split.separation_sigmas},
      {"reason", split.reason}};
  Element& l2 = element_for(ctx.topology, "l2");
  Property near = mode_latency("near_latency", split.fast, clock, method);
  near.evidence = evidence;
  Property partitions;
  partitions.name = "partitions";
  partitions.unit = "";
  partitions.source = Source::derived;
  partitions.evidence = evidence;
  if (!split.bimodal) {
    near.confidence = fraction_within(cycles, split.fast.p50, kDescribedBand);
    near.note = "one mode: every L2 hit answers alike (" + split.reason + ")";
    partitions.value = 1;
    partitions.inconclusive = true;
    partitions.note =
        "no far mode seen from this SM: one partition, or partitions that answer "
        "alike";
    partitions.method = method;
    l2.set(std::move(near));
    l2.set(std::move(partitions));
    return;
  }
  const double near_share = 1.0 - split.slow_share;
  // SM s is near one partition of p when lines spread evenly: a near share of 1/p.
  const double raw = 1.0 / near_share;
  const double count = std::max(2.0, std::round(raw));
  near.confidence = near_share;  // the share the near latency describes
  Property far = mode_latency("far_latency", split.slow, clock, method);
  far.confidence = split.slow_share;
  far.evidence = evidence;
  partitions.value = static_cast<int>(count);
  // 1 at an integer count, 0 half-way between two.
  partitions.confidence = std::clamp(1.0 - 2.0 * std::abs(raw - count), 0.0, 1.0);
  partitions.method =
      "1 / (share of near answers), rounded: lines spread evenly over the "
      "partitions and an SM is near one of them; from the two modes of " +
      method;
  partitions.evidence["raw_count"] = raw;
  l2.set(std::move(near));
  l2.set(std::move(far));
  l2.set(std::move(partitions));
}

std::vector<std::string> StaircaseProbe::also_writes() const {
  std::vector<std::string> also;
  for (const std::string& element : row_.elements) {
    if (element != element_id()) also.push_back(element);
  }
  if (row_.question == StaircaseQuestion::tlb_reach) also.push_back("dram");
  return also;
}

std::vector<std::unique_ptr<Probe>> staircase_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const auto& row : staircase_rows()) {
    probes.push_back(std::make_unique<StaircaseProbe>(row));
    // After l2.size, which it does not need, but beside the other L2 questions.
    if (row.question == StaircaseQuestion::l2_and_dram)
      probes.push_back(std::make_unique<L2PartitionProbe>());
  }
  return probes;
}

}  // namespace memtopo
