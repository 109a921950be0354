#pragma once
// DRAM: which launch shape's rate the finding is, judged where the finding is measured.
//
// try_one_pass keeps the faster of the looping and the one-pass shape at the search's footprint
// (16 L2s), and only that shape is swept to the largest footprints (dram_footprints.hpp). But a
// shape can win at the search's footprint and lose beyond it: on two H200s the looping shape won
// there (4.667 and 4.78 TB/s) and read 4.549-4.562 and 4.655-4.671 at 8 and 4 GiB, while the
// one-pass shape had read 4.634 and 4.717 in the same run (likely TLB reach: looping warps stride
// far apart). So where the other shape's rate exceeds the finding by more than a search could
// tell apart, it is swept at the same footprints too, and the faster shape at its own largest
// agreeing footprints is the finding.
#include <string>

#include "probes/bandwidth/bandwidth_findings.hpp"

namespace memtopo {

// The rate the finding is over: the p50 of the launches at the sweep's largest agreeing
// footprints (rate_property's value); nullopt without a sweep that ran.
std::optional<double> largest_footprints_rate(const DramFootprintSweep& sweep);

// Whether the other shape's p50 at the search's footprint exceeds the finding's rate by more
// than the search's minimum gain and kAgreementErrors standard errors of the difference (the
// launches' scatter pooled over both shapes' launches, dram_footprints.hpp): a gap that the
// launches cannot explain. False without another shape or a sweep.
bool other_shape_may_be_faster(const OpOutcome& outcome);

// An outcome whose final measurement is `outcome`'s other shape, with its search (for the
// minimum gain): what measure_footprints sweeps.
OpOutcome other_shape_outcome(const OpOutcome& outcome);

// After `other` (other_shape_outcome, swept) ran: the shape with the higher rate at its largest
// agreeing footprints becomes `outcome`'s final and sweep; the displaced shape and its sweep go
// to other_shape and other_shape_sweep, and shape_choice says which won and by how much.
void keep_faster_shape(OpOutcome& outcome, OpOutcome other);

}  // namespace memtopo
