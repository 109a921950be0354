#include "report/memory_map_geometry.hpp"

#include <algorithm>
#include <string>

#include "report/text_table.hpp"

namespace memtopo {

std::string fitted_title(const std::string& title, double width) {
  return shorten_to_width(
      title, static_cast<std::size_t>(std::max(8.0, (width - 2 * kMapPad) / kMapTitleCharWidth)));
}

void fit_box(MapBox& box, double width) {
  const auto columns =
      static_cast<std::size_t>(std::max(8.0, (width - 2 * kMapPad) / kMapCharWidth));
  std::vector<MapText> wrapped;
  for (const MapText& line : box.lines) {
    for (const std::string& part : wrap_words(line.text, columns)) {
      wrapped.push_back({part, line.low, line.unsure});
    }
  }
  box.lines = std::move(wrapped);
  box.title = fitted_title(box.title, width);
  box.width = width;
  box.height = kMapTitleHeight + kMapLineHeight * static_cast<double>(box.lines.size()) + kMapPad;
}

double place_rows(std::vector<MapBox>& boxes, double x, double y, double width,
                  std::size_t max_columns) {
  if (boxes.empty()) return 0;
  const std::size_t columns = std::min(boxes.size(), std::max<std::size_t>(1, max_columns));
  const double box_width =
      (width - kMapGap * static_cast<double>(columns - 1)) / static_cast<double>(columns);
  double top = y;
  for (std::size_t first = 0; first < boxes.size(); first += columns) {
    const std::size_t last = std::min(boxes.size(), first + columns);
    double row_height = 0;
    for (std::size_t i = first; i < last; ++i) {
      fit_box(boxes[i], box_width);
      row_height = std::max(row_height, boxes[i].height);
    }
    for (std::size_t i = first; i < last; ++i) {
      boxes[i].x = x + static_cast<double>(i - first) * (box_width + kMapGap);
      boxes[i].y = top;
      boxes[i].height = row_height;  // a row's boxes line up
    }
    top += row_height + kMapGap;
  }
  return top - kMapGap - y;
}

void shift(std::vector<MapBox>& boxes, double dx, double dy) {
  for (MapBox& box : boxes) {
    box.x += dx;
    box.y += dy;
  }
}

}  // namespace memtopo
