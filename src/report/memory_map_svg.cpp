// The memory map as SVG: boxes with their titles and lines, links with their labels, a legend of
// the marks. Self-contained like every chart (no script, font or URL), scalable to any width.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/memory_map.hpp"
#include "report/memory_map_geometry.hpp"
#include "report/svg_plot.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

std::string coord(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

struct BoxStyle {
  const char* fill;
  const char* stroke;
};

BoxStyle style_of(MapBoxKind kind) {
  switch (kind) {
    case MapBoxKind::frame: return {"#f6f7f9", "#8a8f98"};
    case MapBoxKind::cache: return {"#ffffff", "#3f73b5"};
    case MapBoxKind::device: return {"#eef8ee", "#3f8f3f"};
    case MapBoxKind::memory: return {"#fff4e3", "#c0841f"};
    case MapBoxKind::tlb: return {"#f5effb", "#7f56b3"};
    case MapBoxKind::partition: return {"#ffffff", "#3f8f3f"};
    case MapBoxKind::gpu: return {"#eef4fb", "#3f73b5"};
  }
  return {"#ffffff", "#444444"};
}

// Low confidence: lighter grey italics; inconclusive or a bound: brown italics (the report's
// colours for the same marks).
std::string text_attributes(const MapText& line) {
  if (line.low) return " fill=\"#6b6b6b\" font-style=\"italic\"";
  if (line.unsure) return " fill=\"#8a5a00\" font-style=\"italic\"";
  return " fill=\"#222\"";
}

void render_lines(std::ostringstream& svg, const std::vector<MapText>& lines, double x, double y,
                  const char* anchor) {
  for (const MapText& line : lines) {
    svg << "<text x=\"" << coord(x) << "\" y=\"" << coord(y) << "\" font-size=\"11\""
        << " text-anchor=\"" << anchor << "\"" << text_attributes(line) << ">"
        << escape_markup(line.text) << "</text>\n";
    y += kMapLineHeight;
  }
}

std::string box_tip(const MapBox& box) {
  std::string tip = box.title;
  for (const MapText& line : box.lines) tip += "\n" + line.text;
  return tip;
}

void render_box(std::ostringstream& svg, const MapBox& box) {
  const BoxStyle style = style_of(box.kind);
  svg << "<g data-box=\"" << escape_markup(box.id) << "\"><title>" << escape_markup(box_tip(box))
      << "</title>\n<rect x=\"" << coord(box.x) << "\" y=\"" << coord(box.y) << "\" width=\""
      << coord(box.width) << "\" height=\"" << coord(box.height) << "\" rx=\"4\" fill=\""
      << style.fill << "\" stroke=\"" << style.stroke << "\" stroke-width=\"1.4\"";
  if (box.low) svg << " stroke-dasharray=\"6 4\" fill-opacity=\"0.6\"";
  svg << "/>\n<text x=\"" << coord(box.x + kMapPad) << "\" y=\"" << coord(box.y + 14)
      << "\" font-size=\"12\" font-weight=\"bold\" fill=\"#222\">"
      << escape_markup(box.title) << "</text>\n";
  render_lines(svg, box.lines, box.x + kMapPad, box.y + kMapTitleHeight + 11, "start");
  svg << "</g>\n";
}

void render_link(std::ostringstream& svg, const MapLink& link) {
  const double mid_x = (link.x1 + link.x2) / 2;
  const double mid_y = (link.y1 + link.y2) / 2 - link.bend;
  svg << "<path d=\"M" << coord(link.x1) << " " << coord(link.y1);
  if (link.bend != 0) {
    // A quadratic arc through (mid_x, mid_y): its control point lies twice as far out.
    svg << " Q" << coord(mid_x) << " " << coord((link.y1 + link.y2) / 2 - 2 * link.bend);
  } else {
    svg << " L";
  }
  svg << " " << coord(link.x2) << " " << coord(link.y2)
      << "\" fill=\"none\" stroke=\"#666\" stroke-width=\"2\"/>\n";
  if (link.label.empty()) return;
  const double height = kMapLineHeight * static_cast<double>(link.label.size());
  double widest = 0;
  for (const MapText& line : link.label) {
    widest = std::max(widest, kMapCharWidth * static_cast<double>(display_width(line.text)));
  }
  svg << "<rect x=\"" << coord(mid_x - widest / 2 - 3) << "\" y=\"" << coord(mid_y - height / 2 - 2)
      << "\" width=\"" << coord(widest + 6) << "\" height=\"" << coord(height + 4)
      << "\" fill=\"#fff\" fill-opacity=\"0.9\"/>\n";
  render_lines(svg, link.label, mid_x, mid_y - height / 2 + 10, "middle");
}

void render_legend(std::ostringstream& svg, const MemoryMap& map) {
  const double y = map.height - kMapMargin - kMapLegendHeight + 6;
  double x = kMapMargin;
  const auto sample = [&](const char* dash, const std::string& words, const char* attributes) {
    svg << "<rect x=\"" << coord(x) << "\" y=\"" << coord(y) << "\" width=\"18\" height=\"11\" "
        << "rx=\"2\" fill=\"#fff\" stroke=\"#3f73b5\" stroke-width=\"1.4\"" << dash << "/>\n"
        << "<text x=\"" << coord(x + 24) << "\" y=\"" << coord(y + 10) << "\" font-size=\"11\""
        << attributes << ">" << escape_markup(words) << "</text>\n";
    x += 44 + kMapCharWidth * static_cast<double>(display_width(words));
  };
  sample("", "measured", " fill=\"#222\"");
  sample(" stroke-dasharray=\"6 4\"",
         "~ confidence below " + format_number(kLowConfidence, 2) + " (dashed, grey)",
         " fill=\"#6b6b6b\" font-style=\"italic\"");
  sample("", "? inconclusive, ≥ / ≤ only a bound", " fill=\"#8a5a00\" font-style=\"italic\"");
  sample("", "(api) reported by CUDA, not measured", " fill=\"#222\"");
}

}  // namespace

std::string render_memory_map_svg(const MemoryMap& map) {
  if (map.boxes.empty()) return "";
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" class=\"memory-map\" width=\""
      << coord(map.width) << "\" height=\"" << coord(map.height) << "\" viewBox=\"0 0 "
      << coord(map.width) << " " << coord(map.height)
      << "\" font-family=\"sans-serif\">\n<title>" << escape_markup(map.title) << "</title>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  for (const MapBox& box : map.boxes) render_box(svg, box);
  for (const MapLink& link : map.links) render_link(svg, link);
  if (map.legend) render_legend(svg, map);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace memtopo
