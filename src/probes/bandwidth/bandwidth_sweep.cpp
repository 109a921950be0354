#include "probes/bandwidth/bandwidth_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/knee_grid.hpp"
#include "analysis/knees.hpp"
#include "model/units.hpp"

namespace memtopo {
namespace {

constexpr int kPointsPerOctave = 4;
constexpr std::uint64_t kPerSmSweepFirstBytes = 4 * 1024;  // a few KiB: all in any L1
constexpr std::uint64_t kDeviceSweepFirstDivisor = 64;     // the device sweep starts at L2 / 64
constexpr std::uint64_t kSweepEndFactor = 4;               // and ends at 4 x the level's size
// One warm-up and two timed launches per point: the curve needs shape, not a spread.
constexpr std::uint32_t kSweepTimedLaunches = 2;
// The coarse pass measures every other point of the fine grid (analysis/knee_grid.hpp).
constexpr std::size_t kCoarseSpacing = 2;

std::string bytes(double value) {
  return format_bytes(value);
}

std::vector<std::uint64_t> sweep_footprints(std::uint64_t first, std::uint64_t last,
                                            std::uint64_t granule) {
  std::vector<std::uint64_t> footprints;
  for (int i = 0;; ++i) {
    const double exact = static_cast<double>(first) * std::exp2(double(i) / kPointsPerOctave);
    if (exact > static_cast<double>(last)) break;
    const std::uint64_t rounded = static_cast<std::uint64_t>(exact) / granule * granule;
    if (rounded >= granule && (footprints.empty() || rounded > footprints.back())) {
      footprints.push_back(rounded);
    }
  }
  return footprints;
}

// One point of the sweep: the median of its timed launches and how far they stray from it;
// nullopt (the reason in `evidence`) where the footprint cannot run. `streamed_bytes` maps the
// footprint asked for to the one streamed over.
std::optional<SweepPoint> measure_point(StreamMeter& meter, const LaunchConfig& best,
                                        std::uint64_t footprint,
                                        std::map<std::uint64_t, std::uint64_t>& streamed_bytes,
                                        nlohmann::json& evidence) {
  try {
    const StreamMeasurement m = meter.measure(best, kSweepTimedLaunches, footprint);
    streamed_bytes[footprint] = m.result.footprint_bytes;
    SweepPoint point{footprint, m.median_bytes_per_second, 0};
    for (const double rate : m.bytes_per_second) {
      point.noise = std::max(point.noise, std::fabs(rate / point.bandwidth - 1));
    }
    return point;
  } catch (const ExperimentError& error) {
    evidence["stopped"] = error.what();
    return std::nullopt;
  }
}

nlohmann::json knee_json(const Knee& knee) {
  return {{"footprint_bytes", knee.footprint_bytes},
          {"last_high_bytes", knee.last_high_bytes},
          {"first_low_bytes", knee.first_low_bytes},
          {"upper_bytes_per_second", knee.upper_bandwidth},
          {"lower_bytes_per_second", knee.lower_bandwidth}};
}

// Compares the knees with the level's size; warns where they disagree.
void check_knees(ProbeContext& ctx, const BandwidthTarget& target, const FootprintPlan& plan,
                 std::span<const double> footprints, std::span<const Knee> knees,
                 nlohmann::json& evidence) {
  if (!plan.level_size || footprints.empty()) return;
  const double size = static_cast<double>(*plan.level_size);
  const Knee* knee = nearest_knee(knees, size);
  // Around the knee compared: a plateau measured coarsely elsewhere loosens nothing.
  const double resolution =
      knee ? knee_resolution(footprints, *knee) : sweep_resolution(footprints);
  const bool agrees = knee && knee_agrees(*knee, size, resolution);
  evidence["compared_with"] = {{"size_bytes", size}, {"source", plan.level_size_source}};
  evidence["resolution"] = resolution;
  evidence["agrees"] = agrees;
  if (agrees) return;
  const std::string who = target.element + ".bandwidth: ";
  std::string resolved =
      " beyond the sweep's resolution (x" + format_number(resolution, 2) + " between points)";
  if (plan.api_level_size && *plan.api_level_size != *plan.level_size) {
    resolved += "; the API's size is " + bytes(static_cast<double>(*plan.api_level_size));
  }
  if (knee) {
    ctx.topology.warnings.push_back(
        who + "the bandwidth sweep's knee at " + bytes(knee->footprint_bytes) + " (between " +
        bytes(knee->last_high_bytes) + " and " + bytes(knee->first_low_bytes) +
        ") disagrees with " + plan.level_size_source + " = " + bytes(size) + resolved);
  } else if (size > footprints.front() && size < footprints.back()) {
    ctx.topology.warnings.push_back(who + "the bandwidth sweep from " + bytes(footprints.front()) +
                                    " to " + bytes(footprints.back()) + " shows no knee, but " +
                                    plan.level_size_source + " = " + bytes(size) +
                                    " lies inside it");
  }
}

}  // namespace

nlohmann::json sweep_bandwidth(ProbeContext& ctx, const BandwidthTarget& target, StreamMeter& meter,
                               const LaunchConfig& best, const FootprintPlan& plan) {
  nlohmann::json evidence = nlohmann::json::object();
  if (target.sweep == BandwidthSweep::none) return evidence;
  if (!plan.level_size) {
    evidence["skipped"] = "no size of " + target.element + " to sweep around";
    return evidence;
  }
  const std::uint64_t size = *plan.level_size;
  const std::uint64_t first = target.sweep == BandwidthSweep::per_sm
                                  ? kPerSmSweepFirstBytes
                                  : size / kDeviceSweepFirstDivisor;
  // Past the larger of the measured and the API's size, so that the knee of all SMs together
  // lies inside the sweep too.
  const std::uint64_t last =
      std::min(std::max(size, plan.api_level_size.value_or(0)) * kSweepEndFactor,
               ctx.backend.limits().max_footprint_bytes);
  const std::uint64_t granule = std::uint64_t{kStreamWarpThreads} * best.vector_bytes * best.unroll;
  ctx.progress(target.element + ".bandwidth: sweep " + bytes(first) + " .. " + bytes(last));

  const std::vector<std::uint64_t> grid = sweep_footprints(first, last, granule);
  // The grid's footprints are whole warp tiles; what ran is recorded all the same.
  std::map<std::uint64_t, std::uint64_t> streamed_bytes;
  const KneeSweep sweep = sweep_for_knees(
      grid,
      [&](std::uint64_t footprint) {
        return measure_point(meter, best, footprint, streamed_bytes, evidence);
      },
      kCoarseSpacing);
  std::vector<double> footprints, rates;
  nlohmann::json points = nlohmann::json::array();
  for (const SweepPoint& point : sweep.points) {
    footprints.push_back(static_cast<double>(streamed_bytes.at(point.footprint_bytes)));
    rates.push_back(point.bandwidth);
    points.push_back({footprints.back(), rates.back()});
  }
  const std::vector<Knee> knees = find_knees(footprints, rates);
  nlohmann::json knee_list = nlohmann::json::array();
  for (const Knee& knee : knees) knee_list.push_back(knee_json(knee));
  evidence["placement"] = std::string(to_string(meter.base().placement));
  evidence["path"] = std::string(to_string(meter.base().path));
  evidence["launch"] = to_json(best);
  evidence["points_per_octave"] = kPointsPerOctave;
  evidence["points"] = points;  // [footprint bytes, bytes per second], ascending
  evidence["grid"] = {{"fine_points", sweep.fine_points},
                      {"measured_points", sweep.points.size()},
                      {"coarse_spacing", kCoarseSpacing},
                      {"refinement_rounds", sweep.rounds},
                      {"flat_tolerance", flat_tolerance()}};
  evidence["knees"] = knee_list;
  check_knees(ctx, target, plan, footprints, knees, evidence);
  return evidence;
}

}  // namespace memtopo
