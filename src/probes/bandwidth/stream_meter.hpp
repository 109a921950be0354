#pragma once
// Runs one level's streams for a probe: a configuration at a time, each launch sized to last
// about kTargetLaunchSeconds at the best bandwidth seen so far, so that launch overheads and
// timer resolution stay well below a percent without spending seconds per configuration.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/stream.hpp"
#include "probes/bandwidth/launch_search.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

struct StreamMeasurement {
  StreamSpec spec;                       // as run
  StreamResult result;                   // as it came back
  std::vector<double> bytes_per_second;  // per timed launch
  double median_bytes_per_second = 0;
};

class StreamMeter {
 public:
  // `base`: path, op, placement and footprint of every stream this meter runs; `label` names
  // them in --traces.
  StreamMeter(ProbeContext& ctx, StreamSpec base, std::string label);

  // Runs `config` with `timed_launches` timed launches (after one warm-up), over `footprint`
  // bytes (0: the base's). A launch shorter than kMinLaunchSeconds is run again, longer.
  // Throws ExperimentError when the configuration cannot run, StreamsUnsupported when no
  // stream can.
  StreamMeasurement measure(const LaunchConfig& config, std::uint32_t timed_launches,
                            std::uint64_t footprint = 0);
  // The same with launches sized to last about `launch_seconds` each (a final measurement:
  // launch overhead and the ramp at a launch's start and end weigh less in longer launches).
  StreamMeasurement measure_long(const LaunchConfig& config, std::uint32_t timed_launches,
                                 double launch_seconds, std::uint64_t footprint = 0);

  // `first` with `more` timed launches added: its spec again without a warm-up (it just ran,
  // so the level and the clock are warm), the launches' rates appended.
  StreamMeasurement extend(StreamMeasurement first, std::uint32_t more);

  // Runs with another placement from now on (a one-pass grid over the same array).
  void set_placement(StreamPlacement placement) { base_.placement = placement; }

  // A MeasureLaunch for search_launch: the median bandwidth over `timed_launches`, nullopt
  // (with the reason) where the backend cannot run the configuration. `at_one_clock` (a level
  // bound by the SM clock): each median is scaled to the SM clock of the meter's first
  // measurement, so that the search compares bytes per cycle, not the clock's drift between
  // configurations (1961-1980 MHz within one H200 discovery, more than the search's 0.3 %).
  MeasureLaunch searcher(std::uint32_t timed_launches, bool at_one_clock = false);

  const StreamSpec& base() const { return base_; }
  void relabel(std::string label) { label_ = std::move(label); }

 private:
  StreamMeasurement run_once(const StreamSpec& spec);
  StreamMeasurement measure_sized(const LaunchConfig& config, std::uint32_t timed_launches,
                                  std::uint64_t footprint, double launch_seconds);

  ProbeContext& ctx_;
  StreamSpec base_;
  std::string label_;
  double rate_estimate_;            // bytes per second launches are sized for
  double reference_clock_khz_ = 0;  // the first SM clock a search at one clock measured
};

}  // namespace memtopo
