#include "probes/size/size_search.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtopo {

std::string_view to_string(SizeSearchOutcome outcome) {
  switch (outcome) {
    case SizeSearchOutcome::found:
      return "found";
    case SizeSearchOutcome::fits_up_to_max:
      return "fits_up_to_max";
    case SizeSearchOutcome::misses_at_start:
      return "misses_at_start";
    case SizeSearchOutcome::no_edge:
      return "no_edge";
  }
  return "?";
}

std::vector<std::uint64_t> section_points(std::uint64_t fit, std::uint64_t miss,
                                          std::uint64_t stride, std::uint32_t slots,
                                          std::uint32_t final_strides) {
  const std::uint64_t gaps = (miss - fit) / stride;
  if (gaps <= std::max<std::uint32_t>(final_strides, 1)) return {};
  // Each batch of k points divides the bracket by k + 1. Use the fewest batches that reach the
  // final width with at most `slots` points each, then the fewest points that still do.
  const double ratio = static_cast<double>(gaps) / std::max<std::uint32_t>(final_strides, 1);
  const double per_batch = std::max<std::uint32_t>(slots, 1) + 1.0;
  const double rounds = std::max(1.0, std::ceil(std::log(ratio) / std::log(per_batch) - 1e-9));
  auto k = static_cast<std::uint64_t>(std::ceil(std::pow(ratio, 1.0 / rounds) - 1e-9)) - 1;
  k = std::clamp<std::uint64_t>(
      k, 1, std::min<std::uint64_t>(std::max<std::uint32_t>(slots, 1), gaps - 1));
  std::vector<std::uint64_t> points;
  for (std::uint64_t i = 1; i <= k; ++i) {
    const auto step = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(i * gaps) / static_cast<double>(k + 1)));
    const std::uint64_t point = fit + step * stride;
    if (point > fit && point < miss && (points.empty() || point > points.back())) {
      points.push_back(point);
    }
  }
  return points;
}

SizeSearchPlanner::SizeSearchPlanner(const SizeSearchPlan& plan) : plan_(plan) {
  if (plan_.stride_bytes == 0 || plan_.start_bytes == 0 ||
      plan_.start_bytes % plan_.stride_bytes != 0) {
    throw std::invalid_argument("size search: start must be a positive multiple of the stride");
  }
  plan_.batch_slots = std::max<std::uint32_t>(plan_.batch_slots, 1);
  next_doubling_ = plan_.start_bytes;
  stage_ = Stage::doubling;
  after_doubling();  // plans the first doubling batch (or finishes when start > max)
}

const FootprintBatch& SizeSearchPlanner::next_batch() const {
  if (done()) throw std::logic_error("size search: next_batch() after the search finished");
  return batch_;
}

const SizeSearchResult& SizeSearchPlanner::result() const {
  if (!done()) throw std::logic_error("size search: result() before the search finished");
  return result_;
}

void SizeSearchPlanner::start_step(std::vector<std::uint64_t> footprints, std::string phase) {
  step_ = std::move(footprints);
  step_verdicts_.clear();
  step_phase_ = std::move(phase);
  hand_out_next_batch();
}

void SizeSearchPlanner::hand_out_next_batch() {
  const std::size_t begin = step_verdicts_.size();
  const std::size_t end = std::min(step_.size(), begin + plan_.batch_slots);
  batch_.footprints.assign(step_.begin() + static_cast<std::ptrdiff_t>(begin),
                           step_.begin() + static_cast<std::ptrdiff_t>(end));
  batch_.phase = step_phase_;
}

void SizeSearchPlanner::feed(std::span<const FitVerdict> verdicts) {
  if (done()) throw std::logic_error("size search: feed() after the search finished");
  if (verdicts.size() != batch_.footprints.size()) {
    throw std::logic_error("size search: the measurement returned a wrong number of verdicts");
  }
  ++result_.batches;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    latest_[batch_.footprints[i]] = verdicts[i].fits;
    result_.steps.push_back({batch_.phase, batch_.footprints[i], verdicts[i]});
    step_verdicts_.push_back(verdicts[i]);
  }
  if (step_verdicts_.size() < step_.size()) {
    hand_out_next_batch();
  } else {
    finish_step();
  }
}

void SizeSearchPlanner::finish_step() {
  switch (stage_) {
    case Stage::doubling: {
      // The first miss closes the bracket; only footprints below it count as fits.
      for (std::size_t i = 0; i < step_.size(); ++i) {
        if (!step_verdicts_[i].fits) {
          miss_ = step_[i];
          break;
        }
        fit_ = step_[i];
      }
      after_doubling();
      return;
    }
    case Stage::section:
      after_section();
      return;
    case Stage::scan:
      after_scan();
      return;
    case Stage::finished:
      return;
  }
}

// Plans the next doubling batch, or moves on once a footprint missed or the limit is reached.
void SizeSearchPlanner::after_doubling() {
  if (miss_ == 0 && next_doubling_ <= plan_.max_bytes) {
    const std::uint32_t steps =
        std::max<std::uint32_t>(1, std::min(plan_.doubling_steps_per_batch, plan_.batch_slots));
    std::vector<std::uint64_t> batch;
    for (std::uint32_t s = 0; s < steps && next_doubling_ <= plan_.max_bytes;
         ++s, next_doubling_ *= 2) {
      batch.push_back(next_doubling_);
    }
    start_step(std::move(batch), "doubling");
    return;
  }
  result_.doubling_fit = fit_;
  result_.doubling_miss = miss_;
  if (fit_ == 0) {
    finish(miss_ != 0 ? SizeSearchOutcome::misses_at_start : SizeSearchOutcome::no_edge);
    return;
  }
  if (miss_ == 0) {
    result_.size_bytes = fit_;
    finish(SizeSearchOutcome::fits_up_to_max);
    return;
  }
  plan_section_or_scan();
}

void SizeSearchPlanner::plan_section_or_scan() {
  auto points = section_points(fit_, miss_, plan_.stride_bytes, plan_.batch_slots,
                               plan_.final_bracket_strides);
  if (!points.empty()) {
    stage_ = Stage::section;
    start_step(std::move(points), "section");
    return;
  }
  const std::uint64_t stride = plan_.stride_bytes;
  const std::uint64_t margin = std::uint64_t{plan_.scan_margin_strides} * stride;
  const std::uint64_t low = fit_ > margin + stride ? fit_ - margin : stride;
  const std::uint64_t high = std::min(plan_.max_bytes, miss_ + margin);
  std::vector<std::uint64_t> footprints;
  for (std::uint64_t f = low; f <= high; f += stride) footprints.push_back(f);
  stage_ = Stage::scan;
  start_step(std::move(footprints), "scan");
}

void SizeSearchPlanner::after_section() {
  // The first miss closes the bracket from above; the largest fit below it opens it.
  std::uint64_t first_miss = miss_;
  for (std::size_t i = 0; i < step_.size(); ++i) {
    if (!step_verdicts_[i].fits) {
      first_miss = step_[i];
      break;
    }
  }
  for (std::size_t i = 0; i < step_.size() && step_[i] < first_miss; ++i) {
    if (step_verdicts_[i].fits) fit_ = step_[i];
  }
  miss_ = first_miss;
  plan_section_or_scan();
}

std::uint64_t SizeSearchPlanner::known_fit_below(std::uint64_t limit) const {
  std::uint64_t best = 0;
  for (const auto& [footprint, fits] : latest_) {
    if (footprint < limit && fits) best = footprint;
  }
  return best;
}

std::uint64_t SizeSearchPlanner::known_miss_above(std::uint64_t limit) const {
  for (const auto& [footprint, fits] : latest_) {
    if (footprint > limit && !fits) return footprint;
  }
  return 0;
}

void SizeSearchPlanner::after_scan() {
  result_.bracket_fit = fit_;
  result_.bracket_miss = miss_;
  result_.scan.clear();
  for (std::size_t i = 0; i < step_.size(); ++i) {
    result_.scan.push_back({step_[i], step_verdicts_[i].miss_score, step_verdicts_[i].fits});
  }
  // Every verdict inside the scanned range, earlier section steps included: a real cache
  // whose replacement is not LRU gives verdicts that flip near the edge, and the edge must
  // be judged on all of them, not on the last scan alone.
  std::vector<ScanPoint> window;
  for (const SearchStep& step : result_.steps) {
    if (step.footprint_bytes >= step_.front() && step.footprint_bytes <= step_.back()) {
      window.push_back({step.footprint_bytes, step.verdict.miss_score, step.verdict.fits});
    }
  }
  const std::uint64_t edge = fewest_contradictions_edge(window);
  if (edge != 0 && edge < step_.back()) {
    result_.size_bytes = edge;
    result_.confidence = edge_confidence(window, edge);
    finish(SizeSearchOutcome::found);
    return;
  }
  // No edge in the scan. Everything fits: the edge lies above; reopen up to the next miss
  // measured earlier. Everything misses: it lies below; reopen down to the last fit.
  if (edge != 0) {
    fit_ = step_.back();
    miss_ = known_miss_above(fit_);
  } else {
    miss_ = step_.front();
    fit_ = known_fit_below(miss_);
  }
  if (fit_ == 0 || miss_ == 0 || result_.reopenings == plan_.max_reopenings) {
    // No scan showed the edge. The best estimate left is the step that the fewest of all
    // verdicts contradict (size_confidence says how sure): the caller reports it inconclusive.
    std::vector<ScanPoint> all;
    for (const SearchStep& step : result_.steps) {
      all.push_back({step.footprint_bytes, step.verdict.miss_score, step.verdict.fits});
    }
    std::sort(all.begin(), all.end(), [](const ScanPoint& a, const ScanPoint& b) {
      return a.footprint_bytes < b.footprint_bytes;
    });
    result_.size_bytes = fewest_contradictions_edge(all);
    if (result_.size_bytes != 0) result_.confidence = edge_confidence(all, result_.size_bytes);
    finish(SizeSearchOutcome::no_edge);
    return;
  }
  ++result_.reopenings;
  plan_section_or_scan();
}

void SizeSearchPlanner::finish(SizeSearchOutcome outcome) {
  result_.outcome = outcome;
  stage_ = Stage::finished;
  batch_ = {};
  step_.clear();
  step_verdicts_.clear();
}

std::optional<Confidence> size_confidence(const SizeSearchResult& result) {
  switch (result.outcome) {
    case SizeSearchOutcome::found:
      return Confidence{edge(result.confidence,
                             "verdicts of the fine scan's range: agreement x "
                             "contrast about the fewest-contradictions edge")};
    case SizeSearchOutcome::no_edge:
      if (result.size_bytes == 0) return std::nullopt;
      return Confidence{
          edge(result.confidence,
               "all verdicts of the search: agreement x contrast about the fewest-contradictions "
               "step"),
          methods_agreeing(1, 2,
                           "ways to locate the edge gave it (the fit of one step to every "
                           "verdict did, no fine scan showed it)")};
    case SizeSearchOutcome::fits_up_to_max:
    case SizeSearchOutcome::misses_at_start:
      return std::nullopt;
  }
  return std::nullopt;
}

SizeSearchResult search_cache_size(const SizeSearchPlan& plan, const MeasureFootprints& measure) {
  SizeSearchPlanner planner(plan);
  while (!planner.done()) {
    const FootprintBatch& batch = planner.next_batch();
    planner.feed(measure(batch.footprints, batch.phase));
  }
  return planner.result();
}

std::vector<SizeSearchResult> search_cache_sizes_together(std::span<const SizeSearchPlan> plans,
                                                          const MeasureRound& measure) {
  std::vector<SizeSearchPlanner> planners(plans.begin(), plans.end());
  for (;;) {
    std::vector<const FootprintBatch*> round;
    bool any = false;
    for (const auto& planner : planners) {
      round.push_back(planner.done() ? nullptr : &planner.next_batch());
      any = any || !planner.done();
    }
    if (!any) break;
    const auto verdicts = measure(round);
    if (verdicts.size() != planners.size()) {
      throw std::logic_error("size searches: the round returned a wrong number of verdict lists");
    }
    for (std::size_t i = 0; i < planners.size(); ++i) {
      if (round[i]) planners[i].feed(verdicts[i]);
    }
  }
  std::vector<SizeSearchResult> results;
  for (const auto& planner : planners) results.push_back(planner.result());
  return results;
}

}  // namespace memtopo
