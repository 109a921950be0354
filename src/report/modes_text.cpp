#include "report/modes_text.hpp"

#include <cmath>

#include "model/json.hpp"
#include "model/units.hpp"
#include "report/footnotes.hpp"

namespace memtopo {
namespace {

// Cycles to three significant figures as the console's latency column has them (669.5 cy reads
// 670 cy); any other unit as format_value writes it.
std::string number_text(double value, const std::string& unit) {
  if (unit == "cycles") return format_number(value, std::fabs(value) >= 100 ? 0 : 1);
  return format_value(value, unit);
}

std::string unit_suffix(const std::string& unit) {
  return unit == "cycles" ? " cy" : "";
}

std::string percent(double share) {
  return format_number(100 * share, 0) + " %";
}

}  // namespace

std::string modes_text(const std::vector<Mode>& modes, const std::string& unit) {
  if (modes.size() < 2) return "";
  std::string values, shares;
  for (const Mode& mode : modes) {
    values += (values.empty() ? "" : " / ") + number_text(mode.value, unit);
    shares += (shares.empty() ? "" : " / ") + percent(mode.share);
  }
  return values + unit_suffix(unit) + " (" + shares + ")";
}

std::string modes_text(const Property& property) {
  return modes_text(property.modes, property.unit);
}

std::string modes_values_text(const Property& property) {
  if (property.modes.size() < 2) return "";
  std::string values;
  for (const Mode& mode : property.modes) {
    values += (values.empty() ? "" : " / ") + number_text(mode.value, property.unit);
  }
  return values + unit_suffix(property.unit);
}

std::vector<Mode> row_modes(const nlohmann::json& row) {
  std::vector<Mode> modes;
  const auto it = row.find("modes");
  if (it == row.end() || !it->is_array()) return modes;
  try {
    for (const nlohmann::json& mode : *it) modes.push_back(mode_from_json(mode, "mode"));
  } catch (const TopologyJsonError&) {
    return {};  // a malformed row shows its headline alone
  }
  return modes;
}

std::string modes_detail(const Property& property) {
  if (property.modes.size() < 2) return "";
  std::string text;
  for (const Mode& mode : property.modes) {
    if (!text.empty()) text += "; ";
    text += mode.name + " " + format_value(mode.value, property.unit) + ": " +
            percent(mode.share) + ", p5 " + format_value(mode.spread.p5, property.unit) +
            " - p95 " + format_value(mode.spread.p95, property.unit);
    if (mode.confidence) text += ", confidence " + format_confidence(*mode.confidence);
  }
  if (property.mix) {
    text += "; all " + std::to_string(property.mix->samples) + " samples: p5 " +
            format_value(property.mix->p5, property.unit) + " - p95 " +
            format_value(property.mix->p95, property.unit);
  }
  return text;
}

}  // namespace memtopo
