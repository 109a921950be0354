#include "probes/size_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
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

namespace {

// The search's state: every verdict so far and the bracket it implies.
class Search {
 public:
  Search(const SizeSearchPlan& plan, const MeasureFootprints& measure)
      : plan_(plan), measure_(measure) {}

  SizeSearchResult run();

 private:
  // Measures footprints in batches of at most batch_slots and records every verdict.
  std::vector<FitVerdict> measure(const std::vector<std::uint64_t>& footprints,
                                  std::string_view phase);
  bool double_until_miss();
  void section();
  // Runs a fine scan over the bracket; true when it showed the edge.
  bool fine_scan();
  // The largest footprint below `limit` that was last judged fitting (0 if none).
  std::uint64_t known_fit_below(std::uint64_t limit) const;
  // The smallest footprint above `limit` that was last judged missing (0 if none).
  std::uint64_t known_miss_above(std::uint64_t limit) const;

  const SizeSearchPlan& plan_;
  const MeasureFootprints& measure_;
  SizeSearchResult result_;
  std::map<std::uint64_t, bool> latest_;  // footprint -> fits, latest verdict
  std::uint64_t fit_ = 0;                 // bracket: largest fitting footprint
  std::uint64_t miss_ = 0;                // bracket: smallest missing footprint above fit_
};

std::vector<FitVerdict> Search::measure(const std::vector<std::uint64_t>& footprints,
                                        std::string_view phase) {
  std::vector<FitVerdict> verdicts;
  const std::size_t slots = std::max<std::uint32_t>(plan_.batch_slots, 1);
  for (std::size_t begin = 0; begin < footprints.size(); begin += slots) {
    const std::size_t end = std::min(footprints.size(), begin + slots);
    std::span<const std::uint64_t> batch(footprints.data() + begin, end - begin);
    auto batch_verdicts = measure_(batch, phase);
    if (batch_verdicts.size() != batch.size()) {
      throw std::logic_error("size search: the measurement returned a wrong number of verdicts");
    }
    ++result_.batches;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      latest_[batch[i]] = batch_verdicts[i].fits;
      result_.steps.push_back({std::string(phase), batch[i], batch_verdicts[i]});
      verdicts.push_back(batch_verdicts[i]);
    }
  }
  return verdicts;
}

bool Search::double_until_miss() {
  const std::uint32_t steps =
      std::max<std::uint32_t>(1, std::min(plan_.doubling_steps_per_batch, plan_.batch_slots));
  std::uint64_t next = plan_.start_bytes;
  while (next <= plan_.max_bytes) {
    std::vector<std::uint64_t> batch;
    for (std::uint32_t s = 0; s < steps && next <= plan_.max_bytes; ++s, next *= 2) {
      batch.push_back(next);
    }
    const auto verdicts = measure(batch, "doubling");
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!verdicts[i].fits) {
        miss_ = batch[i];
        return true;
      }
      fit_ = batch[i];  // only footprints below the first miss count
    }
  }
  return false;
}

void Search::section() {
  for (;;) {
    const auto points = section_points(fit_, miss_, plan_.stride_bytes, plan_.batch_slots,
                                       plan_.final_bracket_strides);
    if (points.empty()) return;
    const auto verdicts = measure(points, "section");
    // The first miss closes the bracket from above; the largest fit below it opens it.
    std::uint64_t first_miss = miss_;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!verdicts[i].fits) {
        first_miss = points[i];
        break;
      }
    }
    for (std::size_t i = 0; i < points.size() && points[i] < first_miss; ++i) {
      if (verdicts[i].fits) fit_ = points[i];
    }
    miss_ = first_miss;
  }
}

std::uint64_t Search::known_fit_below(std::uint64_t limit) const {
  std::uint64_t best = 0;
  for (const auto& [footprint, fits] : latest_) {
    if (footprint < limit && fits) best = footprint;
  }
  return best;
}

std::uint64_t Search::known_miss_above(std::uint64_t limit) const {
  for (const auto& [footprint, fits] : latest_) {
    if (footprint > limit && !fits) return footprint;
  }
  return 0;
}

bool Search::fine_scan() {
  const std::uint64_t stride = plan_.stride_bytes;
  const std::uint64_t margin = std::uint64_t{plan_.scan_margin_strides} * stride;
  const std::uint64_t low = fit_ > margin + stride ? fit_ - margin : stride;
  const std::uint64_t high = std::min(plan_.max_bytes, miss_ + margin);
  std::vector<std::uint64_t> footprints;
  for (std::uint64_t f = low; f <= high; f += stride) footprints.push_back(f);
  const auto verdicts = measure(footprints, "scan");

  result_.bracket_fit = fit_;
  result_.bracket_miss = miss_;
  result_.scan.clear();
  for (std::size_t i = 0; i < footprints.size(); ++i) {
    result_.scan.push_back({footprints[i], verdicts[i].miss_fraction, verdicts[i].fits});
  }
  // Every verdict inside the scanned range, earlier section steps included: a real cache
  // whose replacement is not LRU gives verdicts that flip near the edge, and the edge must
  // be judged on all of them, not on the last scan alone.
  std::vector<ScanPoint> window;
  for (const SearchStep& step : result_.steps) {
    if (step.footprint_bytes >= footprints.front() && step.footprint_bytes <= footprints.back()) {
      window.push_back({step.footprint_bytes, step.verdict.miss_fraction, step.verdict.fits});
    }
  }
  const std::uint64_t edge = fewest_contradictions_edge(window);
  if (edge != 0 && edge < footprints.back()) {
    result_.size_bytes = edge;
    result_.confidence = edge_confidence(window, edge);
    return true;
  }
  const bool any_fit = edge != 0;
  // No edge in the scan. Everything fits: the edge lies above; reopen up to the next miss
  // measured earlier. Everything misses: it lies below; reopen down to the last fit.
  if (any_fit) {
    fit_ = footprints.back();
    miss_ = known_miss_above(fit_);
  } else {
    miss_ = footprints.front();
    fit_ = known_fit_below(miss_);
  }
  return false;
}

SizeSearchResult Search::run() {
  if (plan_.stride_bytes == 0 || plan_.start_bytes == 0 ||
      plan_.start_bytes % plan_.stride_bytes != 0) {
    throw std::invalid_argument("size search: start must be a positive multiple of the stride");
  }
  const bool missed = double_until_miss();
  result_.doubling_fit = fit_;
  result_.doubling_miss = miss_;
  if (fit_ == 0) {
    result_.outcome = missed ? SizeSearchOutcome::misses_at_start : SizeSearchOutcome::no_edge;
    return result_;
  }
  if (!missed) {
    result_.outcome = SizeSearchOutcome::fits_up_to_max;
    result_.size_bytes = fit_;
    return result_;
  }
  for (;;) {
    section();
    if (fine_scan()) {
      result_.outcome = SizeSearchOutcome::found;
      return result_;
    }
    if (fit_ == 0 || miss_ == 0 || result_.reopenings == plan_.max_reopenings) break;
    ++result_.reopenings;
  }
  result_.outcome = SizeSearchOutcome::no_edge;
  result_.size_bytes = 0;
  result_.confidence = 0;
  return result_;
}

}  // namespace

SizeSearchResult search_cache_size(const SizeSearchPlan& plan, const MeasureFootprints& measure) {
  return Search(plan, measure).run();
}

}  // namespace memtopo
