// The HTML page of `memtopo fleet`: the outliers, then one strip plot per property of every model
// (fleet_render.hpp).
#include <sstream>

#include "model/units.hpp"
#include "report/fleet_render.hpp"
#include "report/html_report.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

std::string fleet_plot_id(std::size_t group, const FleetProperty& p) {
  std::string id = "fleet-" + std::to_string(group) + "-";
  for (const char c : p.element + "-" + p.property) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    id += plain ? c : '-';
  }
  return id;
}

// A horizontal line across the GPUs at `y` (the median, the edges of the fleet's tolerance).
PlotSeries level_line(const std::string& name, double y, std::size_t gpus) {
  PlotPoint first, last;
  first.y = last.y = y;
  last.x = static_cast<double>(gpus > 1 ? gpus - 1 : 1);
  return PlotSeries(name, SeriesStyle::line, {first, last}, /*dots=*/false, name);
}

// Each GPU a dot at its position in the fleet (x) and its value (y), its own p5..p95 as whiskers.
Plot strip_plot(const Fleet& fleet, std::size_t group_index, const FleetProperty& p) {
  Plot plot;
  plot.id = fleet_plot_id(group_index, p);
  plot.title = p.element + "." + p.property;
  plot.x = {"GPU (in the order read)", AxisScale::linear, AxisUnit::number, {}, false};
  plot.y = {p.property + (p.unit.empty() ? "" : " (" + p.unit + ")"),
            AxisScale::linear,
            axis_unit_of(p.unit),
            {},
            false};
  std::vector<PlotPoint> inside, outside;
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    const FleetValue& v = p.values[i];
    PlotPoint point{static_cast<double>(i),
                    v.value,
                    v.p5,
                    v.p95,
                    false,
                    fleet.gpus[v.gpu].label + ": " + format_value(v.value, p.unit)};
    if (v.outlier) point.tip += " (outlier: " + v.why + ")";
    (v.outlier ? outside : inside).push_back(std::move(point));
  }
  plot.series.emplace_back("GPUs", SeriesStyle::points, std::move(inside));
  if (!outside.empty())
    plot.series.emplace_back("outliers", SeriesStyle::points, std::move(outside));
  plot.series.push_back(level_line("fleet median", p.median, p.values.size()));
  plot.series.push_back(
      level_line("median + tolerance", p.median + p.fleet_tolerance, p.values.size()));
  plot.series.push_back(
      level_line("median - tolerance", p.median - p.fleet_tolerance, p.values.size()));
  plot.caption = "median " + format_value(p.median, p.unit) + ", robust sigma " +
                 format_value(p.robust_sigma, p.unit) + ", fleet tolerance " +
                 format_value(p.fleet_tolerance, p.unit) + "; " + std::to_string(p.values.size()) +
                 " GPUs with a conclusive value, " + std::to_string(p.not_conclusive) + " without.";
  return plot;
}

void render_outlier_names(std::ostringstream& html, const Fleet& fleet, const FleetProperty& p) {
  if (p.outliers() == 0) return;
  html << "<p><b>Outliers:</b></p>\n<ul>\n";
  for (const FleetValue& v : p.values) {
    if (!v.outlier) continue;
    html << "<li>" << escape_markup(fleet.gpus[v.gpu].label) << " ("
         << escape_markup(fleet.gpus[v.gpu].origin)
         << "): " << escape_markup(format_value(v.value, p.unit)) << "; " << escape_markup(v.why)
         << "</li>\n";
  }
  html << "</ul>\n";
}

void render_group(std::ostringstream& html, const Fleet& fleet, std::size_t index) {
  const FleetGroup& group = fleet.groups[index];
  html << "<section id=\"fleet-" << index << "\">\n<h2>" << escape_markup(group.model) << ": "
       << group.gpus.size() << " GPUs</h2>\n";
  if (group.too_small) {
    html << "<p class=\"banner\">Too small to judge: at least " << fleet.rules.min_gpus
         << " GPUs of a model are needed; nothing is flagged.</p>\n";
  }
  for (const FleetProperty& p : group.properties) {
    html << "<figure id=\"" << fleet_plot_id(index, p) << "\">"
         << render_svg(strip_plot(fleet, index, p)) << "</figure>\n";
    render_outlier_names(html, fleet, p);
  }
  html << "</section>\n";
}

}  // namespace

std::string render_fleet_html(const Fleet& fleet, const RunInfo& run) {
  std::ostringstream html;
  html << html_page_start("memtopo fleet: " + std::to_string(fleet.gpus.size()) + " GPUs")
       << "<h1>memtopo fleet: " << fleet.gpus.size() << " GPUs, " << fleet.outliers()
       << " outliers</h1>\n<p>A GPU is an outlier in a property when its value is outside both "
       << "its own measured spread and its model's fleet (robust z-score above "
       << escape_markup(format_number(fleet.rules.z_threshold, 1))
       << "); docs/fleet.md states the rule.</p>\n<section id=\"outliers\">\n<h2>Summary</h2>\n"
       << "<pre class=\"console\">" << escape_markup(render_fleet_text(fleet))
       << "</pre>\n</section>\n";
  for (std::size_t i = 0; i < fleet.groups.size(); ++i) render_group(html, fleet, i);
  html << html_page_end(run);
  return html.str();
}

}  // namespace memtopo
