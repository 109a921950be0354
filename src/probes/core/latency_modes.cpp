#include "probes/core/latency_modes.hpp"

#include <cstdio>
#include <stdexcept>

#include "analysis/mode_evidence.hpp"
#include "analysis/stats.hpp"
#include "model/json.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"

namespace memtopo {
namespace {

// One mode's loads (corrected and raw alike) and what they say.
struct ModeLoads {
  std::vector<double> corrected, raw;
};

// The loads of each side of the threshold, in the order timed.
std::pair<ModeLoads, ModeLoads> split_loads(const LatencyLoads& loads, double threshold) {
  std::pair<ModeLoads, ModeLoads> sides;
  for (std::size_t i = 0; i < loads.corrected.size(); ++i) {
    ModeLoads& side = loads.corrected[i] > threshold ? sides.second : sides.first;
    side.corrected.push_back(loads.corrected[i]);
    if (i < loads.raw.size()) side.raw.push_back(loads.raw[i]);
  }
  return sides;
}

// That a mode is one, with this p50: how empty the gap to the other mode is, how well its p50
// describes its loads, and how many parts of the chase show it again (`slow`: the far mode).
Confidence mode_confidence(const LatencyModes& found, bool slow, const std::vector<double>& loads,
                           double p50, const std::string& what) {
  Confidence confidence{mode_separation(found.valley_ratio, "between the near and far modes")};
  confidence *= share_within(loads, p50, kDescribedBand, what);
  if (found.parts >= 2) {
    confidence *= agreement(found.parts_showing[slow ? 1 : 0], found.parts, found.parts_rule);
  }
  return confidence;
}

Mode make_mode(const char* name, const ModeLoads& loads, double n, const Confidence& confidence) {
  Mode mode;
  mode.name = name;
  mode.spread = summarize(loads.corrected);
  mode.value = mode.spread.p50;
  mode.share = static_cast<double>(loads.corrected.size()) / n;
  mode.confidence = confidence.value();
  mode.confidence_factors = confidence.evidence();
  return mode;
}

nlohmann::json split_evidence(const LatencyModes& found) {
  const ModeSplit& split = found.split;
  nlohmann::json out = {{"bimodal", split.bimodal}, {"why", split.reason}};
  if (!split.bimodal) return out;
  out["threshold_cycles"] = split.threshold;
  out["separation_sigmas"] = split.separation_sigmas;
  out["valley_ratio"] = found.valley_ratio;
  out["parts"] = found.parts;
  out["parts_showing_near"] = found.parts_showing[0];
  out["parts_showing_far"] = found.parts_showing[1];
  return out;
}

LatencyDescription one_mode(const LatencyLoads& loads, const std::string& what,
                            nlohmann::json split) {
  LatencyDescription d;
  d.value = summarize(loads.corrected);
  if (!loads.raw.empty()) d.raw = summarize(loads.raw);
  d.confidence = Confidence{share_within(loads.corrected, d.value.p50, kDescribedBand, what)};
  d.described = fraction_within(loads.corrected, d.value.p50, kDescribedBand);
  d.split = std::move(split);
  return d;
}

// The modes in mode_json's form, with the keys rows had before (cycles, p5_cycles, p95_cycles,
// samples) for their readers.
nlohmann::json modes_with_row_keys(const LatencyDescription& d) {
  nlohmann::json modes = nlohmann::json::array();
  for (const Mode& mode : d.modes) {
    nlohmann::json entry = mode_json(mode);
    entry["cycles"] = mode.value;
    entry["p5_cycles"] = mode.spread.p5;
    entry["p95_cycles"] = mode.spread.p95;
    entry["samples"] = mode.spread.samples;
    modes.push_back(std::move(entry));
  }
  return modes;
}

}  // namespace

LatencyDescription describe_latency(const LatencyLoads& loads, bool split_modes,
                                    const std::string& what) {
  if (loads.corrected.empty()) throw std::invalid_argument("describe_latency: no loads");
  if (!split_modes) return one_mode(loads, what, nullptr);
  const LatencyModes found = find_latency_modes(loads.corrected);
  if (!found.split.bimodal) return one_mode(loads, what, split_evidence(found));
  const auto [near, far] = split_loads(loads, found.split.threshold);
  const double n = static_cast<double>(loads.corrected.size());
  LatencyDescription d;
  d.value = summarize(near.corrected);
  if (!near.raw.empty()) d.raw = summarize(near.raw);
  d.mix = summarize(loads.corrected);
  d.confidence = mode_confidence(found, false, near.corrected, d.value.p50, "near-mode " + what);
  const Spread far_spread = summarize(far.corrected);
  const Confidence far_confidence =
      mode_confidence(found, true, far.corrected, far_spread.p50, "far-mode " + what);
  d.modes = {make_mode("near", near, n, d.confidence), make_mode("far", far, n, far_confidence)};
  d.described =
      (static_cast<double>(near.corrected.size()) *
           fraction_within(near.corrected, d.value.p50, kDescribedBand) +
       static_cast<double>(far.corrected.size()) *
           fraction_within(far.corrected, far_spread.p50, kDescribedBand)) /
      n;
  d.split = split_evidence(found);
  return d;
}

void set_latency(Property& property, const LatencyDescription& d, double clock_khz) {
  property.value = d.value.p50;
  property.spread = d.value;
  property.raw = d.raw;
  property.seconds_value.reset();
  if (clock_khz > 0) property.seconds_value = d.value.p50 / (clock_khz * 1e3);
  property.modes = d.modes;
  property.mix = d.mix;
  if (!property.evidence.is_object()) property.evidence = nlohmann::json::object();
  if (!d.split.is_null()) property.evidence["mode_split"] = d.split;
}

void write_latency_row(const LatencyDescription& d, nlohmann::json& row) {
  row["cycles"] = d.value.p50;
  row["p5_cycles"] = d.value.p5;
  row["p95_cycles"] = d.value.p95;
  row["stdev_cycles"] = d.value.stdev;
  row["samples"] = d.value.samples;
  if (!d.modes.empty()) {
    row["mix"] = spread_evidence(*d.mix);
    row["modes"] = modes_with_row_keys(d);
    row["mode_split"] = d.split;
  }
  row["share_within_band"] = d.described;
  row["confidence"] = d.confidence.value();
  row["confidence_factors"] = d.confidence.evidence();
}

std::string near_mode_note(const LatencyDescription& d, const std::string& far_what) {
  if (d.modes.size() < 2) return "";
  const Mode& far = d.modes.back();
  char note[240];
  std::snprintf(note, sizeof note, "the near mode; %.0f %% of the loads answered at %.0f cycles (%s)",
                100 * far.share, far.value, far_what.c_str());
  return note;
}

}  // namespace memtopo
