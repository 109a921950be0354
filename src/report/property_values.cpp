#include "report/property_values.hpp"

#include <algorithm>
#include <cmath>

namespace memtopo {
namespace {

// A spread describes a value when its median is that value (latencies, bandwidths); a size or
// a sector keeps the latencies of its search as its spread, which say nothing about the size.
constexpr double kSameMedianRelative = 1e-9;

}  // namespace

bool is_conclusive(const Property& property) {
  return !property.inconclusive && !property.value.is_null();
}

std::optional<double> number_of(const nlohmann::json& value) {
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

std::optional<Spread> spread_of_value(const Property& property, double value) {
  if (!property.spread || property.spread->samples == 0) return std::nullopt;
  const double scale = std::max(1.0, std::abs(value));
  if (std::abs(property.spread->p50 - value) > kSameMedianRelative * scale) return std::nullopt;
  return property.spread;
}

std::optional<double> resolution_of(const Property& property) {
  const auto it = property.evidence.find("final_bracket");
  if (it == property.evidence.end() || !it->is_array() || it->size() != 2) return std::nullopt;
  const auto low = number_of((*it)[0]);
  const auto high = number_of((*it)[1]);
  if (!low || !high || *high < *low) return std::nullopt;
  return *high - *low;
}

std::vector<Property> other_modes(const Property& property) {
  std::vector<Property> out;
  for (std::size_t i = 1; i < property.modes.size(); ++i) {
    const Mode& mode = property.modes[i];
    Property p;
    p.name = property.name + " (" + mode.name + " mode)";
    p.value = mode.value;
    p.unit = property.unit;
    p.source = property.source;
    p.confidence = mode.confidence;
    p.spread = mode.spread;
    p.inconclusive = property.inconclusive;
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::ordered_json(*value)
                                        : nlohmann::ordered_json(nullptr);
}

}  // namespace memtopo
