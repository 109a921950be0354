#pragma once
// Latencies whose loads may fall into two modes (the near and far L2 partitions, the memory
// behind them): the one description of a chase's loads that every latency reports (the latency
// probes, dram.latency_tlb_miss, the latency-pattern rows), and that the model holds as a
// property's `modes`. docs/method.md, "Two modes".
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/confidence.hpp"
#include "model/topology.hpp"

namespace memtopo {

// The timed loads of one latency, in the order they were timed.
struct LatencyLoads {
  std::vector<double> corrected;  // timing overhead subtracted
  std::vector<double> raw;        // the same loads before correction; may be empty
};

struct LatencyDescription {
  Spread value;               // the headline's loads: the near mode's where there are two
  std::optional<Spread> raw;  // the same loads uncorrected (when raw cycles were given)
  std::vector<Mode> modes;    // near and far, or empty for one mode
  std::optional<Spread> mix;  // every load, where there are two modes
  // The headline's: the near mode's where there are two (mode_separation x share_within of its
  // loads x agreement of the chase's parts), else share_within of every load.
  Confidence confidence;
  nlohmann::json split;  // the split's evidence: bimodal, why, and for two modes its threshold,
                         // separation, valley ratio and parts
  // The share of the loads within kDescribedBand of their own mode's p50 (of the p50 for one
  // mode): how much of the chase the reported numbers describe.
  double described = 0;
};

// The loads described as one latency or, when `split_modes` and split_latency_modes finds two
// modes (analysis/mode_evidence's find_latency_modes), as near and far modes with their evidence.
// `what` names the loads in the confidence's inputs ("timed loads"). Throws std::invalid_argument
// without loads.
LatencyDescription describe_latency(const LatencyLoads& loads, bool split_modes,
                                    const std::string& what);

// Writes the description into a latency property: value (the headline's p50), spread, raw,
// seconds_value (p50 / clock_khz, when the clock is known), modes, mix and evidence.mode_split.
// Not the confidence: a latency the timing overhead swallowed has none (set_confidence with
// description.confidence otherwise).
void set_latency(Property& property, const LatencyDescription& description, double clock_khz);

// Writes the description into a latency-pattern row: cycles, p5_cycles, p95_cycles,
// stdev_cycles and samples of the headline's loads; `mix`, `modes` (mode_json, with cycles,
// p5_cycles, p95_cycles and samples as rows had them before) and `mode_split` where there are two
// modes; share_within_band (`described`), confidence and confidence_factors.
void write_latency_row(const LatencyDescription& description, nlohmann::json& row);

// "the near mode; 56 % of the loads answered at 710 cycles (<far_what>)", or "" for one mode.
std::string near_mode_note(const LatencyDescription& description, const std::string& far_what);

}  // namespace memtopo
