#include "report/report_figures.hpp"

#include <algorithm>
#include <limits>

#include "report/console.hpp"
#include "report/partition_map_svg.hpp"
#include "report/report_plots.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

struct Ranked {
  int rank;
  Figure figure;
};

// The position of the element a chart is about in the console's row order (whose unknown ids,
// the Hopper elements, come after the TLBs); -1 for a chart across levels. A chart is about the
// element whose id (as plot_id spells it) stands between dashes in its id; the longest wins, so
// that constant-l15 is not taken for constant-l1.
int rank_of(const std::string& figure_id, const std::vector<const Element*>& ordered) {
  const std::string id = "-" + figure_id + "-";
  int rank = -1;
  std::size_t longest = 0;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    const std::string element = "-" + plot_id(ordered[i]->id) + "-";
    if (element.size() > longest && id.find(element) != std::string::npos) {
      rank = static_cast<int>(i);
      longest = element.size();
    }
  }
  return rank;
}

}  // namespace

std::vector<Figure> report_figures(const Topology& topology) {
  const std::vector<const Element*> ordered = in_row_order(topology.elements);
  std::vector<Ranked> ranked;
  for (const Plot& plot : report_plots(topology)) {
    ranked.push_back({rank_of(plot.id, ordered),
                      {plot.id, plot.title, plot.caption, render_svg(plot)}});
  }
  const Element* l2 = topology.find("l2");
  const Property* map = l2 ? l2->find("partition_map") : nullptr;
  if (const std::string svg = map ? render_partition_map_svg(*map) : ""; !svg.empty()) {
    ranked.push_back({rank_of("l2-partition-map", ordered),
                      {"l2-partition-map", "l2.partition_map: the L2 partition near each SM",
                       "cross-SM first touches; grey cells with ? are SMs the map left unclear",
                       svg}});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.rank < b.rank; });
  std::vector<Figure> figures;
  for (Ranked& r : ranked) figures.push_back(std::move(r.figure));
  return figures;
}

}  // namespace memtopo
