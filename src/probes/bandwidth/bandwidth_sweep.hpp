#pragma once
// The bandwidth-versus-footprint sweep of a level (as gpu-cache and gpu-l2-cache draw it): the
// best read configuration over footprints 4 per octave, its knees (analysis/knees.hpp), and
// the check that the knee agrees with the level's size from the latency-based probes.
#include <nlohmann/json.hpp>

#include "probes/bandwidth/bandwidth_targets.hpp"
#include "probes/bandwidth/launch_search.hpp"
#include "probes/bandwidth/stream_meter.hpp"

namespace memtopo {

// Runs `target`'s sweep (none: an empty object) with `best` on `meter`'s stream and returns its
// evidence: the points, the knees, and the comparison with plan.level_size. A knee that
// disagrees with that size beyond the sweep's resolution, or no knee where the size lies inside
// the sweep, adds a warning to the topology with both numbers.
nlohmann::json sweep_bandwidth(ProbeContext& ctx, const BandwidthTarget& target, StreamMeter& meter,
                               const LaunchConfig& best, const FootprintPlan& plan);

}  // namespace memtopo
