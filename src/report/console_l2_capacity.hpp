#pragma once
// The L2 capacity story (issue 15 item 2): what one SM fills (l2.size), the segments it belongs
// to (l2.segments), what every SM together keeps at L2 speed (the l2.bandwidth sweep), and the
// API's size, side by side, with what explains the differences or "unexplained".
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// A footprint bracket from the all-SM read sweep: bandwidth within kL2LevelBand of its L2 level
// up to `held_bytes`, below it at `lost_bytes` and the point after it.
struct AllSmCapacity {
  double level_bytes_per_second = 0;  // p50 of the sweep points from l2.size / 2 to 2 x l2.size
  double held_bytes = 0;
  std::optional<double> lost_bytes;  // none: the sweep never fell below the band
};
inline constexpr double kL2LevelBand = 0.1;

// From l2.bandwidth's sweep and l2.size; nullopt without both, or without points in the band.
std::optional<AllSmCapacity> all_sm_capacity(const Topology& topology);

struct CapacityRow {
  std::string what, value, detail;
};
struct CapacityStory {
  std::vector<CapacityRow> rows;
  std::vector<std::string> explanations;  // each "explained: ..." or "unexplained: ..."
};

// Empty rows when the topology has no measured l2.size.
CapacityStory l2_capacity_story(const Topology& topology);

// The console section; nothing when the story has no rows.
void render_l2_capacity(std::ostream& out, const Topology& topology, std::size_t max_width);

}  // namespace memtopo
