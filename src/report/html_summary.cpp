#include "report/html_summary.hpp"

#include <regex>
#include <sstream>

#include "report/memory_map.hpp"
#include "report/report_rows.hpp"
#include "report/summary_tables.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

std::string cell_class(const std::string& cell, const TextTable::Column& column) {
  std::string classes = column.align == TextTable::Align::right ? "num" : "";
  const auto add = [&](const char* name) { classes += (classes.empty() ? "" : " ") + std::string(name); };
  if (cell.find("~ [") != std::string::npos) add("low");
  if (cell.find("? [") != std::string::npos || cell.rfind("≥ ", 0) == 0 ||
      cell.rfind("≤ ", 0) == 0) {
    add("inconclusive");
  }
  return classes.empty() ? "" : " class=\"" + classes + "\"";
}

// "[3]" in an escaped cell becomes a link to note 3.
std::string linked_notes(const std::string& escaped, const std::string& id) {
  static const std::regex kNote(R"(\[(\d+)\])");
  return std::regex_replace(escaped, kNote, "<a href=\"#" + id + "note-$1\">[$1]</a>");
}

void render_notes(std::ostringstream& html, const Footnotes& notes, const std::string& id) {
  if (notes.empty()) return;
  html << "<ol class=\"notes\">\n";
  for (std::size_t i = 0; i < notes.items().size(); ++i) {
    html << "<li id=\"" << id << "note-" << i + 1 << "\">" << escape_markup(notes.items()[i])
         << "</li>\n";
  }
  html << "</ol>\n";
}

void render_lines(std::ostringstream& html, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) html << "<p class=\"aside\">" << escape_markup(line) << "</p>\n";
}

}  // namespace

std::string html_table(const TextTable& table, const std::string& id) {
  std::ostringstream html;
  html << "<div class=\"scroll\"><table class=\"compact\">\n<thead><tr>";
  for (const TextTable::Column& column : table.columns()) {
    html << "<th>" << escape_markup(column.title) << "</th>";
  }
  html << "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : table.rows()) {
    html << "<tr>";
    for (std::size_t i = 0; i < table.columns().size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      html << "<td" << cell_class(cell, table.columns()[i]) << ">"
           << linked_notes(escape_markup(cell), id) << "</td>";
    }
    html << "</tr>\n";
  }
  html << "</tbody>\n</table></div>\n";
  return html.str();
}

std::string render_html_overview(const Topology& topology, const std::string& id) {
  std::ostringstream html;
  if (const std::string map = memory_map_svg(topology); !map.empty()) {
    html << "<figure id=\"" << id << "map\" class=\"map\">\n" << map
         << "<figcaption>The measured hierarchy: every box with what memtopo found (size, line, "
            "latency, read bandwidth); a dashed box holds a value of low confidence. Hover over "
            "a box for its lines.</figcaption>\n</figure>\n";
  }
  const Summary summary = summary_tables(topology);
  if (summary.tables.empty()) return html.str();
  html << "<div id=\"" << id << "tables\">\n";
  for (const SummaryTable& table : summary.tables) {
    html << "<h3 id=\"" << id << "table-" << table.id << "\">" << escape_markup(table.title)
         << "</h3>\n";
    render_lines(html, table.before);
    html << html_table(table.table, id);
    render_lines(html, table.after);
  }
  render_notes(html, summary.notes, id);
  html << "</div>\n";
  return html.str();
}

std::string render_html_contents(const Topology& topology, const std::vector<Figure>& figures,
                                 const std::string& id) {
  std::ostringstream html;
  const auto link = [&](const std::string& anchor, const std::string& text) {
    return "<a href=\"#" + id + anchor + "\">" + escape_markup(text) + "</a>";
  };
  html << "<nav id=\"" << id << "contents\">\n<h2>Contents</h2>\n<ul>\n<li>"
       << link("summary", "Summary") << ": the memory map and the tables</li>\n<li>"
       << link("plots", "Plots") << " (" << figures.size() << ")";
  if (!figures.empty()) {
    html << "\n<ul>\n";
    for (const Figure& figure : figures) {
      html << "<li>" << link("plot-" + figure.id, figure.title) << "</li>\n";
    }
    html << "</ul>\n";
  }
  html << "</li>\n<li>" << link("findings", "Findings") << ": every value with its method and "
       << "evidence</li>\n<li>" << link("run", "Device and run") << "</li>\n<li>"
       << link("console", "Console report") << "</li>\n<li>" << link("warnings", "Warnings")
       << " (" << topology.warnings.size() << ")</li>\n</ul>\n</nav>\n";
  return html.str();
}

}  // namespace memtopo
