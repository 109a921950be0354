// The HTML page of a multi-device run: the p2p matrices as tables, then every GPU's report as a
// one-device page shows it (ids prefixed "gpu<n>-"). See multi_device_report.hpp.
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/console_p2p.hpp"
#include "report/html_report.hpp"
#include "report/memory_map.hpp"
#include "report/multi_device_report.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

std::string device_anchor(std::size_t position) {
  return "gpu" + std::to_string(position) + "-";
}

// One cell: the value, "~" and class "low" below the confidence threshold, "n/a" with the
// reason where nothing was measured; the method and note on hover.
void render_cell(std::ostringstream& html, const P2pPair* pair, const char* name) {
  const Property* property = pair ? pair->find(name) : nullptr;
  if (!property) {
    html << "<td></td>";
    return;
  }
  const std::string hover = property->method + (property->note.empty() ? "" : " (" +
                                                                                property->note +
                                                                                ")");
  const bool missing = property->inconclusive || property->value.is_null() ||
                       (p2p_property::is_latency(property->name) && !property->seconds_value);
  if (missing) {
    html << "<td class=\"inconclusive\" title=\"" << escape_markup(hover) << "\">n/a: "
         << escape_markup(property->note.empty() ? "inconclusive" : property->note) << "</td>";
    return;
  }
  const bool low = property->confidence && *property->confidence < kLowConfidence;
  html << "<td class=\"value" << (low ? " low" : "") << "\" title=\"" << escape_markup(hover)
       << "\">" << (low ? "~" : "") << escape_markup(p2p_value_text(*property));
  if (property->confidence) {
    html << " <small>(" << format_number(*property->confidence, 2) << ")</small>";
  }
  html << "</td>";
}

void render_matrix(std::ostringstream& html, const P2pReport& report,
                   const P2pMatrixView& view) {
  html << "<h3>" << escape_markup(view.title) << "</h3>\n<table class=\"matrix\" id=\"p2p-"
       << escape_markup(view.property) << "\">\n<thead><tr><th>acts on</th>";
  for (const P2pDevice& device : report.devices) {
    html << "<th>" << escape_markup(p2p_gpu_label(device)) << "</th>";
  }
  html << "<th>host</th></tr></thead>\n<tbody>\n";
  for (const P2pDevice& actor : report.devices) {
    html << "<tr><th>" << escape_markup(p2p_gpu_label(actor)) << "</th>";
    for (const P2pDevice& memory : report.devices) {
      if (memory.position == actor.position) {
        html << "<td>-</td>";
      } else {
        render_cell(html, report.find(actor.position, memory.position), view.property);
      }
    }
    render_cell(html, report.find(actor.position, kHostColumn), view.property);
    html << "</tr>\n";
  }
  html << "</tbody>\n</table>\n";
}

void render_p2p(std::ostringstream& html, const P2pReport& report) {
  html << "<section id=\"p2p\">\n<h2>Multi-GPU (p2p)</h2>\n<p>Rows: the GPU that acts (its SMs "
          "or copy engines); columns: the memory it reads or writes (another GPU's, or the "
          "host's pinned memory). Values below confidence "
       << format_number(kLowConfidence, 1)
       << " are marked ~ and red; confidences in brackets; hover a cell for its method.</p>\n";
  for (const P2pMatrixView& view : p2p_matrix_views()) {
    if (p2p_has_property(report, view.property)) render_matrix(html, report, view);
  }
  html << "<h3>p2p probes</h3>\n<table>\n<thead><tr><th>Probe</th><th>Status</th>"
          "<th>Reason</th></tr></thead>\n<tbody>\n";
  for (const ProbeOutcome& outcome : report.probes) {
    html << "<tr><td>" << escape_markup(outcome.probe_id) << "</td><td>"
         << escape_markup(outcome.status) << "</td><td>" << escape_markup(outcome.reason)
         << "</td></tr>\n";
  }
  html << "</tbody>\n</table>\n";
  for (const std::string& warning : report.warnings) {
    html << "<p class=\"banner\">" << escape_markup(warning) << "</p>\n";
  }
  html << "</section>\n";
}

}  // namespace

std::string render_multi_device_html(const MultiDeviceReport& report) {
  std::ostringstream html;
  html << "<section id=\"devices\">\n<h1>memtopo report: " << report.devices.size()
       << " GPUs</h1>\n<ul>\n";
  for (std::size_t i = 0; i < report.devices.size(); ++i) {
    const Topology& device = report.devices[i];
    html << "<li><a href=\"#" << device_anchor(i) << "summary\">GPU "
         << device.device.device_index << ": " << escape_markup(device.device.name)
         << "</a></li>\n";
  }
  html << "</ul>\n";
  if (const std::string map = render_memory_map_svg(memory_map(report)); !map.empty()) {
    html << "<figure id=\"map\" class=\"map\">\n" << map
         << "<figcaption>The GPUs and their links: the link, a dependent load's latency, SM and "
            "copy-engine reads, the lower GPU acting; each GPU's own map opens its section."
            "</figcaption>\n</figure>\n";
  }
  if (report.p2p) html << "<p><a href=\"#p2p\">The p2p matrices</a></p>\n";
  html << "</section>\n";
  if (report.p2p) render_p2p(html, *report.p2p);
  for (std::size_t i = 0; i < report.devices.size(); ++i) {
    html << "<article id=\"" << device_anchor(i) << "device\">\n<h2>GPU "
         << report.devices[i].device.device_index << "</h2>\n"
         << render_html_sections(report.devices[i], device_anchor(i)) << "</article>\n";
  }
  return html_page_start("memtopo report: " + std::to_string(report.devices.size()) + " GPUs") +
         html.str() + html_page_end(report.run);
}

}  // namespace memtopo
