#include "probes/tlb/tlb_penalty.hpp"

#include <algorithm>

#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "probes/core/findings.hpp"

namespace memtopo::staircase {

// Where a scan ran but could not be read, the after plateau still holds hits: an H200's L1 TLB
// penalty read 9.4-11.0 cycles in five processes at 76a21db, each with a p5-p95 of 1-2 cycles
// (docs/results/nvidia-h200/2026-11-25_76a21db).
Property tlb_miss_penalty(const PenaltyInputs& in, const Confidence& step) {
  Property p;
  p.name = "miss_penalty";
  p.unit = "cycles";
  p.source = Source::measured;
  p.method = std::string(in.all_missing_mean
                             ? "mean latency of the chains on which every element missed the level"
                             : "mean latency of the plateau after the level's step") +
             " minus the plateau before it, on the " +
             format_bytes(static_cast<double>(in.stride_bytes)) + "-stride staircase";
  const double before = in.before_level;
  const double after = in.after_level;
  const double missing = in.all_missing_mean.value_or(after);
  p.value = missing - before;
  // Every chain after minus every one before: the variation of both plateaus (a run's before
  // plateau moves by about a cycle on an H200).
  p.spread = summarize(pairwise_differences(in.after, in.before));
  p.evidence = {{"mean_before_cycles", before},
                {"mean_after_cycles", after},
                {"mean_all_missing_cycles", missing}};
  if (!in.unread.empty()) {
    // A bound must hold against the plateaus' own variation: the p5 of the differences, not
    // their centre (a simulated A100's 150-cycle level read 150.15 and excluded the truth).
    if (p.spread && p.spread->samples > 0) p.value = std::min(missing - before, p.spread->p5);
    p.inconclusive = true;
    p.bound = Bound::lower;
    p.note = "lower bound (the p5 of the chain differences): " + in.unread +
             ", so the plateau after the step still holds hits";
    p.evidence["bound"] = to_string(Bound::lower);
    return p;
  }
  set_confidence(p, step);
  return p;
}

}  // namespace memtopo::staircase
