#include "probes/bandwidth/stream_meter.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/stats.hpp"
#include "model/unit_factors.hpp"

namespace memtopo {
namespace {

// A launch this long costs little and times well (events resolve about a microsecond).
constexpr double kTargetLaunchSeconds = 1e-3;
// Shorter launches are measured again: launch overhead would be more than a percent or so.
constexpr double kMinLaunchSeconds = 0.3e-3;
// Before any measurement: launches sized for this many bytes per SM per cycle (a low guess,
// so that the first launch is long rather than too short to time) ...
constexpr double kFirstGuessBytesPerSmCycle = 16;
// ... or, where the device reports no SM count or clock, for this rate.
constexpr double kFallbackFirstGuessBytesPerSecond = 1e11;
// Every launch moves at least this much, whatever the estimate.
constexpr std::uint64_t kMinBytesPerLaunch = 1 << 20;

double first_guess(const DeviceFacts& facts) {
  const double guess = kFirstGuessBytesPerSmCycle * facts.sm_count *
                       static_cast<double>(facts.sm_clock_khz) * kHzPerKhz;
  return guess > 0 ? guess : kFallbackFirstGuessBytesPerSecond;
}

}  // namespace

StreamMeter::StreamMeter(ProbeContext& ctx, StreamSpec base, std::string label)
    : ctx_(ctx),
      base_(base),
      label_(std::move(label)),
      rate_estimate_(first_guess(ctx.backend.facts())) {}

StreamMeasurement StreamMeter::run_once(const StreamSpec& spec) {
  StreamMeasurement m;
  m.spec = spec;
  m.result = ctx_.run_stream(spec, label_);
  if (m.result.seconds.empty()) throw ExperimentError("stream: the backend timed no launch");
  for (const double seconds : m.result.seconds) {
    if (!(seconds > 0) || !std::isfinite(seconds)) {
      throw ExperimentError("stream: a launch took " + std::to_string(seconds) + " s");
    }
    m.bytes_per_second.push_back(static_cast<double>(m.result.bytes_moved) / seconds);
  }
  m.median_bytes_per_second = median(m.bytes_per_second);
  return m;
}

StreamMeasurement StreamMeter::measure(const LaunchConfig& config, std::uint32_t timed_launches,
                                       std::uint64_t footprint) {
  return measure_sized(config, timed_launches, footprint, kTargetLaunchSeconds);
}

StreamMeasurement StreamMeter::measure_long(const LaunchConfig& config,
                                            std::uint32_t timed_launches, double launch_seconds,
                                            std::uint64_t footprint) {
  return measure_sized(config, timed_launches, footprint, launch_seconds);
}

StreamMeasurement StreamMeter::measure_sized(const LaunchConfig& config,
                                             std::uint32_t timed_launches, std::uint64_t footprint,
                                             double launch_seconds) {
  StreamSpec spec = base_;
  spec.blocks_per_sm = config.blocks_per_sm;
  spec.threads_per_block = config.threads_per_block;
  spec.vector_bytes = config.vector_bytes;
  spec.unroll = config.unroll;
  spec.timed_launches = timed_launches;
  if (footprint > 0) spec.footprint_bytes = footprint;
  const auto bytes_for = [](double rate, double seconds) {
    return std::max(kMinBytesPerLaunch, static_cast<std::uint64_t>(std::ceil(rate * seconds)));
  };
  // A longer series warms up with a launch of the search's length (StreamSpec::
  // warmup_bytes_per_launch); the estimate comes from a search over this level just before.
  const auto sized = [&](double rate) {
    spec.bytes_per_launch = bytes_for(rate, launch_seconds);
    spec.warmup_bytes_per_launch =
        launch_seconds > kTargetLaunchSeconds
            ? std::min(spec.bytes_per_launch, bytes_for(rate, kTargetLaunchSeconds))
            : 0;
  };
  sized(rate_estimate_);
  StreamMeasurement m = run_once(spec);
  if (median(m.result.seconds) < kMinLaunchSeconds) {
    sized(m.median_bytes_per_second);
    m = run_once(spec);
  }
  rate_estimate_ = std::max(rate_estimate_, m.median_bytes_per_second);
  return m;
}

StreamMeasurement StreamMeter::extend(StreamMeasurement first, std::uint32_t more) {
  StreamSpec spec = first.spec;
  spec.warmup_launches = 0;
  spec.timed_launches = more;
  const StreamMeasurement added = run_once(spec);
  first.result.seconds.insert(first.result.seconds.end(), added.result.seconds.begin(),
                              added.result.seconds.end());
  first.bytes_per_second.insert(first.bytes_per_second.end(), added.bytes_per_second.begin(),
                                added.bytes_per_second.end());
  first.spec.timed_launches += more;
  first.median_bytes_per_second = median(first.bytes_per_second);
  rate_estimate_ = std::max(rate_estimate_, first.median_bytes_per_second);
  return first;
}

MeasureLaunch StreamMeter::searcher(std::uint32_t timed_launches, bool at_one_clock) {
  return [this, timed_launches, at_one_clock](const LaunchConfig& config,
                                              std::string& not_run) -> std::optional<double> {
    try {
      const StreamMeasurement m = measure(config, timed_launches);
      const double clock = m.result.sm_clock_khz;
      if (!at_one_clock || !(clock > 0)) return m.median_bytes_per_second;
      if (!(reference_clock_khz_ > 0)) reference_clock_khz_ = clock;
      return m.median_bytes_per_second * reference_clock_khz_ / clock;
    } catch (const ExperimentError& error) {
      not_run = error.what();
      return std::nullopt;
    }
  };
}

}  // namespace memtopo
