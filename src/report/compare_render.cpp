#include "report/compare_render.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "model/printable_text.hpp"
#include "model/units.hpp"
#include "report/compare_tables.hpp"
#include "report/property_values.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

// The console table's width: names, values and deltas wrap to fit it.
constexpr std::size_t kCompareTableWidth = 120;
constexpr int kCompareConfidenceDecimals = 2;
constexpr const char* kLegend =
    "256 B? inconclusive (the run's best guess), ≥ x or ≤ x a bound, absent: not in that run; "
    "confidence A→B; tolerance: the largest difference that is not a change (p5-p95 "
    "half-widths combined, or the search's resolution; docs/compare.md).";

// A number's text without a sign when it shows as zero: never "-0 cy" or "-0 %".
std::string signed_text(double value, const std::string& magnitude_text) {
  const bool shows_zero = magnitude_text.find_first_of("123456789") == std::string::npos;
  if (shows_zero || value == 0) return magnitude_text;
  return (value > 0 ? "+" : "-") + magnitude_text;
}

std::string plain_value_text(const nlohmann::json& value, const std::string& unit) {
  if (value.is_number() && value.get<double>() == 0) return format_value(0, unit);  // not -0
  if (is_table(value)) return table_value_text(value);  // rows counted, never raw JSON
  return format_value(value, unit);
}

// Units spelled out in the JSON, shortened for the table's width.
std::string compact_units(std::string text) {
  const std::string long_unit = " bytes/cycle";
  if (const auto at = text.find(long_unit); at != std::string::npos)
    text.replace(at, long_unit.size(), " B/clk");
  return text;
}

// As the console report marks them: "≥ 244 KiB" a bound, "256 B?" an inconclusive guess.
std::string side_text(const nlohmann::json& value, bool inconclusive, Bound bound,
                      const std::string& unit) {
  if (value.is_null()) return inconclusive ? "inconclusive" : "-";
  const std::string text = compact_units(printable_text(plain_value_text(value, unit)));
  if (bound != Bound::none) return (bound == Bound::lower ? "≥ " : "≤ ") + text;
  return inconclusive ? text + "?" : text;
}

std::string value_text(const PropertyComparison& p, bool side_a) {
  const bool present = p.verdict != (side_a ? Verdict::only_in_b : Verdict::only_in_a);
  if (!present) return "absent";
  return side_a ? side_text(p.value_a, p.inconclusive_a, p.bound_a, p.unit)
                : side_text(p.value_b, p.inconclusive_b, p.bound_b, p.unit);
}

std::string delta_text(const PropertyComparison& p) {
  if (!p.table_rows_differ.empty()) return printable_text(p.table_rows_differ);
  if (!p.delta || *p.delta == 0) return "";
  std::string text =
      signed_text(*p.delta, compact_units(format_value(std::abs(*p.delta), p.unit)));
  const double a = p.value_a.is_number() ? p.value_a.get<double>() : 0;
  if (a != 0) {
    const double percent = 100 * *p.delta / std::abs(a);
    text += " (" + signed_text(percent, format_number(std::abs(percent), 1)) + "%)";
  }
  return text;
}

std::string tolerance_text(const PropertyComparison& p) {
  return p.tolerance ? compact_units(format_value(*p.tolerance, p.unit)) : "";
}

// The verdict in the table, short enough for 120 columns; the JSON keeps to_string's names.
std::string verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::became_inconclusive:
      return "now inconclusive";
    case Verdict::became_conclusive:
      return "now conclusive";
    case Verdict::confidence_crossed:
      return "conf. crossed 0.5";
    case Verdict::not_judged:
      return "rows differ";
    default:
      return to_string(verdict);
  }
}

std::string confidence_text(const PropertyComparison& p) {
  auto one = [](const std::optional<double>& c) {
    return c ? format_number(*c, kCompareConfidenceDecimals) : std::string("-");
  };
  if (!p.confidence_a && !p.confidence_b) return "";
  if (p.confidence_a == p.confidence_b) return one(p.confidence_a);
  return one(p.confidence_a) + "→" + one(p.confidence_b);
}

std::string run_line(const char* label, const RunSummary& run) {
  std::string line = printable_text(run.origin) + "  " + printable_text(run.device);
  if (!run.git_describe.empty()) line += ", memtopo " + printable_text(run.git_describe);
  if (!run.timestamp_utc.empty()) line += ", " + printable_text(run.timestamp_utc);
  if (run.simulated) line += ", SIMULATED (" + printable_text(run.sim_file) + ")";
  return wrap_paragraph(line, std::string(label) + ": ", kCompareTableWidth);
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
  out << comparison.properties.size() << " properties compared: " << differences << " differ, "
      << comparison.count(Verdict::within_spread) << " within spread, "
      << comparison.count(Verdict::same) << " same, "
      << comparison.count(Verdict::both_inconclusive) << " inconclusive in both, "
      << comparison.count(Verdict::not_judged) << " tables with rows that differ (not judged); "
      << "probe statuses that differ: " << comparison.probe_changes.size() << ".";
  return "\n" + wrap_paragraph(out.str(), "", kCompareTableWidth) +
         (comparison.has_differences() ? "The runs differ.\n"
                                       : "The runs agree within their spreads.\n");
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
               {"table_rows_differ", p.table_rows_differ},
               {"table_difference", p.table_difference_detail},
               {"verdict", to_string(p.verdict)},
               {"difference", is_difference(p.verdict)}};
}

// A part of the table: a title and the verdicts it holds.
struct Group {
  std::string title;
  bool (*holds)(Verdict);
};

// Every row within kCompareTableWidth: long names, values and deltas wrap under their column.
std::string property_table(const std::vector<const PropertyComparison*>& rows) {
  using Align = TextTable::Align;
  using Overflow = TextTable::Overflow;
  // Values, tolerances, confidences and verdicts are short (units abbreviated, marks for
  // inconclusive values, short verdicts) and keep their width; the delta, then the name (which
  // breaks at spaces only: "l2.latency (far mode)") wrap. A table's rows are listed below it.
  TextTable table({{"element.property", Align::left, Overflow::wrap, 24},
                   {"A", Align::right},
                   {"B", Align::right},
                   {"delta", Align::left, Overflow::wrap, 11},
                   {"tolerance", Align::right},
                   {"confidence"},
                   {"verdict"}});
  for (const PropertyComparison* p : rows) {
    table.add_row({printable_text(p->element + "." + p->property), value_text(*p, true),
                   value_text(*p, false), delta_text(*p), tolerance_text(*p),
                   confidence_text(*p), verdict_text(p->verdict)});
  }
  std::string text = table.render(0, kCompareTableWidth);
  for (const PropertyComparison* p : rows) {
    if (p->table_difference_detail.empty()) continue;
    text += wrap_paragraph(p->table_difference_detail,
                           "  " + printable_text(p->element + "." + p->property) + ": ",
                           kCompareTableWidth);
  }
  return text;
}

}  // namespace

std::string render_comparison_text(const Comparison& comparison, bool all) {
  std::string text = run_line("A", comparison.a) + run_line("B", comparison.b);
  // Differences first, then what agrees within the spreads (or is a table not judged), then,
  // with --all, what is the same.
  const std::vector<Group> groups{
      {"Differences", [](Verdict v) { return is_difference(v); }},
      {"Within spread, inconclusive in both, or not judged",
       [](Verdict v) { return !is_difference(v) && v != Verdict::same; }},
      {"The same", [](Verdict v) { return v == Verdict::same; }}};
  for (const Group& group : groups) {
    const bool same_group = &group == &groups.back();
    std::vector<const PropertyComparison*> rows;
    for (const PropertyComparison& p : comparison.properties)
      if (group.holds(p.verdict)) rows.push_back(&p);
    if (rows.empty()) continue;
    text += "\n" + group.title + " (" + std::to_string(rows.size()) + ")";
    if (same_group && !all) {
      text += ": --all lists them\n";
      continue;
    }
    text += ":\n" + property_table(rows);
  }
  if (!comparison.properties.empty()) {
    text += "\n" + wrap_paragraph(kLegend, "", kCompareTableWidth);
  }
  return text + probe_changes_text(comparison) + summary_text(comparison);
}

nlohmann::ordered_json comparison_to_json(const Comparison& comparison) {
  ojson out;
  out["schema"] = kCompareSchema;
  out["a"] = run_to_json(comparison.a);
  out["b"] = run_to_json(comparison.b);
  out["rules"] = ojson{{"range_factor", comparison.rules.range_factor},
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
