#pragma once
// The findings a bandwidth probe writes: a measured rate (read, write or copy) with its spread,
// clocks, launch configuration and search as evidence; the per-SM-clock figure derived from it;
// the API's DRAM peak and the fraction of it that was measured.
#include <optional>
#include <string>

#include "model/topology.hpp"
#include "probes/bandwidth/bandwidth_targets.hpp"
#include "probes/bandwidth/dram_footprints.hpp"
#include "probes/bandwidth/launch_search.hpp"
#include "probes/bandwidth/stream_meter.hpp"
#include "run/sm_clock_log.hpp"

namespace memtopo {

// What one op of a level measured: the search and the final measurement of its best
// configuration.
struct OpOutcome {
  SearchResult search;
  StreamMeasurement final;
  // DRAM: the same configuration in the launch shape that lost (looping warps or one pass),
  // or why it could not run.
  std::optional<StreamMeasurement> other_shape;
  std::string other_shape_not_run;
  // DRAM: the one-pass grid at each block size and unroll (p50 of the search's launches, or why
  // it could not run), and the p50 of the final launches of the three measured again.
  nlohmann::json one_pass_configs = nlohmann::json::array();
  // A level bound by the SM clock: the search compared rates at one SM clock (bytes per cycle),
  // and its finalists are ranked by their final launches' bytes per SM cycle.
  bool search_at_one_clock = false;
  // The finalists whose final p50 came within the search's minimum gain of the fastest's: the
  // launches cannot order them either, so the finding's value and spread are over theirs too.
  std::vector<StreamMeasurement> ties;
  // Inside L2: the best configuration's final launches at other footprints inside it. An
  // H200's all-SM L2 rate moved by a third with the footprint (13.4-18.3 TB/s over a quarter of
  // l2.size between runs whose l2.size differed by 11 %): the finding's value and spread are
  // over every footprint's launches.
  std::vector<StreamMeasurement> other_footprints;
  // The search's best and next fastest configurations, each with its search p50 and the p50
  // of its final launches; `final` is the fastest of them by the latter (before DRAM's
  // one-pass shape is tried).
  nlohmann::json finalists = nlohmann::json::array();
  // DRAM: the final configuration, in its launch shape, at footprints up to at least 8 GiB
  // (dram_footprints.hpp); the finding is over the largest ones that agree. They also lie
  // elsewhere in device memory, which moved an H200's rate by up to 0.3 % between processes
  // (docs/results/nvidia-h200/2026-11-25_6f0d00e).
  std::optional<DramFootprintSweep> footprint_sweep;
  // DRAM: the other shape's sweep at the same footprints, where its rate at the search's
  // footprint exceeded the finding (shape_at_footprints.hpp), and what the comparison decided.
  std::optional<DramFootprintSweep> other_shape_sweep;
  std::string shape_choice;
};

// The launch configuration a measurement ran (a one-pass grid may have its own unroll).
LaunchConfig config_of(const StreamMeasurement& m);

// What ranks finalists: the p50 of the final launches' bytes per SM cycle for a level bound by
// the SM clock (the clock may move between two finalists' launches), where that clock is known;
// otherwise their p50 in bytes/second.
double finalist_rate(const StreamMeasurement& m, bool per_sm_clock);

// `name` (bandwidth, write_bandwidth, copy_bandwidth): p50 of the final launches in
// bytes/second, their spread, a confidence from the launches' agreement (and the finding the
// footprint was planned from), the evidence. With `clocks` (a level bound by the SM clock): the
// value and spread are those of every launch's bytes per SM cycle at up to 16 of the run's SM
// clock readings (evenly spaced ranks), the launches' own spread goes into the evidence.
// With `peak` (DRAM: the API's peak): a p50 above it gets evidence.above_peak and the factor
// methods_agreeing 1 of 2 (the API's peak and the measurement disagree; one of them is wrong).
// DRAM (outcome.footprint_sweep): value and spread over the largest footprints that agree, with
// footprint_agreement's factors.
Property rate_property(const std::string& name, const OpOutcome& outcome, const FootprintPlan& plan,
                       const SmClockLog* clocks = nullptr,
                       std::optional<double> peak = std::nullopt);

// bandwidth_per_sm_clock: `rate` / (SMs x the SM clock measured during its launches), in bytes
// per SM per cycle; inconclusive where that clock is unknown. Value and spread over the final
// launches of the fastest finalist and of its ties (OpOutcome::ties), each over its own clock.
Property per_sm_clock_property(const Property& rate, const OpOutcome& outcome);

// The API's DRAM peak, memory clock x bus width x 2 (double data rate), in bytes/second; nullopt
// where the API reports no memory clock or bus width.
std::optional<double> api_peak_bandwidth(const DeviceFacts& facts);

// The warning for a rate above its peak (evidence.above_peak), with both numbers; "" otherwise.
std::string above_peak_warning(const std::string& id, const Property& rate);

// peak_bandwidth (source api: memory clock x bus width x 2) and peak_fraction (derived:
// `rate` / peak). Nothing where the API reports no memory clock or bus width.
void add_api_peak(Element& element, const Property& rate, const DeviceFacts& facts);

}  // namespace memtopo
