#include "report/html_report.hpp"

#include <sstream>

#include "analysis/confidence.hpp"
#include "report/console.hpp"
#include "report/footnotes.hpp"
#include "report/html_style.hpp"
#include "report/html_summary.hpp"
#include "report/report_figures.hpp"
#include "report/report_rows.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

// Evidence can hold thousands of rows (a size search's every footprint); the HTML shows this
// much of each and points to the JSON for the rest.
constexpr std::size_t kEvidenceChars = 12000;


std::string evidence_text(const nlohmann::json* evidence) {
  if (!evidence || evidence->empty()) return "";
  std::string text = evidence->dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kEvidenceChars) {
    text = text.substr(0, kEvidenceChars) + "\n… (shortened: the JSON report has all of it)";
  }
  return text;
}

void render_summary(std::ostringstream& html, const Topology& topology, const std::string& id) {
  html << "<section id=\"" << id << "summary\">\n";
  for (const std::string& banner : report_banners(topology)) {
    html << "<p class=\"banner\">" << escape_markup(banner) << "</p>\n";
  }
  html << "<h1>memtopo report: " << escape_markup(topology.device.name) << "</h1>\n"
       << render_html_overview(topology, id) << "</section>\n";
}

void render_run(std::ostringstream& html, const Topology& topology, const std::string& id) {
  html << "<section id=\"" << id << "run\">\n<h2>Device and run</h2>\n<dl class=\"facts\">\n";
  for (const auto& [label, text] : header_facts(topology)) {
    html << "<dt>" << escape_markup(label) << "</dt><dd>" << escape_markup(text) << "</dd>\n";
  }
  html << "</dl>\n</section>\n";
}

void render_finding(std::ostringstream& html, const FindingRow& row, const std::string& id) {
  const std::string mark = mark_name(row.mark);
  html << "<tr" << (mark.empty() ? "" : " class=\"" + mark + "\"") << " id=\"" << id << "finding-"
       << escape_markup(row.subject) << "\">";
  html << "<td>" << escape_markup(row.subject) << "</td>";
  html << "<td class=\"value\"><span class=\"mark\">" << mark_symbol(row.mark) << "</span>"
       << escape_markup(row.value) << "</td>";
  html << "<td class=\"confidence\">" << escape_markup(row.confidence) << "</td>";
  html << "<td>" << escape_markup(row.source) << "</td>";
  html << "<td class=\"spread\">" << escape_markup(row.spread) << "</td>";
  html << "<td title=\"" << escape_markup(row.method) << "\"><details><summary>"
       << escape_markup(row.method_summary) << "</summary>";
  html << "<p><b>Method:</b> " << escape_markup(row.method) << "</p>";
  if (!row.note.empty()) html << "<p><b>Note:</b> " << escape_markup(row.note) << "</p>";
  if (const std::string evidence = evidence_text(row.evidence); !evidence.empty()) {
    html << "<pre>" << escape_markup(evidence) << "</pre>";
  }
  html << "</details></td></tr>\n";
}

void render_findings(std::ostringstream& html, const Topology& topology, const std::string& id) {
  html << "<section id=\"" << id << "findings\">\n<h2>Findings</h2>\n";
  html << "<p>Marks: <span class=\"mark\">~</span> confidence below "
       << format_confidence(kLowConfidence)
       << " (red); <span class=\"mark\">?</span> inconclusive, or only a bound (&gt; x, &lt; x); "
          "source api: reported by CUDA, not measured. Hover over a method, or open it, for "
          "how the value was obtained and its evidence.</p>\n";
  const std::vector<FindingRow> rows = finding_rows(topology);
  if (rows.empty()) {
    html << "<p>Nothing measured.</p>\n</section>\n";
    return;
  }
  html << "<div class=\"scroll\"><table>\n<thead><tr><th>Finding</th><th>Value</th><th>Confidence</th><th>Source</th>"
          "<th>Spread</th><th>Method and evidence</th></tr></thead>\n<tbody>\n";
  for (const FindingRow& row : rows) render_finding(html, row, id);
  html << "</tbody>\n</table></div>\n</section>\n";
}

void render_plots(std::ostringstream& html, const std::vector<Figure>& figures,
                  const std::string& id) {
  html << "<section id=\"" << id << "plots\">\n<h2>Plots</h2>\n";
  if (figures.empty()) html << "<p>No curves in this run's evidence.</p>\n";
  for (const Figure& figure : figures) {
    html << "<figure id=\"" << id << "plot-" << escape_markup(figure.id) << "\">\n" << figure.svg;
    if (!figure.caption.empty()) {
      html << "<figcaption>" << escape_markup(figure.caption) << "</figcaption>\n";
    }
    html << "</figure>\n";
  }
  html << "</section>\n";
}

void render_warnings(std::ostringstream& html, const Topology& topology, const std::string& id) {
  html << "<section id=\"" << id << "warnings\">\n<h2>Warnings</h2>\n";
  if (topology.warnings.empty())
    html << "<p>None.</p>\n";
  else
    html << "<ul>\n";
  for (const std::string& warning : topology.warnings) {
    html << "<li>" << escape_markup(warning) << "</li>\n";
  }
  if (!topology.warnings.empty()) html << "</ul>\n";
  html << "</section>\n";
}

}  // namespace

std::string render_html_sections(const Topology& topology, const std::string& id_prefix) {
  std::ostringstream html;
  const std::vector<Figure> figures = report_figures(topology);
  render_summary(html, topology, id_prefix);
  html << render_html_contents(topology, figures, id_prefix);
  render_plots(html, figures, id_prefix);
  render_findings(html, topology, id_prefix);
  render_run(html, topology, id_prefix);
  html << "<section id=\"" << id_prefix << "console\">\n<h2>Console report</h2>\n"
       << "<pre class=\"console\">" << escape_markup(render_console(topology))
       << "</pre>\n</section>\n";
  render_warnings(html, topology, id_prefix);
  return html.str();
}

std::string html_page_start(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         escape_markup(title) + "</title>\n<style>" + kHtmlStyle + "</style>\n</head>\n<body>\n";
}

std::string html_page_end(const RunInfo& run) {
  return "<footer><p>Written by memtopo " + escape_markup(run.tool_version) + " (" +
         escape_markup(run.git_describe) + ").</p></footer>\n</body>\n</html>\n";
}

std::string render_html(const Topology& topology) {
  return html_page_start("memtopo report: " + topology.device.name) +
         render_html_sections(topology, "") + html_page_end(topology.run);
}

}  // namespace memtopo
