#include "report/compare_render.hpp"

#include <cmath>
#include <sstream>

#include "model/printable_text.hpp"
#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

// The console table's width: the values of tables are shortened to fit.
constexpr std::size_t kTableWidth = 120;
constexpr int kConfidenceDecimals = 2;

std::string side_text(const nlohmann::json& value, bool inconclusive, const std::string& unit) {
  if (value.is_null()) return inconclusive ? "inconclusive" : "-";
  std::string text = format_value(value, unit);
  return inconclusive ? text + " (inconclusive)" : text;
}

std::string value_text(const PropertyComparison& p, bool side_a) {
  const bool present = p.verdict != (side_a ? Verdict::only_in_b : Verdict::only_in_a);
  if (!present) return "absent";
  return side_text(side_a ? p.value_a : p.value_b, side_a ? p.inconclusive_a : p.inconclusive_b,
                   p.unit);
}

std::string delta_text(const PropertyComparison& p) {
  if (!p.delta || *p.delta == 0) return "";
  const double magnitude = std::abs(*p.delta);
  std::string text = (*p.delta > 0 ? "+" : "-") + format_value(magnitude, p.unit);
  const double a = p.value_a.is_number() ? p.value_a.get<double>() : 0;
  if (a != 0) text += " (" + format_number(100 * *p.delta / std::abs(a), 1) + " %)";
  if (p.tolerance) text += ", tol " + format_value(*p.tolerance, p.unit);
  return text;
}

std::string confidence_text(const PropertyComparison& p) {
  auto one = [](const std::optional<double>& c) {
    return c ? format_number(*c, kConfidenceDecimals) : std::string("-");
  };
  if (!p.confidence_a && !p.confidence_b) return "";
  if (p.confidence_a == p.confidence_b) return one(p.confidence_a);
  return one(p.confidence_a) + " -> " + one(p.confidence_b);
}

std::string run_line(const char* label, const RunSummary& run) {
  std::string line =
      std::string(label) + ": " + printable_text(run.origin) + "  " + printable_text(run.device);
  if (!run.git_describe.empty()) line += ", memtopo " + printable_text(run.git_describe);
  if (!run.timestamp_utc.empty()) line += ", " + printable_text(run.timestamp_utc);
  if (run.simulated) line += ", SIMULATED (" + printable_text(run.sim_file) + ")";
  return line + "\n";
}

std::string probe_changes_text(const Comparison& comparison) {
  if (comparison.probe_changes.empty()) return "";
  TextTable table({{"probe"}, {"A"}, {"B"}});
  for (const ProbeStatusChange& change : comparison.probe_changes) {
    table.add_row({printable_text(change.probe_id),
                   change.status_a.empty() ? "absent" : printable_text(change.status_a),
                   change.status_b.empty() ? "absent" : printable_text(change.status_b)});
  }
  return "\nProbe statuses that differ:\n" + table.render(2);
}

std::string summary_text(const Comparison& comparison) {
  std::ostringstream out;
  std::size_t differences = 0;
  for (const PropertyComparison& p : comparison.properties) differences += is_difference(p.verdict);
  out << "\n"
      << comparison.properties.size() << " properties compared: " << differences << " differ, "
      << comparison.count(Verdict::within_spread) << " within spread, "
      << comparison.count(Verdict::same) << " same, "
      << comparison.count(Verdict::both_inconclusive) << " inconclusive in both, "
      << comparison.count(Verdict::not_judged) << " not judged (tables); probe statuses that "
      << "differ: " << comparison.probe_changes.size() << ".\n"
      << (comparison.has_differences() ? "The runs differ.\n"
                                       : "The runs agree within their spreads.\n");
  return out.str();
}

ojson optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? ojson(*value) : ojson(nullptr);
}

ojson run_to_json(const RunSummary& run) {
  return ojson{{"file", printable_text(run.origin)}, {"device", run.device},
               {"git_describe", run.git_describe},   {"timestamp_utc", run.timestamp_utc},
               {"simulated", run.simulated},         {"sim_file", run.sim_file}};
}

ojson property_to_json(const PropertyComparison& p) {
  return ojson{{"element", p.element},
               {"property", p.property},
               {"unit", p.unit},
               {"a", ojson(p.value_a)},
               {"b", ojson(p.value_b)},
               {"inconclusive_a", p.inconclusive_a},
               {"inconclusive_b", p.inconclusive_b},
               {"confidence_a", optional_number(p.confidence_a)},
               {"confidence_b", optional_number(p.confidence_b)},
               {"delta", optional_number(p.delta)},
               {"tolerance", optional_number(p.tolerance)},
               {"rule", p.rule},
               {"verdict", to_string(p.verdict)},
               {"difference", is_difference(p.verdict)}};
}

}  // namespace

std::string render_comparison_text(const Comparison& comparison, bool all) {
  std::string text = run_line("A", comparison.a) + run_line("B", comparison.b) + "\n";
  TextTable table({{"element.property"},
                   {"A", TextTable::Align::right, TextTable::Overflow::shorten},
                   {"B", TextTable::Align::right, TextTable::Overflow::shorten},
                   {"delta (tolerance)", TextTable::Align::left, TextTable::Overflow::shorten},
                   {"confidence"},
                   {"verdict"}});
  std::size_t rows = 0;
  for (const PropertyComparison& p : comparison.properties) {
    if (!all && p.verdict == Verdict::same) continue;
    table.add_row({printable_text(p.element + "." + p.property), value_text(p, true),
                   value_text(p, false), delta_text(p), confidence_text(p), to_string(p.verdict)});
    ++rows;
  }
  text += rows == 0 ? "Every property is the same in both runs.\n" : table.render(0, kTableWidth);
  return text + probe_changes_text(comparison) + summary_text(comparison);
}

nlohmann::ordered_json comparison_to_json(const Comparison& comparison) {
  ojson out;
  out["schema"] = kCompareSchema;
  out["a"] = run_to_json(comparison.a);
  out["b"] = run_to_json(comparison.b);
  out["rules"] = ojson{{"stdev_factor", comparison.rules.stdev_factor},
                       {"relative_floor", comparison.rules.relative_floor},
                       {"confidence_threshold", comparison.rules.confidence_threshold}};
  out["differ"] = comparison.has_differences();
  ojson counts = ojson::object();
  for (Verdict verdict :
       {Verdict::changed, Verdict::became_inconclusive, Verdict::became_conclusive,
        Verdict::confidence_crossed, Verdict::only_in_a, Verdict::only_in_b, Verdict::within_spread,
        Verdict::both_inconclusive, Verdict::not_judged, Verdict::same}) {
    counts[to_string(verdict)] = comparison.count(verdict);
  }
  out["counts"] = std::move(counts);
  ojson properties = ojson::array();
  for (const PropertyComparison& p : comparison.properties)
    properties.push_back(property_to_json(p));
  out["properties"] = std::move(properties);
  ojson probes = ojson::array();
  for (const ProbeStatusChange& change : comparison.probe_changes) {
    probes.push_back(
        ojson{{"id", change.probe_id},
              {"a", change.status_a.empty() ? ojson(nullptr) : ojson(change.status_a)},
              {"b", change.status_b.empty() ? ojson(nullptr) : ojson(change.status_b)}});
  }
  out["probe_status_changes"] = std::move(probes);
  return out;
}

}  // namespace memtopo
