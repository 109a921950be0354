#pragma once
// One generic SVG chart writer for the HTML and markdown reports: line and step plots (linear
// or log2 x axis), points with p5..p95 whiskers, grouped bars over categories, and a grid of
// coloured cells (SM pairs). Vertical markers show change points. The SVG is self-contained
// (inline attributes, no script, no external font) so that it opens on an air-gapped machine,
// inline in HTML or as a file beside a markdown report. Hover text uses <title> elements.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memtopo {

// Text made safe inside XML or HTML element content and double-quoted attribute values; control
// characters become visible escapes (model/printable_text.hpp) first.
// Line breaks stay line breaks (for <pre>).
std::string escape_markup(std::string_view text);

// `text` made printable (model/printable_text.hpp) line by line: line breaks stay.
std::string printable_lines(std::string_view text);

enum class AxisScale { linear, log2, categories };
// How tick labels read: plain numbers, bytes (KiB, MiB), cycles, bytes/second (GB/s).
enum class AxisUnit { number, bytes, cycles, rate };
// The tick style of a value in this base unit ("bytes", "cycles", "bytes/second"; else number).
AxisUnit axis_unit_of(const std::string& unit);

struct PlotAxis {
  std::string title;
  AxisScale scale = AxisScale::linear;
  AxisUnit unit = AxisUnit::number;
  std::vector<std::string> categories;  // AxisScale::categories: point x is an index into these
  bool from_zero = false;               // linear: the range includes 0 (bars always do)
};

struct PlotPoint {
  double x = 0;
  double y = 0;
  std::optional<double> low;   // whisker, e.g. p5
  std::optional<double> high;  // whisker, e.g. p95
  bool weak = false;           // confidence below the threshold: drawn hollow, with "~"
  std::string tip;             // hover text
};

enum class SeriesStyle {
  line,    // points joined in x order
  step,    // horizontal then vertical segments, as a staircase
  points,  // separate dots (with whiskers where given)
  bars,    // one bar per category (series side by side)
  cells,   // a filled square at (x category, y category); the series is its colour
};

struct PlotSeries {
  PlotSeries(std::string name_, SeriesStyle style_, std::vector<PlotPoint> points_ = {},
             bool dots_ = true, std::string tip_ = {})
      : name(std::move(name_)),
        style(style_),
        points(std::move(points_)),
        dots(dots_),
        tip(std::move(tip_)) {}

  std::string name;  // the legend entry
  SeriesStyle style = SeriesStyle::line;
  std::vector<PlotPoint> points;
  bool dots = true;  // line and step: a dot at every point (off for dense curves)
  std::string tip;   // line and step: hover text of the whole curve
};

// A vertical line across the plot at `x`, labelled at the top (a change point, a found size).
struct PlotMarker {
  double x = 0;
  std::string label;
  bool weak = false;  // dashed and marked "~" when its confidence is low
  std::string tip;
};

struct Plot {
  std::string id;     // stable: anchors and file names (letters, digits, '-')
  std::string title;  // drawn above the chart
  std::string caption;
  PlotAxis x;
  PlotAxis y;
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;
};

// The chart as an <svg> element (no XML declaration, so it also goes inline into HTML).
std::string render_svg(const Plot& plot);

}  // namespace memtopo
