#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "model/printable_text.hpp"
#include "model/units.hpp"

namespace memtopo {
namespace {

// Geometry of every chart, in SVG user units (pixels at 100 %).
constexpr double kWidth = 720;
constexpr double kLeft = 78;  // room for the y tick labels and title
constexpr double kRight = 24;
constexpr double kTop = 48;  // the title and marker labels
constexpr double kPlotHeight = 250;
constexpr double kAxisBelow = 44;       // x tick labels and the x title
constexpr double kRotatedLabels = 60;   // extra room when category labels are slanted
constexpr std::size_t kSlantAbove = 6;  // more categories than this: slanted labels
constexpr double kLegendRow = 18;
constexpr double kCharWidth = 6.6;  // an estimate for laying out the legend (11 px font)
constexpr double kTargetTicks = 6;
constexpr double kMaxLog2Ticks = 9;
constexpr double kLog2Padding = 0.3;     // octaves left and right of the data
constexpr double kLinearPadding = 0.06;  // of the range, above and below the data
constexpr double kBarShare = 0.8;        // of a category's width, shared by its bars
constexpr double kCellShare = 0.9;
constexpr double kPointRadius = 3.2;
constexpr double kWhiskerHalf = 4;
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c",
                                    "#ff7f0e", "#9467bd", "#8c564b"};
constexpr const char* kFont = "font-family=\"sans-serif\" font-size=\"11\"";

const char* colour(std::size_t index) {
  return kPalette[index % std::size(kPalette)];
}

// Coordinates with one decimal: stable output for golden files, fine enough for a screen.
std::string coord(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string tick_label(double value, AxisUnit unit) {
  switch (unit) {
    case AxisUnit::bytes:
      return format_bytes(value);
    case AxisUnit::rate:
      return format_rate(value);
    case AxisUnit::cycles:
      return format_number(value, 1);
    case AxisUnit::number:
      break;
  }
  return format_number(value, 2);
}

// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about kTargetTicks.
double nice_step(double span) {
  if (!(span > 0)) return 1;
  const double rough = span / kTargetTicks;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (double factor : {1.0, 2.0, 5.0}) {
    if (rough <= factor * power) return factor * power;
  }
  return 10 * power;
}

// One axis' mapping from data to pixels, with its ticks.
struct Scale {
  AxisScale kind = AxisScale::linear;
  double low = 0, high = 1;  // in data units (log2 of the data for a log2 axis)
  double pixel_from = 0, pixel_to = 1;
  std::size_t categories = 0;

  double transform(double value) const {
    return kind == AxisScale::log2 ? std::log2(std::max(value, 1e-300)) : value;
  }
  double band() const {
    return (pixel_to - pixel_from) / static_cast<double>(std::max<std::size_t>(categories, 1));
  }
  double operator()(double value) const {
    if (kind == AxisScale::categories) return pixel_from + (value + 0.5) * band();
    const double t = (transform(value) - low) / (high - low);
    return pixel_from + t * (pixel_to - pixel_from);
  }
  // Tick positions in data units.
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (kind == AxisScale::categories) {
      for (std::size_t i = 0; i < categories; ++i) out.push_back(static_cast<double>(i));
    } else if (kind == AxisScale::log2) {
      const double span = std::ceil(high) - std::floor(low);
      const double every = std::max(1.0, std::ceil(span / kMaxLog2Ticks));
      for (double e = std::ceil(low / every) * every; e <= high; e += every) {
        out.push_back(std::exp2(e));
      }
    } else {
      const double step = nice_step(high - low);
      for (double v = std::ceil(low / step) * step; v <= high + step * 1e-9; v += step) {
        out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
      }
    }
    return out;
  }
};

bool has_style(const Plot& plot, SeriesStyle style) {
  return std::any_of(plot.series.begin(), plot.series.end(),
                     [&](const PlotSeries& s) { return s.style == style; });
}

// The data range an axis must show: every point (and whisker, for y) and, for x, every marker.
Scale fit_scale(const Plot& plot, const PlotAxis& axis, bool is_x, double pixel_from,
                double pixel_to) {
  Scale scale{axis.scale, 0, 1, pixel_from, pixel_to, axis.categories.size()};
  if (axis.scale == AxisScale::categories) return scale;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  auto include = [&](double value) {
    if (!std::isfinite(value) || (axis.scale == AxisScale::log2 && value <= 0)) return;
    low = std::min(low, scale.transform(value));
    high = std::max(high, scale.transform(value));
  };
  for (const PlotSeries& series : plot.series) {
    for (const PlotPoint& p : series.points) {
      include(is_x ? p.x : p.y);
      if (!is_x && p.low) include(*p.low);
      if (!is_x && p.high) include(*p.high);
    }
  }
  if (is_x) {
    for (const PlotMarker& marker : plot.markers) include(marker.x);
  }
  if (!std::isfinite(low)) low = 0, high = 1;
  if (axis.scale == AxisScale::linear &&
      (axis.from_zero || (!is_x && has_style(plot, SeriesStyle::bars)))) {
    low = std::min(low, 0.0);
    high = std::max(high, 0.0);
  }
  if (high - low < 1e-12) {  // one value: give it room on both sides
    const double room = axis.scale == AxisScale::log2 ? 1 : std::max(std::fabs(low) * 0.1, 1.0);
    low -= room, high += room;
  }
  const double pad = axis.scale == AxisScale::log2 ? kLog2Padding : (high - low) * kLinearPadding;
  scale.low = (axis.scale == AxisScale::linear && low == 0) ? 0 : low - pad;
  scale.high = high + pad;
  return scale;
}

struct Frame {
  Scale x, y;
  double bottom = 0;  // y pixel of the x axis
  double height = 0;  // of the whole SVG
  bool slanted = false;
};

Frame layout(const Plot& plot, std::size_t legend_rows) {
  Frame frame;
  frame.slanted = plot.x.scale == AxisScale::categories && plot.x.categories.size() > kSlantAbove;
  frame.bottom = kTop + kPlotHeight;
  frame.height = frame.bottom + kAxisBelow + (frame.slanted ? kRotatedLabels : 0) +
                 static_cast<double>(legend_rows) * kLegendRow + 8;
  frame.x = fit_scale(plot, plot.x, true, kLeft, kWidth - kRight);
  // Pixels grow downwards: the y scale maps low values to the bottom.
  frame.y = fit_scale(plot, plot.y, false, frame.bottom, kTop);
  return frame;
}

void draw_axes(std::ostringstream& svg, const Plot& plot, const Frame& f) {
  svg << "<g stroke=\"#999\" stroke-width=\"1\">";
  svg << "<line x1=\"" << coord(kLeft) << "\" y1=\"" << coord(f.bottom) << "\" x2=\""
      << coord(kWidth - kRight) << "\" y2=\"" << coord(f.bottom) << "\"/>";
  svg << "<line x1=\"" << coord(kLeft) << "\" y1=\"" << coord(kTop) << "\" x2=\"" << coord(kLeft)
      << "\" y2=\"" << coord(f.bottom) << "\"/></g>\n";
  svg << "<g " << kFont << " fill=\"#333\">";
  for (double tick : f.x.ticks()) {
    const double px = f.x(tick);
    const std::string label = plot.x.scale == AxisScale::categories
                                  ? plot.x.categories[static_cast<std::size_t>(tick)]
                                  : tick_label(tick, plot.x.unit);
    svg << "<line x1=\"" << coord(px) << "\" y1=\"" << coord(f.bottom) << "\" x2=\"" << coord(px)
        << "\" y2=\"" << coord(f.bottom + 4) << "\" stroke=\"#999\"/>";
    if (f.slanted) {
      svg << "<text x=\"" << coord(px) << "\" y=\"" << coord(f.bottom + 14)
          << "\" text-anchor=\"end\" transform=\"rotate(-35 " << coord(px) << " "
          << coord(f.bottom + 14) << ")\">" << escape_markup(label) << "</text>";
    } else {
      svg << "<text x=\"" << coord(px) << "\" y=\"" << coord(f.bottom + 16)
          << "\" text-anchor=\"middle\">" << escape_markup(label) << "</text>";
    }
  }
  for (double tick : f.y.ticks()) {
    const double py = f.y(tick);
    const std::string label = plot.y.scale == AxisScale::categories
                                  ? plot.y.categories[static_cast<std::size_t>(tick)]
                                  : tick_label(tick, plot.y.unit);
    if (plot.y.scale != AxisScale::categories) {
      svg << "<line x1=\"" << coord(kLeft) << "\" y1=\"" << coord(py) << "\" x2=\""
          << coord(kWidth - kRight) << "\" y2=\"" << coord(py) << "\" stroke=\"#eee\"/>";
    }
    svg << "<text x=\"" << coord(kLeft - 6) << "\" y=\"" << coord(py + 4)
        << "\" text-anchor=\"end\">" << escape_markup(label) << "</text>";
  }
  const double x_title_y = f.bottom + kAxisBelow - 8 + (f.slanted ? kRotatedLabels : 0);
  svg << "<text x=\"" << coord((kLeft + kWidth - kRight) / 2) << "\" y=\"" << coord(x_title_y)
      << "\" text-anchor=\"middle\">" << escape_markup(plot.x.title) << "</text>";
  svg << "<text x=\"14\" y=\"" << coord((kTop + f.bottom) / 2)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << coord((kTop + f.bottom) / 2)
      << ")\">" << escape_markup(plot.y.title) << "</text></g>\n";
}

void open_tip(std::ostringstream& svg, const std::string& tip) {
  if (!tip.empty()) svg << "<title>" << escape_markup(tip) << "</title>";
}

void draw_whisker(std::ostringstream& svg, const PlotPoint& p, double px, const Frame& f,
                  const char* stroke) {
  if (!p.low || !p.high) return;
  const double lo = f.y(*p.low), hi = f.y(*p.high);
  svg << "<path d=\"M" << coord(px) << " " << coord(lo) << "V" << coord(hi) << "M"
      << coord(px - kWhiskerHalf) << " " << coord(lo) << "h" << coord(2 * kWhiskerHalf) << "M"
      << coord(px - kWhiskerHalf) << " " << coord(hi) << "h" << coord(2 * kWhiskerHalf)
      << "\" stroke=\"" << stroke << "\" fill=\"none\"/>";
}

void draw_weak_mark(std::ostringstream& svg, double px, double py, const char* paint = "#b00") {
  svg << "<text x=\"" << coord(px + 5) << "\" y=\"" << coord(py - 5) << "\" " << kFont << " fill=\""
      << paint << "\" font-weight=\"bold\">~</text>";
}

void draw_point(std::ostringstream& svg, const PlotPoint& p, const Frame& f, const char* stroke) {
  const double px = f.x(p.x), py = f.y(p.y);
  svg << "<g class=\"point" << (p.weak ? " weak" : "") << "\">";
  open_tip(svg, p.tip);
  draw_whisker(svg, p, px, f, stroke);
  svg << "<circle cx=\"" << coord(px) << "\" cy=\"" << coord(py) << "\" r=\"" << coord(kPointRadius)
      << "\" stroke=\"" << stroke << "\" fill=\"" << (p.weak ? "#fff" : stroke) << "\"/>";
  if (p.weak) draw_weak_mark(svg, px, py);
  svg << "</g>";
}

void draw_path(std::ostringstream& svg, const PlotSeries& series, const Frame& f,
               const char* stroke) {
  std::vector<PlotPoint> points = series.points;
  std::stable_sort(points.begin(), points.end(),
                   [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
  svg << "<path d=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double px = f.x(points[i].x), py = f.y(points[i].y);
    if (i == 0) {
      svg << "M" << coord(px) << " " << coord(py);
    } else if (series.style == SeriesStyle::step) {
      svg << "H" << coord(px) << "V" << coord(py);
    } else {
      svg << "L" << coord(px) << " " << coord(py);
    }
  }
  svg << "\" stroke=\"" << stroke << "\" stroke-width=\"1.6\" fill=\"none\">";
  open_tip(svg, series.tip);
  svg << "</path>";
  if (!series.dots) return;
  for (const PlotPoint& p : points) draw_point(svg, p, f, stroke);
}

void draw_bar(std::ostringstream& svg, const PlotPoint& p, const Frame& f, std::size_t index,
              std::size_t bar_series, const char* fill) {
  const double width = f.x.band() * kBarShare / static_cast<double>(bar_series);
  const double left = f.x(p.x) - f.x.band() * kBarShare / 2 + static_cast<double>(index) * width;
  const double top = f.y(std::max(p.y, 0.0)), base = f.y(std::min(p.y, 0.0));
  svg << "<g class=\"bar" << (p.weak ? " weak" : "") << "\">";
  open_tip(svg, p.tip);
  svg << "<rect x=\"" << coord(left) << "\" y=\"" << coord(top) << "\" width=\"" << coord(width)
      << "\" height=\"" << coord(base - top) << "\" fill=\"" << fill << "\""
      << (p.weak ? " fill-opacity=\"0.35\" stroke=\"#b00\" stroke-dasharray=\"4 2\"" : "") << "/>";
  draw_whisker(svg, p, left + width / 2, f, "#333");
  if (p.weak) draw_weak_mark(svg, left + 2, top + 14);
  svg << "</g>";
}

void draw_cell(std::ostringstream& svg, const PlotPoint& p, const Frame& f, const char* fill) {
  const double size = std::min(std::fabs(f.x.band()), std::fabs(f.y.band())) * kCellShare;
  const double cx = f.x(p.x), cy = f.y(p.y);
  svg << "<g class=\"cell" << (p.weak ? " weak" : "") << "\">";
  open_tip(svg, p.tip);
  svg << "<rect x=\"" << coord(cx - size / 2) << "\" y=\"" << coord(cy - size / 2) << "\" width=\""
      << coord(size) << "\" height=\"" << coord(size) << "\" fill=\"" << fill << "\"/>";
  if (p.weak) draw_weak_mark(svg, cx - 9, cy + 9, "#fff");
  svg << "</g>";
}

void draw_series(std::ostringstream& svg, const Plot& plot, const Frame& f) {
  std::size_t bar_series = 0;
  for (const PlotSeries& s : plot.series) bar_series += s.style == SeriesStyle::bars;
  std::size_t bar_index = 0;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& series = plot.series[i];
    const char* paint = colour(i);
    svg << "<g class=\"series\">";
    switch (series.style) {
      case SeriesStyle::line:
      case SeriesStyle::step:
        draw_path(svg, series, f, paint);
        break;
      case SeriesStyle::points:
        for (const PlotPoint& p : series.points) draw_point(svg, p, f, paint);
        break;
      case SeriesStyle::bars:
        for (const PlotPoint& p : series.points) draw_bar(svg, p, f, bar_index, bar_series, paint);
        ++bar_index;
        break;
      case SeriesStyle::cells:
        for (const PlotPoint& p : series.points) draw_cell(svg, p, f, paint);
        break;
    }
    svg << "</g>\n";
  }
}

void draw_markers(std::ostringstream& svg, const Plot& plot, const Frame& f) {
  for (std::size_t i = 0; i < plot.markers.size(); ++i) {
    const PlotMarker& marker = plot.markers[i];
    const double px = f.x(marker.x);
    // Labels alternate between two rows so that neighbouring change points stay readable.
    const double label_y = kTop - 6 - static_cast<double>(i % 2) * 12;
    svg << "<g class=\"marker" << (marker.weak ? " weak" : "") << "\">";
    open_tip(svg, marker.tip);
    svg << "<line x1=\"" << coord(px) << "\" y1=\"" << coord(kTop - 2) << "\" x2=\"" << coord(px)
        << "\" y2=\"" << coord(f.bottom) << "\" stroke=\"" << (marker.weak ? "#b00" : "#555")
        << "\" stroke-dasharray=\"" << (marker.weak ? "2 3" : "5 3") << "\"/>";
    svg << "<text x=\"" << coord(px) << "\" y=\"" << coord(label_y) << "\" " << kFont
        << " text-anchor=\"middle\" fill=\"" << (marker.weak ? "#b00" : "#333") << "\">"
        << escape_markup((marker.weak ? "~ " : "") + marker.label) << "</text></g>\n";
  }
}

// Legend entries flow left to right, wrapping at the chart's width.
std::vector<std::vector<std::size_t>> legend_rows(const Plot& plot) {
  std::vector<std::vector<std::size_t>> rows;
  double x = kWidth;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const double width = 24 + kCharWidth * static_cast<double>(plot.series[i].name.size());
    if (rows.empty() || x + width > kWidth - kRight) rows.emplace_back(), x = kLeft;
    rows.back().push_back(i);
    x += width;
  }
  return rows;
}

void draw_legend(std::ostringstream& svg, const Plot& plot,
                 const std::vector<std::vector<std::size_t>>& rows, double top) {
  svg << "<g " << kFont << " fill=\"#333\">";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    double x = kLeft;
    const double y = top + static_cast<double>(r) * kLegendRow;
    for (std::size_t i : rows[r]) {
      svg << "<rect x=\"" << coord(x) << "\" y=\"" << coord(y - 9) << "\" width=\"12\" "
          << "height=\"10\" fill=\"" << colour(i) << "\"/><text x=\"" << coord(x + 16) << "\" y=\""
          << coord(y) << "\">" << escape_markup(plot.series[i].name) << "</text>";
      x += 24 + kCharWidth * static_cast<double>(plot.series[i].name.size());
    }
  }
  svg << "</g>\n";
}

}  // namespace

std::string printable_lines(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += printable_text(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string escape_markup(std::string_view text) {
  const std::string printable = printable_lines(text);
  std::string out;
  out.reserve(printable.size());
  for (char c : printable) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

AxisUnit axis_unit_of(const std::string& unit) {
  if (unit == "bytes") return AxisUnit::bytes;
  if (unit == "cycles") return AxisUnit::cycles;
  if (unit == "bytes/second") return AxisUnit::rate;
  return AxisUnit::number;
}

std::string render_svg(const Plot& plot) {
  const auto rows = legend_rows(plot);
  const Frame frame = layout(plot, rows.size());
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" << coord(kWidth)
      << "\" height=\"" << coord(frame.height) << "\" viewBox=\"0 0 " << coord(kWidth) << " "
      << coord(frame.height) << "\" id=\"svg-" << escape_markup(plot.id) << "\">\n";
  svg << "<title>" << escape_markup(plot.title) << "</title>\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  svg << "<text x=\"" << coord(kLeft) << "\" y=\"16\" font-family=\"sans-serif\" "
      << "font-size=\"13\" font-weight=\"bold\" fill=\"#222\">" << escape_markup(plot.title)
      << "</text>\n";
  draw_axes(svg, plot, frame);
  draw_markers(svg, plot, frame);
  draw_series(svg, plot, frame);
  const double legend_top =
      frame.bottom + kAxisBelow + (frame.slanted ? kRotatedLabels : 0) + kLegendRow / 2;
  draw_legend(svg, plot, rows, legend_top);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace memtopo
