#pragma once
// What a swept staircase says: its evidence, and the findings a level (a latency) or a refined
// step (a size, or a lower bound where no step ends the level) gives, with their confidences.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/confidence.hpp"
#include "analysis/staircase.hpp"
#include "model/topology.hpp"
#include "probes/core/staircase_sweep.hpp"

namespace memtopo::staircase {

// The staircase (series, change points, levels, steps with their KS tests) and the sweep's
// layout and cost.
nlohmann::json staircase_evidence(const Staircase& s, const Sweep& sweep);
// The refined step: threshold, miss floor, bracket, both confidences and every verdict.
nlohmann::json refined_evidence(const RefinedStep& r);

// The staircase's confidence in a step (KS significance x contrast x sharpness), as an edge
// factor that names its parts.
ConfidenceFactor step_factor(const StaircaseStep& step);
// How sure a refined step's footprint is: two edge factors, the staircase's confidence in the
// step (KS significance x contrast x sharpness) and the section search's in its edge (agreement
// x contrast of the fit verdicts around it).
Confidence refined_step_confidence(const RefinedStep& r);

// `latency` of a level: the median of its per-footprint medians, confidence the share of its
// accesses within kDescribedBand of it.
Property latency_of_level(const Sweep& sweep, const StaircaseLevel& level, double clock_khz,
                          const std::string& method);
// `size` = the refined step's edge, with its evidence and refined_step_confidence.
Property size_from_step(const RefinedStep& r, const std::string& method);
// `size` as a lower bound (inconclusive, no confidence): the level ends beyond the sweep.
Property lower_bound_size(const StaircaseLevel& level, const std::string& why,
                          const std::string& method);

}  // namespace memtopo::staircase
