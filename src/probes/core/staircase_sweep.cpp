#include "probes/core/staircase_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/size/size_search.hpp"
#include "run/clock.hpp"

namespace memtopo::staircase {
namespace {


// A new answer after a step lies above the level before's p95 by at least this: 2 % (well above
// jitter at any latency), at least 2 cycles.
constexpr double kThresholdMarginShare = 0.02;
constexpr double kMinThresholdMarginCycles = 2.0;
// The miss floor lies below the new answers' p5 by their p50 - p5 spread, at least 1 % of the
// p5: a spread of a cycle or two (a simulated device) says nothing about the jitter that the
// per-chase overhead correction adds.
constexpr double kMissFloorMinShare = 0.01;
// Mixes the seed with an element's index for its offset inside its stride (the golden ratio's
// 64-bit fraction: consecutive elements get unrelated offsets).
constexpr std::uint64_t kOffsetSeedMultiplier = 0x9E3779B97F4A7C15ull;
// Other placements' edges (refine_placed) are resolved to this share of the first one's: they
// differ by percents (an H200's L2 by up to a fifth), and each halving of the bracket is one more
// chase of tens of MiB.
constexpr std::uint64_t kPlacedResolutionShare = 128;
// The grid's own points stop a hair below `end`, which it then adds itself: no point next to it.
constexpr double kGridEndSlack = 0.999;
// A hit reference (Sweep::hit_reference) revisits an element's 32-byte sector, the smallest an
// NVIDIA L2 fills (8 words of 4 bytes): its 64-bit words, 4 loads in all.
constexpr std::uint64_t kWordsPerSector = 8;
constexpr std::uint64_t kWordsPerRevisitedSector = kWordsPerSector / 2;

// The accesses of the level after a step that lie clearly above the level before's slowest
// typical answer (`before_p95`, see Sweep::typical_slowest, plus a margin), sorted: the step's
// new answers.
double new_answer_margin(double before_p95) {
  return std::max(kMinThresholdMarginCycles, kThresholdMarginShare * before_p95);
}
std::vector<double> new_answers(double before_p95, std::vector<double> after) {
  const double above = before_p95 + new_answer_margin(before_p95);
  std::erase_if(after, [&](double x) { return x <= above; });
  std::sort(after.begin(), after.end());
  return after;
}

// An access is slow above the midpoint of the level before's slowest typical answer and the
// fastest typical new answer after the step (the p5 of the new answers). A level with two modes
// (near and far L2) keeps its far answers below the threshold, and a level where only some
// accesses go further (a line that several elements share) still has its new answers above.
double step_threshold(double before_p95, const std::vector<double>& after) {
  const auto fresh = new_answers(before_p95, after);
  if (fresh.empty()) return before_p95 + new_answer_margin(before_p95);
  return 0.5 * (before_p95 + percentile_of_sorted(fresh, 0.05));
}

// A floor that almost no new answer falls under: their p5 less their p50 - p5 spread
// (kMissFloorMinShare). A cache that every SM shares has no load path that skips only it, and
// its hits can be slow (a far partition with a TLB miss on top) while all its misses go to the
// next level: its geometry judges misses against this floor too (device_wide_threshold).
double step_miss_floor(double before_p95, const std::vector<double>& after) {
  const auto fresh = new_answers(before_p95, after);
  if (fresh.empty()) return before_p95 + new_answer_margin(before_p95);
  const double p5 = percentile_of_sorted(fresh, 0.05);
  return p5 - std::max(percentile_of_sorted(fresh, 0.5) - p5, kMissFloorMinShare * p5);
}

// The footprints judged so far, ascending, with their verdicts.
using Verdicts = std::map<std::uint64_t, FitVerdict>;

// The largest footprint known to fit and the smallest known to miss.
struct Bracket {
  std::uint64_t fit = 0;
  std::uint64_t miss = 0;
};

// Narrows `bracket` by the verdicts on `points` (ascending): the first point at or above `from`
// that misses becomes the miss, the largest point below it that fits becomes the fit.
void narrow(Bracket& bracket, std::span<const std::uint64_t> points, const Verdicts& verdicts,
            std::uint64_t from) {
  for (std::uint64_t p : points) {
    if (p >= from && !verdicts.at(p).fits) {
      bracket.miss = p;
      break;
    }
  }
  for (std::uint64_t p : points) {
    if (p < bracket.miss && verdicts.at(p).fits) bracket.fit = p;
  }
}

std::vector<std::uint64_t> footprints_of(const Verdicts& verdicts) {
  std::vector<std::uint64_t> footprints;
  for (const auto& [footprint, verdict] : verdicts) footprints.push_back(footprint);
  return footprints;
}

// Sampled chases (fewer timed loads than kTimedPasses passes) resolve no better than the share
// of slow accesses their outlier limit allows: the section stops at that many strides.
std::uint32_t resolvable_strides(const FitVerdict& verdict, std::uint64_t footprint,
                                 std::uint32_t stride) {
  const double resolved_bytes =
      verdict.min_passes >= kTimedPasses ? 0 : verdict.limit * static_cast<double>(footprint);
  return static_cast<std::uint32_t>(
      std::max(1.0, std::floor(resolved_bytes / static_cast<double>(stride))));
}

// A seeded single cycle (Sattolo) over `elements`: every pass visits the pages in the same
// order, which thrashes an LRU TLB as soon as the pages exceed its entries.
template <typename Word>
std::vector<Word> seeded_cycle(std::vector<Word> elements, std::uint64_t seed) {
  SplitMix64 rng(seed);
  for (std::size_t i = elements.size() - 1; i > 0; --i) {
    std::swap(elements[i], elements[rng.below(i)]);
  }
  return elements;
}

}  // namespace

WordReference per_word_medians(std::span<const Measured> chases) {
  std::map<std::uint32_t, std::vector<double>> samples;
  for (const Measured& m : chases) {
    for (std::size_t j = 0; j < m.cycles.size(); ++j) samples[m.indices[j]].push_back(m.cycles[j]);
  }
  WordReference reference;
  for (auto& [word, cycles] : samples) reference[word] = median(cycles);
  return reference;
}

std::vector<std::uint64_t> footprint_grid(std::uint64_t start, std::uint64_t end, double ratio,
                                          std::uint64_t stride) {
  std::vector<std::uint64_t> grid;
  for (double f = static_cast<double>(start); f < static_cast<double>(end) * kGridEndSlack;
       f *= ratio) {
    const std::uint64_t point = std::max(stride, round_down(static_cast<std::uint64_t>(f), stride));
    if (grid.empty() || point > grid.back()) grid.push_back(point);
  }
  const std::uint64_t last = round_down(end, stride);
  if (grid.empty() || last > grid.back()) grid.push_back(last);
  return grid;
}

Sweep::Sweep(ProbeContext& ctx, const StaircaseRow& row, Layout layout)
    : ctx_(ctx), row_(row), layout_(layout), limits_(ctx.backend.limits()) {}

std::uint32_t Sweep::chases_per_batch() const {
  return row_.run_alone ? 1 : std::max<std::uint32_t>(1, limits_.concurrent_slots);
}

// Element i sits at a seeded offset inside its stride, the same for every chain length, so
// that the elements spread over L2 sets (a stride of a page would put them all in one set of
// a modulo-indexed L2) and a refined footprint walks the same addresses as the coarse ones. A
// wide chain's elements are 64-bit: their offsets are even words.
std::uint64_t Sweep::element_word(std::uint64_t element) const {
  const std::uint64_t words_per_stride = layout_.stride_bytes / 4;
  SplitMix64 offset(ctx_.seed * kOffsetSeedMultiplier + element);
  const std::uint64_t in_stride =
      layout_.wide ? 2 * offset.below(words_per_stride / 2) : offset.below(words_per_stride);
  return element * words_per_stride + in_stride;
}

std::vector<std::uint32_t> Sweep::one_per_page_indices(std::uint64_t elements) const {
  std::vector<std::uint32_t> indices;
  for (std::uint64_t i = layout_.first_element; i < elements; ++i) {
    indices.push_back(static_cast<std::uint32_t>(element_word(i)));
  }
  return seeded_cycle(std::move(indices), ctx_.seed);
}

std::vector<std::uint64_t> Sweep::one_per_page_wide_indices(std::uint64_t elements) const {
  std::vector<std::uint64_t> indices;
  for (std::uint64_t i = layout_.first_element; i < elements; ++i) {
    indices.push_back(element_word(i));
  }
  return seeded_cycle(std::move(indices), ctx_.seed);
}

WordReference Sweep::hit_reference(std::uint64_t from, std::uint64_t to, std::size_t chases) {
  const auto start = Clock::now();
  std::vector<std::uint64_t> elements;
  for (std::uint64_t i = from; i < to; ++i) elements.push_back(i);
  elements = seeded_cycle(std::move(elements), ctx_.seed);
  // Elements per chase: every load of one timed (no warm pass: the first visit of an element
  // loads its sector, the revisits hit it).
  const std::uint64_t per_chase =
      std::max<std::uint64_t>(1, limits_.max_timed_loads / kWordsPerRevisitedSector);
  std::map<std::uint32_t, std::vector<double>> revisits;
  for (std::size_t c = 0; c < chases; ++c) {
    for (std::size_t first = 0; first < elements.size(); first += per_chase) {
      const std::size_t last = std::min<std::size_t>(elements.size(), first + per_chase);
      std::vector<std::uint64_t> words;
      std::uint64_t highest = 0;
      for (std::size_t i = first; i < last; ++i) {
        const std::uint64_t own = element_word(elements[i]);
        const std::uint64_t sector = own / kWordsPerSector * kWordsPerSector;
        words.push_back(own);
        for (std::uint64_t w = sector; w < sector + kWordsPerSector; w += 2) {
          if (w != own) words.push_back(w);
        }
        highest = std::max(highest, elements[i]);
      }
      const auto timed = static_cast<std::uint32_t>(words.size());
      const ChaseSpec spec =
          make_chase(row_.path, (highest + 1) * layout_.stride_bytes, layout_.stride_bytes)
              .on_sm(layout_.sm)
              .visiting_wide(std::move(words))
              .warm_passes(0)
              .timed_loads(timed)
              .keeping_arrays();
      loads_ += loads_of(spec);
      ctx_.progress(row_.id + ": hit reference of " + std::to_string(last - first) +
                    " elements");
      for (const Trace& t : ctx_.run(std::span(&spec, 1), row_.id + "/hit reference")) {
        const std::vector<double> cycles = corrected_cycles(t);
        for (std::size_t j = 0; j < cycles.size() && j < t.wide_indices.size(); ++j) {
          const std::uint64_t word = t.wide_indices[j];
          const auto element = static_cast<std::uint32_t>(word * 4 / layout_.stride_bytes);
          if (word != element_word(element)) revisits[element].push_back(cycles[j]);
        }
      }
      ++batches_;
    }
  }
  WordReference reference;
  for (auto& [element, cycles] : revisits) reference[element] = median(cycles);
  seconds_["hit_reference"] += seconds_since(start);
  return reference;
}

void Sweep::set_reference(WordReference reference) {
  reference_.assign(reference.begin(), reference.end());
  std::vector<double> values;
  for (const auto& [word, cycles] : reference_) values.push_back(cycles);
  reference_median_ = values.empty() ? 0 : median(values);
  // Words that are element numbers (the TLB row's wide chains: 0 .. N) index a dense table of
  // corrections: one per timed load, 1.6 M lookups in an H200 discovery.
  dense_correction_.clear();
  const std::size_t last = reference_.empty() ? 0 : reference_.back().first;
  if (!reference_.empty() && last < 2 * reference_.size() + 64) {
    dense_correction_.assign(last + 1, 0.0);
    for (const auto& [word, cycles] : reference_) {
      dense_correction_[word] = reference_median_ - cycles;
    }
  }
}

double Sweep::correction(std::uint32_t word) const {
  if (!dense_correction_.empty()) {
    return word < dense_correction_.size() ? dense_correction_[word] : 0;
  }
  const auto it = std::lower_bound(
      reference_.begin(), reference_.end(), word,
      [](const std::pair<std::uint32_t, double>& entry, std::uint32_t w) { return entry.first < w; });
  return it == reference_.end() || it->first != word ? 0 : reference_median_ - it->second;
}

ChaseBuilder Sweep::chase(std::uint64_t footprint) const {
  const std::uint64_t elements = footprint / layout_.stride_bytes;
  // A wide chain (the TLB row) times every element on every pass however long it is: its
  // counts of missing elements (the scan of sets) must see every element, and a chain of
  // 16385 elements sampled by 16384 loads left one out of every count.
  const std::uint64_t most_timed = layout_.wide ? limits_.max_timed_loads : kMaxTimedLoads;
  const std::uint64_t timed =
      std::clamp<std::uint64_t>(elements * kTimedPasses, kMinTimedLoads, most_timed);
  // Placed further into the array (refine_placed): the same sequential chain over other memory.
  const bool placed = layout_.kind == Layout::sequential && offset_bytes_ > 0;
  ChaseBuilder builder = make_chase(row_.path, footprint, layout_.stride_bytes)
                             .on_sm(layout_.sm)
                             .timed_loads(static_cast<std::uint32_t>(
                                 std::min<std::uint64_t>(timed, limits_.max_timed_loads)))
                             .warming_as_a_stream(layout_.kind == Layout::sequential &&
                                                  layout_.stream_warm);
  if (layout_.kind == Layout::sequential && layout_.cold_from_bytes > 0 &&
      footprint >= layout_.cold_from_bytes) {
    builder.warm_passes(0);
  }
  if (layout_.kind == Layout::one_per_page && layout_.wide) {
    builder.visiting_wide(one_per_page_wide_indices(elements)).keeping_arrays();
  } else if (layout_.kind == Layout::one_per_page) {
    builder.visiting(one_per_page_indices(elements));
  } else if (placed) {
    builder.placed_at(offset_bytes_);
  }
  return builder;
}

std::vector<Measured> Sweep::measure(std::span<const std::uint64_t> footprints,
                                     const std::string& phase) {
  const auto start = Clock::now();
  const std::size_t per_batch = chases_per_batch();
  std::vector<Measured> out;
  for (std::size_t first = 0; first < footprints.size(); first += per_batch) {
    std::vector<ChaseSpec> batch;
    for (std::size_t i = first; i < std::min(footprints.size(), first + per_batch); ++i) {
      batch.push_back(chase(footprints[i]).spec());
      loads_ += loads_of(batch.back());
    }
    ctx_.progress(row_.id + ": " + phase + " " + format_bytes(footprints[first]));
    for (Trace& t : ctx_.run(batch, row_.id + "/" + phase)) {
      Measured m{corrected_cycles(t), std::move(t.indices), t.chain_address};
      for (const std::uint64_t word : t.wide_indices) {
        m.indices.push_back(static_cast<std::uint32_t>(word * 4 / layout_.stride_bytes));
      }
      for (std::size_t j = 0; j < m.cycles.size() && !reference_.empty(); ++j) {
        m.cycles[j] += correction(m.indices[j]);
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

Staircase Sweep::coarse_with(const Staircase& s, std::span<const std::uint64_t> more) {
  std::vector<Measured> added = measure(more, "sweep");
  std::vector<std::pair<std::uint64_t, Measured>> merged;
  for (std::size_t i = 0; i < s.footprints.size() && i < coarse_.size(); ++i) {
    merged.emplace_back(s.footprints[i], std::move(coarse_[i]));
  }
  for (std::size_t i = 0; i < more.size(); ++i) merged.emplace_back(more[i], std::move(added[i]));
  std::stable_sort(merged.begin(), merged.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint64_t> footprints;
  std::vector<std::vector<double>> cycles;
  coarse_.clear();
  for (auto& [footprint, measured] : merged) {
    footprints.push_back(footprint);
    cycles.push_back(measured.cycles);
    coarse_.push_back(std::move(measured));
  }
  return analyze_staircase(footprints, cycles);
}

double typical_slowest(std::span<const Measured> coarse, const StaircaseLevel& level) {
  std::vector<double> p95s;
  for (std::size_t i = level.first; i <= level.last && i < coarse.size(); ++i) {
    std::vector<double> sorted = coarse[i].cycles;
    if (sorted.empty()) continue;
    std::sort(sorted.begin(), sorted.end());
    p95s.push_back(percentile_of_sorted(sorted, 0.95));
  }
  return p95s.empty() ? level.spread.p95 : median(p95s);
}

std::vector<double> Sweep::pooled(const StaircaseLevel& level) const {
  std::vector<double> out;
  for (std::size_t i = level.first; i <= level.last; ++i) {
    out.insert(out.end(), coarse_[i].cycles.begin(), coarse_[i].cycles.end());
  }
  return out;
}

nlohmann::json Sweep::cost() const {
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& [phase, seconds] : seconds_) timings[phase + "_s"] = seconds;
  return {{"batches", batches_}, {"loads", loads_}, {"timings", timings}};
}

RefinedStep Sweep::search_edge(std::uint64_t fit, std::uint64_t miss, Verdicts& verdicts,
                               const FitRule& rule, std::uint64_t resolution_bytes) {
  Bracket bracket{fit, miss};
  const auto resolution_strides =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(resolution_bytes / stride(), UINT32_MAX));
  for (;;) {
    const auto points = section_points(
        bracket.fit, bracket.miss, stride(), chases_per_batch(),
        std::max(resolution_strides,
                 resolvable_strides(verdicts.at(bracket.miss), bracket.miss, stride())));
    if (points.empty()) break;
    const auto measured = measure(points, "section");
    for (std::size_t i = 0; i < points.size(); ++i) {
      verdicts[points[i]] = judge_fit(measured[i].cycles, measured[i].indices, rule);
    }
    narrow(bracket, points, verdicts, 0);
  }
  RefinedStep r;
  r.threshold_cycles = rule.threshold_cycles;
  r.edge_bytes = bracket.fit;
  r.first_miss_bytes = bracket.miss;
  for (const auto& [footprint, verdict] : verdicts) {
    r.verdicts.push_back({footprint, verdict.miss_fraction, verdict.fits});
  }
  r.edge_confidence = edge_confidence(r.verdicts, bracket.fit);
  return r;
}

RefinedStep Sweep::refine(const Staircase& s, std::size_t k) {
  const StaircaseLevel& before = s.levels[k];
  const StaircaseLevel& after = s.levels[k + 1];
  const std::vector<double> after_accesses = pooled(after);
  const double before_p95 = typical_slowest(coarse_, before);
  FitRule rule;
  rule.threshold_cycles = step_threshold(before_p95, after_accesses);

  Verdicts verdicts;
  const std::span<const std::uint64_t> level_range(s.footprints.data() + before.first,
                                                   after.last - before.first + 1);
  for (std::size_t i = 0; i < level_range.size(); ++i) {
    const Measured& m = coarse_[before.first + i];
    verdicts[level_range[i]] = judge_fit(m.cycles, m.indices, rule);
  }
  // Bracket: the first footprint that misses at or after the step's level, and the largest
  // fitting footprint below it; then a section search between the two.
  Bracket bracket{0, level_range.back()};
  narrow(bracket, footprints_of(verdicts), verdicts, before.to_bytes);
  if (bracket.fit == 0) bracket.fit = before.from_bytes;
  RefinedStep r = search_edge(bracket.fit, bracket.miss, verdicts, rule);
  r.step = s.steps[k];
  r.miss_floor_cycles = step_miss_floor(before_p95, after_accesses);
  return r;
}

namespace {

// Gallops from `from` (judged, on the wrong side) away from it in steps that double from
// `step`, until a footprint within [lowest, highest] lands on the other side: the bracket, or
// nullopt where none does.
std::optional<Bracket> gallop(std::uint64_t from, bool down, std::uint64_t step,
                              std::uint64_t lowest, std::uint64_t highest, std::uint64_t stride,
                              const std::function<bool(std::uint64_t)>& fits) {
  std::uint64_t last = from;
  for (;; step *= 2) {
    const std::uint64_t next =
        down ? (last > lowest + step ? round_down(last - step, stride) : lowest)
             : std::min(highest, round_down(last + step, stride));
    if (next == last) return std::nullopt;
    const bool fit = fits(next);
    if (down && fit) return Bracket{next, last};
    if (!down && !fit) return Bracket{last, next};
    last = next;
  }
}

}  // namespace

RefinedStep Sweep::refine_placed(const Staircase& s, std::size_t k, const RefinedStep& first,
                                 std::uint64_t offset_bytes) {
  FitRule rule;
  rule.threshold_cycles = first.threshold_cycles;
  const std::uint64_t saved_offset = offset_bytes_;
  offset_bytes_ = offset_bytes;
  Verdicts verdicts;
  const std::function<bool(std::uint64_t)> fits = [&](std::uint64_t footprint) {
    const std::uint64_t points[] = {footprint};
    const Measured m = measure(points, "placements").front();
    return (verdicts[footprint] = judge_fit(m.cycles, m.indices, rule)).fits;
  };
  // The first placement's bracket, measured here. Where both ends agree the edge is the same to
  // the stride (two chases); else a gallop away from the end that disagrees finds this
  // placement's bracket, resolved to kPlacedResolutionShare of the first edge.
  std::optional<Bracket> bracket = Bracket{first.edge_bytes, first.first_miss_bytes};
  std::uint64_t resolution = 0;
  const std::uint64_t step = std::max<std::uint64_t>(
      stride(), round_down(first.edge_bytes / kPlacedResolutionShare, stride()));
  if (!fits(first.edge_bytes)) {
    resolution = step;
    bracket = gallop(first.edge_bytes, true, step, s.levels[k].from_bytes, s.levels[k + 1].to_bytes,
                     stride(), fits);
  } else if (fits(first.first_miss_bytes)) {
    resolution = step;
    bracket = gallop(first.first_miss_bytes, false, step, s.levels[k].from_bytes,
                     s.levels[k + 1].to_bytes, stride(), fits);
  }
  RefinedStep r;
  if (bracket) {
    r = search_edge(bracket->fit, bracket->miss, verdicts, rule, resolution);
  } else {
    for (const auto& [footprint, verdict] : verdicts) {
      r.verdicts.push_back({footprint, verdict.miss_fraction, verdict.fits});
    }
    r.threshold_cycles = rule.threshold_cycles;
  }
  offset_bytes_ = saved_offset;
  r.step = s.steps[k];
  r.miss_floor_cycles = first.miss_floor_cycles;
  return r;
}

}  // namespace memtopo::staircase
