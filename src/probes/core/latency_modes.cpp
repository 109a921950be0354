#include "probes/core/latency_modes.hpp"

#include "analysis/stats.hpp"
#include "analysis/valley_split.hpp"
#include "probes/core/constants.hpp"

namespace memtopo {
namespace {

nlohmann::json mode_json(const Spread& spread, double share_of_loads) {
  return {{"cycles", spread.p50},
          {"share", share_of_loads},
          {"p5_cycles", spread.p5},
          {"p95_cycles", spread.p95},
          {"samples", spread.samples}};
}

}  // namespace

double describe_latency_modes(const std::vector<double>& cycles, nlohmann::json& out) {
  const Spread spread = summarize(cycles);
  out["p5_cycles"] = spread.p5;
  out["p95_cycles"] = spread.p95;
  out["stdev_cycles"] = spread.stdev;
  out["samples"] = spread.samples;
  const ModeSplit split = split_latency_modes(cycles);
  if (!split.bimodal) {
    out["cycles"] = spread.p50;
    return fraction_within(cycles, spread.p50, kDescribedBand);
  }
  std::vector<double> fast, slow;
  for (const double c : cycles) (c > split.threshold ? slow : fast).push_back(c);
  const double n = static_cast<double>(cycles.size());
  const double fast_share = static_cast<double>(fast.size()) / n;
  const double slow_share = static_cast<double>(slow.size()) / n;
  out["cycles"] = split.fast.p50;
  out["modes"] = {mode_json(split.fast, fast_share), mode_json(split.slow, slow_share)};
  out["mode_split"] = {{"threshold_cycles", split.threshold},
                       {"separation_sigmas", split.separation_sigmas},
                       {"why", split.reason}};
  return fast_share * fraction_within(fast, split.fast.p50, kDescribedBand) +
         slow_share * fraction_within(slow, split.slow.p50, kDescribedBand);
}

}  // namespace memtopo
