#include "report/memory_map_text.hpp"

#include "model/units.hpp"
#include "report/footnotes.hpp"
#include "report/modes_text.hpp"

namespace memtopo {
namespace {

bool is_conclusive_value(const Property& property) {
  return !property.inconclusive && property.bound == Bound::none;
}

std::string value_text(const Property& property) {
  if (const std::string modes = modes_values_text(property); !modes.empty()) return modes;
  return format_value(property.value, property.unit);
}

}  // namespace

MapText map_text(const Property& property, const std::string& prefix) {
  MapText line;
  std::string text = value_text(property);
  if (property.bound != Bound::none && !property.value.is_null()) {
    text = (property.bound == Bound::lower ? "≥ " : "≤ ") + text;
    line.unsure = true;
  } else if (property.inconclusive || property.value.is_null()) {
    text = property.value.is_null() ? "?" : text + "?";
    line.unsure = true;
  }
  if (is_conclusive_value(property) && is_low_confidence(property.confidence)) {
    text = "~ " + text;
    line.low = true;
  }
  if (property.source == Source::api) text += " (api)";
  line.text = prefix + text;
  return line;
}

std::optional<MapText> map_text(const Element& element, const std::string& name,
                                const std::string& prefix) {
  const Property* property = element.find(name);
  if (!property) return std::nullopt;
  return map_text(*property, prefix);
}

}  // namespace memtopo
