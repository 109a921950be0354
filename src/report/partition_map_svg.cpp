#include "report/partition_map_svg.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "report/console_partitions.hpp"

namespace memtopo {
namespace {

constexpr int kSmsPerRow = 16;
constexpr int kCell = 34;
constexpr int kGap = 3;
constexpr int kLeft = 70;
constexpr int kTop = 28;
constexpr int kLegendHeight = 30;
// Colour-blind-safe (Okabe-Ito); partitions beyond the list reuse it.
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                    "#56B4E9", "#D55E00", "#F0E442", "#000000"};
constexpr const char* kUnclear = "#BBBBBB";

const char* colour_of(std::uint32_t partition) {
  return kColours[partition % (sizeof(kColours) / sizeof(kColours[0]))];
}

}  // namespace

std::string render_partition_map_svg(const Property& map) {
  const auto sms = partition_of_each_sm(map);
  if (map.inconclusive || sms.empty()) return "";
  const int last = static_cast<int>(sms.rbegin()->first);
  const int rows = last / kSmsPerRow + 1;
  const int width = kLeft + kSmsPerRow * (kCell + kGap) + 10;
  const int height = kTop + rows * (kCell + kGap) + kLegendHeight + 10;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" "
         "aria-label=\"L2 partition near each SM\">\n";
  svg << "<text x=\"" << kLeft << "\" y=\"16\">SM id = row start + column; colour: the L2 "
         "partition near it</text>\n";
  for (int row = 0; row < rows; ++row) {
    const int y = kTop + row * (kCell + kGap);
    svg << "<text x=\"" << kLeft - 8 << "\" y=\"" << y + kCell / 2 + 4
        << "\" text-anchor=\"end\">" << row * kSmsPerRow << "</text>\n";
    for (int column = 0; column < kSmsPerRow; ++column) {
      const int sm = row * kSmsPerRow + column;
      const auto found = sms.find(static_cast<std::uint32_t>(sm));
      if (found == sms.end()) continue;
      const int x = kLeft + column * (kCell + kGap);
      const bool clear = found->second.has_value();
      svg << "<rect class=\"sm-cell\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell
          << "\" height=\"" << kCell << "\" fill=\"" << (clear ? colour_of(*found->second) : kUnclear)
          << "\"><title>SM " << sm << ": "
          << (clear ? "partition " + std::to_string(*found->second) : std::string("unclear"))
          << "</title></rect>\n";
      svg << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell / 2 + 4
          << "\" text-anchor=\"middle\" fill=\"#fff\" font-size=\"11\">"
          << (clear ? std::to_string(sm) : "?") << "</text>\n";
    }
  }
  int x = kLeft;
  const int legend_y = kTop + rows * (kCell + kGap) + 12;
  for (const PartitionRow& row : partition_rows(map)) {
    svg << "<rect x=\"" << x << "\" y=\"" << legend_y << "\" width=\"14\" height=\"14\" fill=\""
        << colour_of(row.partition) << "\"/><text x=\"" << x + 20 << "\" y=\"" << legend_y + 12
        << "\">partition " << row.partition << " (" << row.sms.size() << " SMs)</text>\n";
    x += 170;
  }
  if (!map.evidence.value("unclear", nlohmann::json::array()).empty()) {
    svg << "<rect x=\"" << x << "\" y=\"" << legend_y << "\" width=\"14\" height=\"14\" fill=\""
        << kUnclear << "\"/><text x=\"" << x + 20 << "\" y=\"" << legend_y + 12
        << "\">unclear</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace memtopo
