// The HTML page of a study run and its charts; see report.hpp.
#include <map>
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/console.hpp"
#include "report/html_report.hpp"
#include "report/svg_plot.hpp"
#include "study/report.hpp"

namespace memtopo::study {
namespace {

const Column* find_column(const Table& table, const std::string& name) {
  for (const Column& column : table.columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

std::string axis_title(const Column& column) {
  return column.unit.empty() ? column.name : column.name + " (" + column.unit + ")";
}

// A finding marks a chart where its `at` names this chart's x (a number) and, when it names
// the series column too, this curve's value.
std::vector<PlotMarker> finding_markers(const StudyResult& result, const Table& table,
                                        const std::string& series_text) {
  std::vector<PlotMarker> markers;
  const TablePlot& plot = *table.plot;
  for (const Finding& finding : result.findings) {
    if (finding.table != table.id || !finding.at.contains(plot.x) ||
        !finding.at[plot.x].is_number()) {
      continue;
    }
    std::string label = "finding";
    if (!plot.series.empty() && finding.at.contains(plot.series)) {
      const Column& column = *find_column(table, plot.series);
      label = format_value(finding.at[plot.series], column.unit);
      if (!series_text.empty() && label != series_text) continue;
    }
    const bool weak = finding.confidence && *finding.confidence < kLowConfidence;
    markers.push_back({finding.at[plot.x].get<double>(), label, weak, finding.what});
  }
  return markers;
}

// One chart of `y` against the plot's x, a curve per series value.
std::optional<Plot> table_chart(const StudyResult& result, const Table& table,
                                const std::string& y) {
  const TablePlot& spec = *table.plot;
  const Column* x_column = find_column(table, spec.x);
  const Column* y_column = find_column(table, y);
  const Column* series_column = spec.series.empty() ? nullptr : find_column(table, spec.series);
  if (!x_column || !y_column || (!spec.series.empty() && !series_column)) return std::nullopt;
  const std::size_t xi = table.column(spec.x);
  const std::size_t yi = table.column(y);
  const bool has_series = series_column != nullptr;
  const std::size_t si = has_series ? table.column(spec.series) : 0;
  std::vector<std::string> order;  // series in the table's order
  std::map<std::string, std::vector<PlotPoint>> curves;
  std::size_t left_out = 0;
  for (const std::vector<Cell>& row : table.rows) {
    const Cell& x = row[xi];
    const Cell& value = row[yi];
    if (!x.value.is_number() || !value.value.is_number()) continue;
    if (spec.log2_x && x.value.get<double>() <= 0) {
      ++left_out;
      continue;
    }
    const std::string name =
        has_series ? spec.series + " " + format_value(row[si].value, series_column->unit) : y;
    if (!curves.count(name)) order.push_back(name);
    PlotPoint point;
    point.x = x.value.get<double>();
    point.y = value.value.get<double>();
    if (value.spread && value.spread->samples > 1) {
      point.low = value.spread->p5;
      point.high = value.spread->p95;
    }
    point.weak = value.confidence && *value.confidence < kLowConfidence;
    point.tip = spec.x + " " + format_value(x.value, x_column->unit) + ": " +
                format_value(value.value, y_column->unit);
    curves[name].push_back(std::move(point));
  }
  if (curves.empty()) return std::nullopt;
  Plot plot;
  plot.id = table.id + "-" + y;
  for (char& c : plot.id) c = (std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  plot.title = table.title + ": " + y;
  plot.x = {axis_title(*x_column), spec.log2_x ? AxisScale::log2 : AxisScale::linear,
            axis_unit_of(x_column->unit), {}, false};
  plot.y = {axis_title(*y_column), AxisScale::linear, axis_unit_of(y_column->unit), {}, true};
  for (const std::string& name : order) {
    plot.series.emplace_back(name, SeriesStyle::line, curves[name]);
    const std::string series_text =
        has_series ? name.substr(spec.series.size() + 1) : std::string();
    // The findings are about the first column drawn (throughput, cost per barrier).
    if (y != spec.y.front()) continue;
    for (PlotMarker& marker : finding_markers(result, table, series_text)) {
      plot.markers.push_back(std::move(marker));
    }
  }
  plot.caption = y_column->method.empty() ? "" : y_column->method + ". ";
  if (left_out > 0) {
    plot.caption += std::to_string(left_out) + " row(s) at " + spec.x +
                    " 0 are in the table, not on the log axis. ";
  }
  plot.caption += "Whiskers: p5 to p95; hollow points: confidence below " +
                  format_number(kLowConfidence, 1) +
                  (y == spec.y.front() ? "; vertical lines: the findings." : ".");
  return plot;
}

void render_html_findings(std::ostringstream& html, const StudyResult& result) {
  html << "<section id=\"findings\">\n<h2>Findings</h2>\n";
  if (result.findings.empty()) {
    html << "<p>None: no curve of this run changed in a way the study explains.</p>\n";
  } else {
    html << "<table>\n<thead><tr><th>Table</th><th>What</th><th>Why</th><th>Tied to</th>"
            "<th>Confidence</th></tr></thead>\n<tbody>\n";
  }
  for (const Finding& finding : result.findings) {
    const bool low = finding.confidence && *finding.confidence < kLowConfidence;
    html << "<tr" << (low ? " class=\"low\"" : "") << "><td>" << escape_markup(finding.table)
         << "</td><td class=\"what\">" << (low ? "<span class=\"mark\">~</span>" : "")
         << escape_markup(finding.what) << "</td><td>" << escape_markup(finding.why)
         << "</td><td>" << escape_markup(finding.tied_to) << "</td><td class=\"confidence\">"
         << (finding.confidence ? format_number(*finding.confidence, 2) : std::string("-"))
         << "</td></tr>\n";
  }
  if (!result.findings.empty()) html << "</tbody>\n</table>\n";
  html << "</section>\n";
}

}  // namespace

std::vector<Plot> study_plots(const StudyResult& result) {
  std::vector<Plot> plots;
  for (const Table& table : result.tables) {
    if (!table.plot) continue;
    for (const std::string& y : table.plot->y) {
      if (std::optional<Plot> plot = table_chart(result, table, y)) {
        plots.push_back(std::move(*plot));
      }
    }
  }
  return plots;
}

std::string render_study_html(const StudyReport& report) {
  const StudyResult& result = report.result;
  const RunInfo& run = report.header.run;
  std::ostringstream html;
  html << html_page_start("memtopo study " + result.id + ": " + report.header.device.name)
       << "<section id=\"summary\">\n";
  if (run.simulated) {
    html << "<p class=\"banner\">" << escape_markup(simulated_banner(run.sim_file)) << "</p>\n";
  }
  if (run.interrupted) {
    html << "<p class=\"banner\">INTERRUPTED: the run was stopped early; the results are "
            "partial</p>\n";
  }
  html << "<h1>memtopo study " << escape_markup(result.id) << ": " << escape_markup(result.title)
       << "</h1>\n<dl class=\"facts\">\n<dt>Device</dt><dd>"
       << escape_markup(report.header.device.name) << " (" << escape_markup(
                                                                 report.header.device.backend)
       << ")</dd>\n<dt>Status</dt><dd>" << escape_markup(result.status)
       << (result.reason.empty() ? "" : ": " + escape_markup(result.reason))
       << "</dd>\n<dt>Run</dt><dd>memtopo " << escape_markup(run.tool_version) << " ("
       << escape_markup(run.git_describe) << "), " << escape_markup(run.timestamp_utc) << ", "
       << escape_markup(format_seconds(run.duration_seconds)) << "</dd>\n</dl>\n"
       << "<nav><a href=\"#findings\">Findings</a> · <a href=\"#plots\">Plots</a> · "
          "<a href=\"#console\">Console report</a></nav>\n</section>\n";
  render_html_findings(html, result);
  html << "<section id=\"plots\">\n<h2>Plots</h2>\n";
  const std::vector<Plot> plots = study_plots(result);
  if (plots.empty()) html << "<p>No measured curves in this run.</p>\n";
  for (const Plot& plot : plots) {
    html << "<figure id=\"plot-" << escape_markup(plot.id) << "\">\n" << render_svg(plot)
         << "<figcaption>" << escape_markup(plot.caption) << "</figcaption>\n</figure>\n";
  }
  html << "</section>\n<section id=\"console\">\n<h2>Console report</h2>\n<pre class=\"console\">"
       << escape_markup(render_study_console(report)) << "</pre>\n</section>\n"
       << html_page_end(run);
  return html.str();
}

}  // namespace memtopo::study
