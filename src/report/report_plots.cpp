#include "report/report_plots.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/console.hpp"
#include "report/footnotes.hpp"

namespace memtopo {
namespace {

using nlohmann::json;

// Evidence comes from a probe or from a JSON file someone kept: every read checks its type.
std::optional<double> number(const json& holder, const char* key) {
  if (!holder.is_object()) return std::nullopt;
  auto it = holder.find(key);
  if (it == holder.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

const json& member(const json& holder, const char* key) {
  static const json kNull;
  if (!holder.is_object()) return kNull;
  auto it = holder.find(key);
  return it == holder.end() ? kNull : *it;
}

std::string text(const json& holder, const char* key) {
  const json& value = member(holder, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

bool is_low(std::optional<double> confidence) {
  return confidence && *confidence < kLowConfidence;
}

std::string subject(const Element& element, const Property& property) {
  return element.id + "." + property.name;
}

std::string confidence_text(std::optional<double> confidence) {
  return confidence ? "confidence " + format_confidence(*confidence) : "no confidence";
}

// A marker at the property's own value, where it is a number of bytes on the x axis.
std::optional<PlotMarker> value_marker(const Property& property) {
  if (!property.value.is_number() || property.unit != "bytes") return std::nullopt;
  const double value = property.value.get<double>();
  const bool inconclusive = property.inconclusive || property.bound != Bound::none;
  PlotMarker marker{value, property.name + " " + format_bytes(value) + (inconclusive ? "?" : ""),
                    inconclusive || is_low(property.confidence), ""};
  marker.tip = property.name + " = " + format_bytes(value) + ", " +
               (inconclusive ? "inconclusive" : confidence_text(property.confidence));
  return marker;
}

// "between 512 MiB and 704 MiB: 274.5 -> 284 cy, KS D 0.823 (critical 0.06, p 3.7e-305)".
PlotMarker step_marker(const json& step) {
  const json& between = member(step, "between_bytes");
  const double from = between.is_array() && between.size() == 2 && between[0].is_number()
                          ? between[0].get<double>()
                          : 0;
  const double to = between.is_array() && between.size() == 2 && between[1].is_number()
                        ? between[1].get<double>()
                        : from;
  const json& ks = member(step, "ks");
  const auto confidence = number(step, "confidence");
  PlotMarker marker;
  marker.x = from > 0 && to > 0 ? std::sqrt(from * to) : std::max(from, to);
  marker.weak = is_low(confidence);
  marker.label = "D " + format_number(number(ks, "D").value_or(0), 2);
  marker.tip = "change between " + format_bytes(from) + " and " + format_bytes(to) + ": " +
               format_number(number(step, "latency_before").value_or(0), 1) + " -> " +
               format_number(number(step, "latency_after").value_or(0), 1) + " cy; KS D " +
               format_number(number(ks, "D").value_or(0), 3) + " (critical " +
               format_number(number(ks, "critical_value").value_or(0), 3) + ", p " +
               format_number(number(ks, "p_value").value_or(1), 6) + "); " +
               confidence_text(confidence);
  return marker;
}

// What a staircase's size was refined by, where its evidence has it: the API's size (a marker)
// and the section search's footprints at its miss threshold, those that fit and those that did
// not (the size found can lie far from the staircase's coarse change points).
void add_size_search(const json& evidence, Plot& plot) {
  if (const auto api = number(evidence, "api_l2_bytes")) {
    plot.markers.push_back({*api, "API " + format_bytes(*api), false,
                            "the size CUDA reports: " + format_bytes(*api)});
  }
  const auto threshold = number(evidence, "threshold_cycles");
  const json& verdicts = member(evidence, "verdicts");
  if (!threshold || !verdicts.is_array()) return;
  PlotSeries fits{"section search: fits", SeriesStyle::points, {}};
  PlotSeries misses{"section search: misses", SeriesStyle::points, {}};
  for (const json& verdict : verdicts) {
    const auto footprint = number(verdict, "footprint_bytes");
    if (!footprint) continue;
    const bool fit = member(verdict, "fits").is_boolean() && member(verdict, "fits").get<bool>();
    (fit ? fits : misses)
        .points.push_back({*footprint, *threshold, {}, {}, !fit,
                           format_bytes(*footprint) + ": " +
                               format_number(100 * number(verdict, "miss_fraction").value_or(0), 2) +
                               " % of loads above " + format_number(*threshold, 0) + " cy"});
  }
  for (PlotSeries* series : {&fits, &misses}) {
    if (!series->points.empty()) plot.series.push_back(std::move(*series));
  }
}

// latency against footprint from evidence.staircase: the reduced series, each level's p50 with
// its p5..p95, and a marker at every change point.
std::optional<Plot> staircase_plot(const Element& element, const Property& property) {
  const json& staircase = member(property.evidence, "staircase");
  const json& footprints = member(staircase, "footprints");
  const json& all_series = member(staircase, "series");
  if (!footprints.is_array() || !all_series.is_object() || all_series.empty()) return std::nullopt;
  std::string reduction = text(staircase, "reduction");
  if (!all_series.contains(reduction)) reduction = all_series.begin().key();
  const json& series = all_series[reduction];
  Plot plot;
  plot.id = plot_id("staircase-" + subject(element, property));
  plot.title = subject(element, property) + ": latency against footprint";
  plot.caption = "Each footprint's loads reduced to one number (" + reduction + "), " +
                 text(staircase, "order") + "; dashed lines: change points (KS statistic D).";
  plot.x = {"footprint", AxisScale::log2, AxisUnit::bytes, {}, false};
  plot.y = {"latency (cycles)", AxisScale::linear, AxisUnit::cycles, {}, false};
  PlotSeries curve{"latency (" + reduction + ")", SeriesStyle::line, {}};
  for (std::size_t i = 0; i < footprints.size() && series.is_array() && i < series.size(); ++i) {
    if (!footprints[i].is_number() || !series[i].is_number()) continue;
    const double x = footprints[i].get<double>(), y = series[i].get<double>();
    curve.points.push_back(
        {x, y, {}, {}, false, format_bytes(x) + ": " + format_number(y, 1) + " cy"});
  }
  if (curve.points.empty()) return std::nullopt;
  PlotSeries levels{"level p50 (p5..p95)", SeriesStyle::points, {}};
  for (const json& level : member(staircase, "levels")) {
    const auto from = number(level, "from_bytes"), to = number(level, "to_bytes");
    const auto p50 = number(level, "latency_cycles");
    if (!from || !to || !p50 || *from <= 0) continue;
    const json& spread = member(level, "spread");
    PlotPoint p{std::sqrt(*from * *to),
                *p50,
                number(spread, "p5"),
                number(spread, "p95"),
                false,
                format_bytes(*from) + " to " + format_bytes(*to) + ": p50 " +
                    format_number(*p50, 1) + " cy, p5 " +
                    format_number(number(spread, "p5").value_or(*p50), 1) + ", p95 " +
                    format_number(number(spread, "p95").value_or(*p50), 1) + ", " +
                    format_number(number(spread, "samples").value_or(0), 0) + " samples"};
    levels.points.push_back(p);
  }
  plot.series.push_back(std::move(curve));
  if (!levels.points.empty()) plot.series.push_back(std::move(levels));
  for (const json& step : member(staircase, "steps")) plot.markers.push_back(step_marker(step));
  if (auto marker = value_marker(property)) plot.markers.push_back(*marker);
  add_size_search(property.evidence, plot);
  return plot;
}

// A size search (evidence.footprints_tried): the share of slow loads at each footprint tried,
// split into the footprints that fit and those that did not.
std::optional<Plot> search_plot(const Element& element, const Property& property) {
  const json& tried = member(property.evidence, "footprints_tried");
  if (!tried.is_array() || tried.empty()) return std::nullopt;
  Plot plot;
  plot.id = plot_id("search-" + subject(element, property));
  plot.title = subject(element, property) + ": the size search";
  plot.caption =
      "Slow loads per timed load at every footprint the search tried (doubling, "
      "section, fine scan); the dashed line is the size found.";
  plot.x = {"footprint", AxisScale::log2, AxisUnit::bytes, {}, false};
  plot.y = {"slow loads per load", AxisScale::linear, AxisUnit::number, {}, true};
  PlotSeries fits{"fits", SeriesStyle::points, {}}, misses{"does not fit", SeriesStyle::points, {}};
  for (const json& row : tried) {
    const auto footprint = number(row, "footprint_bytes"), slow = number(row, "slow_accesses");
    const double loads = number(row, "elements").value_or(0) * number(row, "passes").value_or(0);
    if (!footprint || !slow || loads <= 0) continue;
    const bool fit = member(row, "fits").is_boolean() && member(row, "fits").get<bool>();
    (fit ? fits : misses)
        .points.push_back({*footprint,
                           *slow / loads,
                           {},
                           {},
                           false,
                           format_bytes(*footprint) + " (" + text(row, "phase") + "): " +
                               format_number(*slow, 0) + " slow of " + format_number(loads, 0) +
                               " loads, " + (fit ? "fits" : "does not fit")});
  }
  if (fits.points.empty() && misses.points.empty()) return std::nullopt;
  plot.series = {std::move(fits), std::move(misses)};
  if (auto marker = value_marker(property)) plot.markers.push_back(*marker);
  return plot;
}

// Bandwidth against footprint (evidence.sweep of a bandwidth probe), a marker at every knee.
std::optional<Plot> sweep_plot(const Element& element, const Property& property) {
  const json& sweep = member(property.evidence, "sweep");
  const json& points = member(sweep, "points");
  if (!points.is_array() || points.empty()) return std::nullopt;
  Plot plot;
  plot.id = plot_id("sweep-" + subject(element, property));
  plot.title = subject(element, property) + ": bandwidth against footprint";
  const bool weak = is_low(property.confidence);
  if (weak) plot.title += " (~ " + confidence_text(property.confidence) + ")";
  plot.caption = "Read stream via " + text(sweep, "path") + " (" + text(sweep, "placement") +
                 ") at every footprint of the sweep; dashed lines: knees." +
                 (weak ? " Low confidence (~): hollow points." : "");
  plot.x = {"footprint", AxisScale::log2, AxisUnit::bytes, {}, false};
  plot.y = {"bytes/second", AxisScale::linear, AxisUnit::rate, {}, true};
  PlotSeries curve{weak ? "bandwidth ~" : "bandwidth", SeriesStyle::line, {}};
  for (const json& point : points) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number()) {
      continue;
    }
    const double x = point[0].get<double>(), y = point[1].get<double>();
    curve.points.push_back({x, y, {}, {}, weak, format_bytes(x) + ": " + format_rate(y)});
  }
  if (curve.points.empty()) return std::nullopt;
  plot.series.push_back(std::move(curve));
  for (const json& knee : member(sweep, "knees")) {
    const auto at = number(knee, "footprint_bytes");
    if (!at) continue;
    plot.markers.push_back(
        {*at, "knee " + format_bytes(*at), false,
         "knee between " + format_bytes(number(knee, "last_high_bytes").value_or(*at)) + " and " +
             format_bytes(number(knee, "first_low_bytes").value_or(*at)) + ": " +
             format_rate(number(knee, "upper_bytes_per_second").value_or(0)) + " -> " +
             format_rate(number(knee, "lower_bytes_per_second").value_or(0))});
  }
  return plot;
}

bool is_latency(const Property& p) {
  return p.unit == "cycles" && (p.name.starts_with("latency") || p.name.ends_with("_latency"));
}

// One curve per latency with evidence.histogram, each relative to its own most frequent bin, so
// that a narrow level (L1: one spike) and a wide one (DRAM) are both visible on one axis.
std::optional<Plot> distributions_plot(const Topology& topology) {
  Plot plot;
  plot.id = "latency-distributions";
  plot.title = "Latency distributions of the timed loads";
  plot.caption =
      "Each level's timed loads per cycle of latency (overhead-corrected), between its p0.5 "
      "and p99.5, relative to its own most frequent latency (1 = that level's peak); a level "
      "marked ~ has a low confidence.";
  plot.x = {"latency (cycles)", AxisScale::log2, AxisUnit::cycles, {}, false};
  plot.y = {"loads, relative to the level's peak", AxisScale::linear, AxisUnit::number, {}, true};
  for (const Element* row : in_row_order(topology.elements)) {
    for (const Property& property : row->properties) {
      const json& histogram = member(property.evidence, "histogram");
      const json& counts = member(histogram, "counts");
      const auto from = number(histogram, "from_cycles"), width = number(histogram, "bin_cycles");
      if (!is_latency(property) || !counts.is_array() || !from || !width || *width <= 0) continue;
      double peak = 0;
      for (const json& count : counts) peak = std::max(peak, count.is_number() ? count.get<double>() : 0);
      if (peak <= 0) continue;
      const bool weak = is_low(property.confidence);
      // A histogram's outline: up at the first bin's lower edge, across every bin, down at the
      // last bin's upper edge.
      PlotSeries curve{subject(*row, property) + (weak ? " ~" : ""),
                       SeriesStyle::step,
                       {},
                       false,
                       subject(*row, property) + ": p50 " +
                           format_value(property.value, property.unit) + ", " +
                           confidence_text(property.confidence)};
      curve.points.push_back({*from, 0, {}, {}, weak, ""});
      for (std::size_t i = 0; i < counts.size(); ++i) {
        const double count = counts[i].is_number() ? counts[i].get<double>() : 0;
        const double edge = *from + static_cast<double>(i) * *width;
        curve.points.push_back({edge, count / peak, {}, {}, weak, ""});
      }
      curve.points.push_back(
          {*from + static_cast<double>(counts.size()) * *width, 0, {}, {}, weak, ""});
      plot.series.push_back(std::move(curve));
    }
  }
  if (plot.series.empty()) return std::nullopt;
  return plot;
}

// One bar per mode of a value of several modes (near and far): its p50 with its own p5..p95,
// hollow where that mode's confidence is low.
void mode_bars(const Element& element, const Property& property, Plot& plot, PlotSeries& bars) {
  for (const Mode& mode : property.modes) {
    const std::string name = subject(element, property) + " (" + mode.name + ")";
    const bool weak = property.inconclusive || is_low(mode.confidence);
    bars.points.push_back({static_cast<double>(plot.x.categories.size()), mode.value,
                           mode.spread.p5, mode.spread.p95, weak,
                           name + ": p50 " + format_value(mode.value, property.unit) + ", " +
                               format_number(100 * mode.share, 0) + " % of the samples, " +
                               confidence_text(mode.confidence) + "; " + property.method});
    plot.x.categories.push_back(name);
  }
}

// One bar per property with a spread: p50 with p5..p95 whiskers, hollow where the confidence
// is low; one per mode where a value has several.
Plot spread_bars(const Topology& topology, const std::string& id, const std::string& title,
                 const PlotAxis& y, bool (*wanted)(const Property&)) {
  Plot plot;
  plot.id = id;
  plot.title = title;
  plot.x = {"", AxisScale::categories, AxisUnit::number, {}, false};
  plot.y = y;
  PlotSeries bars{"p50 (whiskers p5..p95)", SeriesStyle::bars, {}};
  for (const Element* row : in_row_order(topology.elements)) {
    const Element& element = *row;
    for (const Property& property : element.properties) {
      if (!wanted(property) || !property.spread || !property.value.is_number()) continue;
      if (!property.modes.empty()) {
        mode_bars(element, property, plot, bars);
        continue;
      }
      const Spread& s = *property.spread;
      const bool weak = property.inconclusive || is_low(property.confidence);
      const double x = static_cast<double>(plot.x.categories.size());
      plot.x.categories.push_back(subject(element, property));
      bars.points.push_back({x, property.value.get<double>(), s.p5, s.p95, weak,
                             subject(element, property) + ": p50 " +
                                 format_value(property.value, property.unit) + ", " +
                                 confidence_text(property.confidence) + "; " + property.method});
    }
  }
  plot.series.push_back(std::move(bars));
  return plot;
}

bool is_rate(const Property& p) {
  return p.unit == "bytes/second";
}

std::optional<Plot> carveout_plot(const Topology& topology) {
  const Element* l1 = topology.find("l1");
  const Property* carveout = l1 ? l1->find("carveout") : nullptr;
  if (!carveout || !carveout->value.is_array() || carveout->value.empty()) return std::nullopt;
  Plot plot;
  plot.id = "l1-carveout";
  plot.title = "l1.carveout: L1 size at each shared-memory reservation";
  plot.caption = carveout->method;
  plot.x = {"shared memory reserved per block", AxisScale::categories, AxisUnit::bytes, {}, false};
  plot.y = {"L1 size", AxisScale::linear, AxisUnit::bytes, {}, true};
  PlotSeries bars{"L1 size", SeriesStyle::bars, {}};
  for (const json& row : carveout->value) {
    const auto reserved = number(row, "reserved_shared_bytes"), size = number(row, "l1_bytes");
    if (!reserved || !size) continue;
    const auto confidence = number(row, "confidence");
    bars.points.push_back({static_cast<double>(plot.x.categories.size()),
                           *size,
                           {},
                           {},
                           is_low(confidence),
                           format_bytes(*size) + " with " + format_bytes(*reserved) +
                               " reserved, " + confidence_text(confidence)});
    plot.x.categories.push_back(format_bytes(*reserved));
  }
  if (bars.points.empty()) return std::nullopt;
  plot.series.push_back(std::move(bars));
  return plot;
}

// l2.segments: which SM pairs filled one L2 segment, two, or gave no clear answer.
std::optional<Plot> segments_plot(const Topology& topology) {
  const Element* l2 = topology.find("l2");
  const Property* segments = l2 ? l2->find("segments") : nullptr;
  // The pairs of the segment search, or those that checked the partition map (where the map
  // planned the pairs: evidence.map_check.pairs).
  const json& searched = segments ? member(segments->evidence, "pairs") : json();
  const json& pairs = searched.is_array() || !segments
                          ? searched
                          : member(member(segments->evidence, "map_check"), "pairs");
  if (!pairs.is_array() || pairs.empty()) return std::nullopt;
  Plot plot;
  plot.id = "l2-segments";
  plot.title = "l2.segments: SM pairs chasing concurrently";
  plot.caption = segments->method;
  plot.x = {"second SM", AxisScale::categories, AxisUnit::number, {}, false};
  plot.y = {"", AxisScale::categories, AxisUnit::number, {}, false};
  std::vector<PlotSeries> by_verdict;
  for (const json& pair : pairs) {
    const auto a = number(pair, "sm_a"), b = number(pair, "sm_b");
    if (!a || !b) continue;
    const std::string row = "with SM " + format_number(*a, 0);
    auto y_it = std::find(plot.y.categories.begin(), plot.y.categories.end(), row);
    if (y_it == plot.y.categories.end()) y_it = plot.y.categories.insert(y_it, row);
    const std::string column = "SM " + format_number(*b, 0);
    auto x_it = std::find(plot.x.categories.begin(), plot.x.categories.end(), column);
    if (x_it == plot.x.categories.end()) x_it = plot.x.categories.insert(x_it, column);
    const std::string verdict = text(pair, "verdict");
    auto series = std::find_if(by_verdict.begin(), by_verdict.end(),
                               [&](const PlotSeries& s) { return s.name == verdict; });
    if (series == by_verdict.end()) {
      series = by_verdict.insert(by_verdict.end(), {verdict, SeriesStyle::cells, {}});
    }
    series->points.push_back(
        {static_cast<double>(x_it - plot.x.categories.begin()),
         static_cast<double>(y_it - plot.y.categories.begin()),
         {},
         {},
         verdict == "unclear",
         "SM " + format_number(*a, 0) + " and SM " + format_number(*b, 0) + ": " + verdict +
             " (slow shares " + format_number(number(pair, "slow_share_a").value_or(0), 3) + ", " +
             format_number(number(pair, "slow_share_b").value_or(0), 3) + ")"});
  }
  if (by_verdict.empty()) return std::nullopt;
  plot.series = std::move(by_verdict);
  return plot;
}

// shared.banks: the latency of every access pattern against the conflict degree the chosen
// bank layout predicts; patterns it does not explain are marked.
std::optional<Plot> banks_plot(const Topology& topology) {
  const Element* shared = topology.find("shared");
  const Property* banks = shared ? shared->find("banks") : nullptr;
  const json& table = banks ? member(banks->evidence, "pattern_table") : json();
  if (!table.is_array() || table.empty()) return std::nullopt;
  Plot plot;
  plot.id = "shared-banks";
  plot.title = "shared.banks: latency against predicted conflict degree";
  plot.caption = banks->method;
  plot.x = {"predicted conflict degree (ways)", AxisScale::log2, AxisUnit::number, {}, false};
  plot.y = {"latency p50 (cycles)", AxisScale::linear, AxisUnit::cycles, {}, true};
  PlotSeries agree{"explained by the layout", SeriesStyle::points, {}};
  PlotSeries disagree{"not explained", SeriesStyle::points, {}};
  for (const json& row : table) {
    const auto degree = number(row, "predicted_degree"), p50 = number(row, "p50_cycles");
    if (!degree || !p50) continue;
    const bool agrees = member(row, "agrees").is_boolean() && member(row, "agrees").get<bool>();
    (agrees ? agree : disagree)
        .points.push_back(
            {*degree, *p50, number(row, "p5_cycles"), number(row, "p95_cycles"), !agrees,
             text(row, "pattern") + ": p50 " + format_number(*p50, 1) + " cy, measured degree " +
                 format_number(number(row, "measured_degree").value_or(0), 2)});
  }
  if (agree.points.empty() && disagree.points.empty()) return std::nullopt;
  plot.series = {std::move(agree), std::move(disagree)};
  return plot;
}

}  // namespace

std::string plot_id(const std::string& text) {
  std::string id = text;
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  }
  return id;
}

std::vector<Plot> report_plots(const Topology& topology) {
  std::vector<Plot> plots;
  for (const Element& element : topology.elements) {
    for (const Property& property : element.properties) {
      if (auto plot = staircase_plot(element, property)) plots.push_back(std::move(*plot));
      if (auto plot = search_plot(element, property)) plots.push_back(std::move(*plot));
      if (auto plot = sweep_plot(element, property)) plots.push_back(std::move(*plot));
    }
  }
  Plot latency = spread_bars(topology, "latency", "Latencies: p50 with p5..p95",
                             {"cycles", AxisScale::linear, AxisUnit::cycles, {}, true}, is_latency);
  if (!latency.x.categories.empty()) plots.push_back(std::move(latency));
  if (auto plot = distributions_plot(topology)) plots.push_back(std::move(*plot));
  if (auto plot = carveout_plot(topology)) plots.push_back(std::move(*plot));
  if (auto plot = segments_plot(topology)) plots.push_back(std::move(*plot));
  Plot bandwidth =
      spread_bars(topology, "bandwidth", "Bandwidths: p50 with p5..p95",
                  {"bytes/second", AxisScale::linear, AxisUnit::rate, {}, true}, is_rate);
  if (!bandwidth.x.categories.empty()) plots.push_back(std::move(bandwidth));
  if (auto plot = banks_plot(topology)) plots.push_back(std::move(*plot));
  return plots;
}

}  // namespace memtopo
