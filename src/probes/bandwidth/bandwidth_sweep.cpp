#include "probes/bandwidth/bandwidth_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

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
  const double resolution = sweep_resolution(footprints);
  const Knee* knee = nearest_knee(knees, size);
  const bool agrees = knee && knee_agrees(*knee, size, resolution);
  evidence["compared_with"] = {{"size_bytes", size}, {"source", plan.level_size_source}};
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

  std::vector<double> footprints, rates;
  nlohmann::json points = nlohmann::json::array();
  for (const std::uint64_t footprint : sweep_footprints(first, last, granule)) {
    try {
      const StreamMeasurement m = meter.measure(best, kSweepTimedLaunches, footprint);
      footprints.push_back(static_cast<double>(m.result.footprint_bytes));
      rates.push_back(m.median_bytes_per_second);
      points.push_back({footprints.back(), rates.back()});
    } catch (const ExperimentError& error) {
      evidence["stopped"] = error.what();
      break;
    }
  }
  const std::vector<Knee> knees = find_knees(footprints, rates);
  nlohmann::json knee_list = nlohmann::json::array();
  for (const Knee& knee : knees) knee_list.push_back(knee_json(knee));
  evidence["placement"] = std::string(to_string(meter.base().placement));
  evidence["path"] = std::string(to_string(meter.base().path));
  evidence["launch"] = to_json(best);
  evidence["points_per_octave"] = kPointsPerOctave;
  evidence["points"] = points;  // [footprint bytes, bytes per second]
  evidence["knees"] = knee_list;
  check_knees(ctx, target, plan, footprints, knees, evidence);
  return evidence;
}

}  // namespace memtopo
