#pragma once
// The coarse-to-fine search for a cache size (thesis 004, 3.2, made concurrent as in 4.7.2):
//   1. doubling from a footprint that fits, several doubling steps per batch (one per SM),
//      until a footprint misses: the bracket [last fitting, first missing];
//   2. a k-ary section of the bracket, up to `batch_slots` footprints per batch (a bisection
//      generalised to k points), until the bracket is at most a few strides wide;
//   3. a fine scan at every stride over the bracket and a margin either side.
// The size is the edge that the fewest verdicts of the fine scan's range contradict. The search
// only plans footprints: a SizeSearchPlanner hands out the next batch and takes its verdicts
// (resumable, so several searches can share one backend batch, each on its own SMs, without
// threads); search_cache_size runs one planner to the end with a callback that measures. Both
// are tested without any backend.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/size_rule.hpp"

namespace memtopo {

// Measures footprints concurrently (one chase each) and judges them, in order. `phase` names
// the search step ("doubling", "section", "scan") for trace labels and timings.
using MeasureFootprints =
    std::function<std::vector<FitVerdict>(std::span<const std::uint64_t>, std::string_view phase)>;

struct SizeSearchPlan {
  std::uint64_t start_bytes = 0;   // first doubling footprint, a multiple of the stride
  std::uint64_t max_bytes = 0;     // largest footprint the search may measure
  std::uint64_t stride_bytes = 0;  // every footprint is a multiple of this
  std::uint32_t batch_slots = 1;   // footprints measured concurrently per batch
  // Doubling steps per batch: the last batch overshoots the edge by at most 2^(steps-1), so a
  // few steps keep the wasted work small while needing a few batches instead of one per step.
  std::uint32_t doubling_steps_per_batch = 4;
  std::uint32_t final_bracket_strides = 4;  // the section stops at this bracket width
  std::uint32_t scan_margin_strides = 2;    // the fine scan reaches this far past the bracket
  // How often a fine scan that does not show the edge (an outlier burst misled the section)
  // may send the search back to the section with the bracket it shows.
  std::uint32_t max_reopenings = 2;
};

enum class SizeSearchOutcome {
  found,            // an edge inside the fine scan
  fits_up_to_max,   // nothing missed up to max_bytes: size_bytes is a lower bound
  misses_at_start,  // even start_bytes missed: the cache is smaller than the plan assumed
  no_edge,          // the fine scans never showed a clean edge
};

std::string_view to_string(SizeSearchOutcome outcome);

struct SearchStep {
  std::string phase;
  std::uint64_t footprint_bytes = 0;
  FitVerdict verdict;
};

struct SizeSearchResult {
  SizeSearchOutcome outcome = SizeSearchOutcome::no_edge;
  std::uint64_t size_bytes = 0;  // largest fitting footprint of the fine scan (or a bound)
  std::uint64_t doubling_fit = 0, doubling_miss = 0;  // bracket after doubling
  std::uint64_t bracket_fit = 0, bracket_miss = 0;    // bracket the last fine scan covered
  std::vector<SearchStep> steps;                      // every footprint measured, in order
  std::vector<ScanPoint> scan;                        // the last fine scan
  // edge_confidence (analysis/size_rule) of size_bytes: over the verdicts of the last fine
  // scan's range when found; over every verdict of the search for no_edge's best estimate; 0
  // without a size. size_confidence() turns it into the finding's confidence.
  double confidence = 0;
  std::uint32_t batches = 0;
  std::uint32_t reopenings = 0;
};

// Footprints a planner wants measured next, concurrently, and the step they belong to.
struct FootprintBatch {
  std::vector<std::uint64_t> footprints;  // at most plan.batch_slots
  std::string phase;                      // "doubling", "section" or "scan"
};

// The search as a resumable state machine: while !done(), measure next_batch() and feed() its
// verdicts in the same order. A step larger than the batch slots (a long fine scan) is handed
// out in several batches and judged once all of them are fed.
class SizeSearchPlanner {
 public:
  // Throws std::invalid_argument unless the start is a positive multiple of the stride.
  explicit SizeSearchPlanner(const SizeSearchPlan& plan);

  bool done() const { return stage_ == Stage::finished; }
  // The next batch to measure; throws std::logic_error once done.
  const FootprintBatch& next_batch() const;
  // The verdicts of next_batch(), in order; throws std::logic_error on a count mismatch or once
  // done.
  void feed(std::span<const FitVerdict> verdicts);
  // The outcome; throws std::logic_error before done.
  const SizeSearchResult& result() const;

 private:
  enum class Stage { doubling, section, scan, finished };

  void start_step(std::vector<std::uint64_t> footprints, std::string phase);
  void hand_out_next_batch();
  void finish_step();  // judges the completed step and plans the next one
  void after_doubling();
  void plan_section_or_scan();
  void after_section();
  void after_scan();
  void finish(SizeSearchOutcome outcome);
  std::uint64_t known_fit_below(std::uint64_t limit) const;
  std::uint64_t known_miss_above(std::uint64_t limit) const;

  SizeSearchPlan plan_;
  Stage stage_ = Stage::doubling;
  SizeSearchResult result_;
  std::map<std::uint64_t, bool> latest_;  // footprint -> fits, latest verdict
  std::uint64_t fit_ = 0;                 // bracket: largest fitting footprint
  std::uint64_t miss_ = 0;                // bracket: smallest missing footprint above fit_
  std::uint64_t next_doubling_ = 0;
  std::vector<std::uint64_t> step_;        // footprints of the current step
  std::vector<FitVerdict> step_verdicts_;  // verdicts fed so far for it
  std::string step_phase_;
  FootprintBatch batch_;  // the part of the step handed out now
};

// The confidence of the result's size, by the rules of analysis/confidence.hpp:
//   found:   edge(confidence), the agreement x contrast of the verdicts around the edge;
//   no_edge with a best estimate: the same edge factor over all verdicts, times
//            methods_agreeing(1 of 2): of the two ways the search locates an edge, a fine scan
//            that shows it and the fit of one step to every verdict, only the second gave it;
//   otherwise (no size, or a bound): none.
// A no_edge estimate is reported inconclusive, so its confidence goes into the evidence only.
std::optional<Confidence> size_confidence(const SizeSearchResult& result);

// Runs a planner to the end, measuring each batch with `measure`.
SizeSearchResult search_cache_size(const SizeSearchPlan& plan, const MeasureFootprints& measure);

// Measures one round of several searches at once: batches[i] belongs to search i (null when that
// search is done); returns the verdicts of every non-null batch, in its order (empty for null).
using MeasureRound = std::function<std::vector<std::vector<FitVerdict>>(
    std::span<const FootprintBatch* const> batches)>;

// Runs several searches together without threads: every round, the batches of all unfinished
// searches go to `measure` at once (one backend batch, each footprint on its own SM), until all
// are done. Results in the order of `plans`.
std::vector<SizeSearchResult> search_cache_sizes_together(std::span<const SizeSearchPlan> plans,
                                                          const MeasureRound& measure);

// The k interior points the section measures in (fit, miss), rounded to the stride: as few
// points per batch as still reach the final width in the fewest batches of `slots` points.
std::vector<std::uint64_t> section_points(std::uint64_t fit, std::uint64_t miss,
                                          std::uint64_t stride, std::uint32_t slots,
                                          std::uint32_t final_strides);

}  // namespace memtopo
