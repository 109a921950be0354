#include "probes/hopper/hopper_probe.hpp"

#include <string>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "probes/core/findings.hpp"
#include "probes/hopper/dsmem_probe.hpp"
#include "probes/hopper/icache_probe.hpp"
#include "probes/hopper/tma_probe.hpp"

namespace memtopo {

HopperExperiments& HopperProbe::require_experiments(ProbeContext& ctx, const std::string& what) {
  HopperExperiments* experiments = ctx.backend.hopper();
  if (!experiments) {
    throw ProbeSkipped("the " +
                       std::string(ctx.backend.kind() == "sim" ? "simulated device" : "backend") +
                       " does not model " + what);
  }
  if (std::string why = experiments->hopper_unsupported_reason(); !why.empty()) {
    throw ProbeSkipped(why);
  }
  return *experiments;
}

Property measured_property(const std::string& name, const std::string& unit,
                           const std::string& method, std::span<const double> samples) {
  Property p;
  p.name = name;
  p.unit = unit;
  p.source = Source::measured;
  p.method = method;
  const Spread spread = summarize(samples);
  p.value = spread.p50;
  p.spread = spread;
  set_confidence(p, Confidence{share_within(samples, spread.p50, kDescribedWithin,
                                            "samples within 10 % of the p50")});
  return p;
}

std::vector<std::unique_ptr<Probe>> hopper_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (auto& probe : dsmem_probes()) probes.push_back(std::move(probe));
  for (auto& probe : tma_probes()) probes.push_back(std::move(probe));
  probes.push_back(make_icache_probe());
  return probes;
}

}  // namespace memtopo
