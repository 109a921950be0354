// Ways x sets x line against the measured size: two measurements of one capacity. The chases
// that found the ways and the sets never fill the whole cache, so nothing in them says the
// geometry holds what the size search saw; this check does. A small gap (the few lines a size
// search under random replacement overshoots) lowers the ways' confidence a little; a gap beyond
// kCapacityTolerance is a contradiction (a hashed index whose 2^n sets hold more than the size,
// sets of unequal ways): the sets, which rest on the ways and the capacity, are then
// inconclusive, and the ways keep their value with the low confidence the gap gives.
#include <cmath>

#include "probes/geometry/geometry_measurement.hpp"

namespace memtopo {
namespace {

std::string kib(double bytes) {
  const double k = bytes / 1024;
  return std::to_string(static_cast<std::uint64_t>(std::llround(k))) + " KiB";
}

}  // namespace

void write_ways(GeometryMeasurement& g, Property ways, Confidence confidence) {
  const nlohmann::json sets = ways.evidence.value("sets", nlohmann::json());
  // Unequal sets (a list of ways) write their capacity as the size instead (size_refinement).
  if (ways.value.is_number_integer() && sets.is_number_integer() && sets.get<std::int64_t>() > 0 &&
      g.size() > 0) {
    const auto w = ways.value.get<std::uint64_t>(), s = sets.get<std::uint64_t>();
    const double accounted = static_cast<double>(w * s * g.line());
    const double measured = static_cast<double>(g.size());
    const double gap = std::abs(accounted - measured) / measured;
    const bool contradicts = gap > kCapacityTolerance;
    const std::string product = std::to_string(w) + " ways x " + std::to_string(s) + " sets x " +
                                std::to_string(g.line()) + " B";
    confidence *= capacity_agreement(accounted, measured, product + " (" + g.element() + ".size)");
    nlohmann::json check = {{"ways", w},
                            {"sets", s},
                            {"line_bytes", g.line()},
                            {"accounted_bytes", accounted},
                            {"measured_size_bytes", g.size()},
                            {"relative_gap", gap},
                            {"tolerance", kCapacityTolerance},
                            {"contradicts", contradicts}};
    if (contradicts) {
      check["why"] = product + " = " + kib(accounted) + ", but " + g.element() + ".size is " +
                     kib(measured) + " (" + std::to_string(g.size() / g.line()) +
                     " lines): the sets do not account for the capacity (" +
                     std::to_string(g.size() / g.line() / w) + " sets of " + std::to_string(w) +
                     " ways would)";
    }
    ways.evidence["capacity_check"] = std::move(check);
  }
  g.write(std::move(ways), confidence);
}

std::optional<std::string> capacity_contradiction(const Property& ways) {
  if (!ways.evidence.contains("capacity_check")) return std::nullopt;
  const auto& check = ways.evidence.at("capacity_check");
  if (!check.at("contradicts").get<bool>()) return std::nullopt;
  return check.at("why").get<std::string>();
}

}  // namespace memtopo
