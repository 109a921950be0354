#pragma once
// The memory map's geometry (internal to the memory map): sizes in SVG user units of a
// kMapWidth-wide drawing, text wrapped to a box's width, boxes placed in rows.
#include <cstddef>
#include <vector>

#include "report/memory_map.hpp"

namespace memtopo {

inline constexpr double kMapWidth = 1000;
inline constexpr double kMapMargin = 10;
inline constexpr double kMapGap = 10;         // between boxes of a row
inline constexpr double kMapPad = 8;          // inside a box, around its text
inline constexpr double kMapTitleHeight = 18;
inline constexpr double kMapLineHeight = 14;
inline constexpr double kMapCharWidth = 6.2;  // of the 11 px sans-serif lines, generous
inline constexpr double kMapTitleCharWidth = 7.4;  // of the 12 px bold titles
inline constexpr double kMapLinkHeight = 26;  // vertical room for a link between tiers
inline constexpr double kMapLegendHeight = 22;

// Wraps the box's lines to `width` (its title shortened to fit) and gives it that width and the
// height its text needs.
void fit_box(MapBox& box, double width);

// `title` shortened ("…") to fit a box or frame `width` wide.
std::string fitted_title(const std::string& title, double width);

// Places `boxes` left to right from (x, y) in rows of at most `max_columns` boxes of equal
// width across `width` (each fitted); returns the height used (0 for none).
double place_rows(std::vector<MapBox>& boxes, double x, double y, double width,
                  std::size_t max_columns);

// Moves every box by (dx, dy).
void shift(std::vector<MapBox>& boxes, double dx, double dy);

}  // namespace memtopo
