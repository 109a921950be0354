#include "probes/geometry/geometry_probe.hpp"

#include "probes/geometry/geometry_measurement.hpp"

namespace memtopo {

const std::vector<GeometryTarget>& geometry_targets() {
  static const std::vector<GeometryTarget> table = {
      {"l1", LoadPath::ca, LoadPath::cg},
      {"tex", LoadPath::tex, LoadPath::cg},
      {"ro", LoadPath::nc, LoadPath::cg},
      // L2: cg loads skip L1; the threshold is l2.size's (L2 hit against DRAM).
      {"l2", LoadPath::cg, std::nullopt, true},
      // The constant L1: its threshold is constant_l1.size's (against the L1.5).
      {"constant_l1", LoadPath::constant, std::nullopt},
  };
  return table;
}

namespace {

const char* aspect_name(GeometryAspect a) {
  switch (a) {
    case GeometryAspect::ways:
      return "ways";
    case GeometryAspect::sets:
      return "sets";
    case GeometryAspect::set_bits:
      return "set_bits";
    case GeometryAspect::policy:
      return "policy";
  }
  return "?";
}

}  // namespace

std::string GeometryProbe::id() const {
  return target_.element + "." + aspect_name(aspect_);
}

std::string GeometryProbe::description() const {
  switch (aspect_) {
    case GeometryAspect::ways:
      return "cache ways (per set when unequal): overfull-set chases at stride of a line";
    case GeometryAspect::sets:
      return "cache sets, from the ways probe's overfull-set chases";
    case GeometryAspect::set_bits:
      return "address bits that select the set: single-bit flips in a full set";
    case GeometryAspect::policy:
      return "replacement policy: periodicity, re-touch test, victim-way statistics";
  }
  return "";
}

std::vector<std::string> GeometryProbe::needs() const {
  if (aspect_ == GeometryAspect::ways && target_.device_wide)
    return {target_.element + ".size", target_.element + ".line"};
  if (aspect_ == GeometryAspect::ways) return {target_.element + ".size"};
  return {target_.element + ".ways"};
}

void GeometryProbe::run(ProbeContext& ctx) {
  GeometryMeasurement g(ctx, target_, id());
  switch (aspect_) {
    case GeometryAspect::ways:
      if (target_.device_wide) {
        measure_device_wide_ways(g);
      } else {
        measure_sm_ways(g);
      }
      break;
    case GeometryAspect::sets:
      write_sets_from_ways(g);
      break;
    case GeometryAspect::set_bits:
      measure_set_bits(g);
      break;
    case GeometryAspect::policy:
      measure_policy(g);
      break;
  }
}

std::vector<std::unique_ptr<Probe>> geometry_probes() {
  std::vector<std::unique_ptr<Probe>> out;
  for (const auto& t : geometry_targets()) {
    for (auto a : {GeometryAspect::ways, GeometryAspect::sets, GeometryAspect::set_bits,
                   GeometryAspect::policy})
      out.push_back(std::make_unique<GeometryProbe>(t, a));
  }
  return out;
}

}  // namespace memtopo
