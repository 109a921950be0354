// A TLB ladder: the staircase over wide chains of one element per stride (tlb_levels.hpp).
#include <memory>
#include <utility>
#include <vector>

#include "probes/staircase/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Reference chases over the longest chain (see climb).
constexpr std::size_t kReferenceChases = 3;

}  // namespace

double Ladder::penalty(std::size_t k) const {
  // Means, not medians: a miss adds the same cycles to near and far L2 hits alike, which
  // shifts the mean by exactly that, while the median of two modes can jump between them.
  return staircase.levels[k + 1].mean - staircase.levels[k].mean;
}

std::uint64_t Ladder::all_missing_elements(std::size_t k) const {
  return staircase.levels[k + 1].to_bytes / stride();
}

Ladder climb(ProbeContext& ctx, const StaircaseRow& row, std::uint64_t stride,
             std::uint64_t max_elements, std::uint32_t sm) {
  Ladder ladder;
  ladder.max_elements = max_elements;
  Layout layout{Layout::one_per_page, static_cast<std::uint32_t>(stride), sm, 0};
  layout.wide = true;
  ladder.sweep = std::make_unique<Sweep>(ctx, row, layout);
  Sweep& sweep = *ladder.sweep;
  // Reference: the longest chain, where every TLB level that can overflow does for every
  // element alike; what stays different between elements is their own L2 answer. Chased first,
  // so that the backend allocates the largest array once and keeps it for the rest.
  const std::uint64_t longest = ladder.longest_bytes();
  // Several chases, so that each word's median rests on kReferenceChases x the timed passes: an
  // outlier in one reference sample would otherwise shift that word by hundreds of cycles in
  // every later chase, and turn one miss into a hit in every miss count of the scan of sets.
  const std::vector<std::uint64_t> references(kReferenceChases, longest);
  sweep.set_reference(per_word_medians(sweep.measure(references, "reference")));
  ladder.staircase = sweep.coarse(footprint_grid(2 * stride, longest, row.grid_ratio, stride));
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
    RefinedStep refined = sweep.refine(ladder.staircase, k);
    // A step onto the longest chain alone is the reference's artefact, not a level: every word
    // of that chain is corrected to the reference's median, which differs from the mean of a
    // plateau of near and far L2 hits.
    // So is a step whose section search found no edge (edge confidence below the threshold):
    // the tail of a level's gradual overflow, or noise, not a level of its own.
    if (refined.first_miss_bytes >= longest || refined.edge_confidence < kMinTlbStepConfidence) {
      ladder.rejected_steps = ladder.staircase.steps.size() - k;
      break;
    }
    ladder.refined.push_back(std::move(refined));
  }
  return ladder;
}

}  // namespace memtopo::staircase
