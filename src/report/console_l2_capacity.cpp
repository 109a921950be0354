#include "report/console_l2_capacity.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "report/summary_tables.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

// segments x one-SM size explains the API size within this share (as l2.segments judges it).
constexpr double kSegmentsMatchShare = 0.05;
// The every-SM footprint agrees with the API size when the API is at most this factor above it
// (the sweep's points lie a factor 1.19 apart).
constexpr double kHeldSlack = 1.1;

const Property* find(const Topology& topology, const char* element, const char* name) {
  const Element* e = topology.find(element);
  return e ? e->find(name) : nullptr;
}

// A measured value only: an API size must never stand in for what one SM fills.
bool measured_number(const Property* p) {
  return p && p->source == Source::measured && !p->inconclusive && p->value.is_number();
}

std::string share_text(double part, double whole) {
  return format_number(part / whole, 2) + " of the API's " + format_bytes(whole);
}

}  // namespace

std::optional<AllSmCapacity> all_sm_capacity(const Topology& topology) {
  const Property* size = find(topology, "l2", "size");
  const Property* bandwidth = find(topology, "l2", "bandwidth");
  if (!measured_number(size) || !bandwidth || !bandwidth->evidence.contains("sweep")) {
    return std::nullopt;
  }
  const nlohmann::json& sweep = bandwidth->evidence["sweep"];
  if (!sweep.contains("points") || !sweep["points"].is_array()) return std::nullopt;
  const double one_sm = size->value.get<double>();
  std::vector<std::pair<double, double>> points;
  for (const nlohmann::json& point : sweep["points"]) {
    if (point.is_array() && point.size() == 2 && point[0].is_number() && point[1].is_number()) {
      points.emplace_back(point[0].get<double>(), point[1].get<double>());
    }
  }
  std::sort(points.begin(), points.end());
  // The L2 level: from half to twice the one-SM size, where every SM's reads still hit (the
  // whole L2 is larger than one SM's share of it).
  std::vector<double> level;
  for (const auto& [bytes, rate] : points) {
    if (bytes >= one_sm / 2 && bytes <= 2 * one_sm) level.push_back(rate);
  }
  if (level.empty()) return std::nullopt;
  AllSmCapacity capacity;
  capacity.level_bytes_per_second = summarize(level).p50;
  const double floor = (1 - kL2LevelBand) * capacity.level_bytes_per_second;
  // Lost at the first of two points in a row below the band: one low point is noise (the
  // H200's sweeps dip by 10 % at single footprints from run to run).
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& [bytes, rate] = points[i];
    if (bytes < one_sm) continue;
    const bool low = rate < floor;
    const bool next_low = i + 1 < points.size() && points[i + 1].second < floor;
    if (low && next_low) {
      capacity.lost_bytes = bytes;
      break;
    }
    capacity.held_bytes = bytes;
  }
  if (capacity.held_bytes == 0) capacity.held_bytes = one_sm;
  return capacity;
}

CapacityStory l2_capacity_story(const Topology& topology) {
  CapacityStory story;
  const Property* size = find(topology, "l2", "size");
  if (!measured_number(size)) return story;
  const double one_sm = size->value.get<double>();
  const double api = static_cast<double>(topology.device.l2_bytes);
  if (api > 0) story.rows.push_back({"API", format_bytes(api), "cudaDeviceProp::l2CacheSize, not measured"});
  story.rows.push_back({"one SM", format_bytes(one_sm),
                        "l2.size (one SM's cg chase)" +
                            (api > 0 ? "; " + share_text(one_sm, api) : std::string())});
  const Property* segments = find(topology, "l2", "segments");
  std::optional<double> explained_by_segments;
  if (segments && segments->value.is_number()) {
    const double count = segments->value.get<double>();
    const bool sure = !segments->inconclusive;
    story.rows.push_back({"segments", (sure ? "" : "at least ") + format_number(count, 0) + " x " +
                                          format_bytes(one_sm),
                          "l2.segments (pairs of SMs chasing together)" +
                              std::string(sure ? "" : ": inconclusive, a lower bound")});
    if (sure && api > 0 && std::fabs(count * one_sm / api - 1) <= kSegmentsMatchShare) {
      explained_by_segments = count;
    }
  }
  const auto all = all_sm_capacity(topology);
  if (all) {
    std::string detail = "every SM reading (l2.bandwidth sweep): within " +
                         format_number(100 * kL2LevelBand, 0) + " % of its L2 level (" +
                         format_rate(all->level_bytes_per_second) + ") up to " +
                         format_bytes(all->held_bytes);
    detail += all->lost_bytes ? ", below it from " + format_bytes(*all->lost_bytes)
                              : ", to the end of the sweep";
    story.rows.push_back({"every SM",
                          format_bytes(all->held_bytes) +
                              (all->lost_bytes ? " to " + format_bytes(*all->lost_bytes) : "+"),
                          detail});
  }
  if (api > 0) {
    const bool whole = std::fabs(one_sm / api - 1) <= kSegmentsMatchShare;
    const bool one_segment = !segments || !segments->value.is_number() ||
                             segments->value.get<double>() == 1;
    if (whole && one_segment) {
      story.explanations.push_back("explained: one SM alone fills the API's size");
    } else if (explained_by_segments) {
      story.explanations.push_back(
          "explained: one SM fills one of " + format_number(*explained_by_segments, 0) +
          " segments, and the segments make up the API's size");
    } else {
      std::string text = "unexplained: one SM fills " + share_text(one_sm, api);
      if (segments && segments->value.is_number()) {
        const double count = segments->value.get<double>();
        const double total = count * one_sm;
        text += "; " + std::string(segments->inconclusive ? "at least " : "") +
                format_number(count, 0) + " segment(s) of it make " + format_bytes(total) + " (" +
                format_number(total / api, 2) + "), " +
                (total < api ? format_bytes(api - total) + " short"
                             : format_bytes(total - api) + " over");
      } else {
        text += ", and no segment count was measured";
      }
      story.explanations.push_back(text);
    }
    if (all) {
      const bool agrees = api <= kHeldSlack * all->held_bytes;
      story.explanations.push_back(
          agrees ? "explained: every SM together keeps at least about the API's " +
                       format_bytes(api) + " at L2 speed (up to " +
                       format_bytes(all->held_bytes) +
                       "; the bandwidth falls gradually beyond, the footprint varies from run "
                       "to run)"
                 : std::string("unexplained: every SM together keeps only ") +
                       format_bytes(all->held_bytes) + " at L2 speed, against the API's " +
                       format_bytes(api));
    }
  }
  return story;
}

std::optional<SummaryTable> l2_capacity_summary(const Topology& topology) {
  CapacityStory story = l2_capacity_story(topology);
  if (story.rows.empty()) return std::nullopt;
  TextTable table({{"Who"},
                   {"Capacity", TextTable::Align::right},
                   {"From", TextTable::Align::left, TextTable::Overflow::wrap}});
  for (const CapacityRow& row : story.rows) table.add_row({row.what, row.value, row.detail});
  return SummaryTable{"l2-capacity", "L2 capacity: one SM, its segments, every SM, the API",
                      std::move(table), {}, std::move(story.explanations)};
}

void render_l2_capacity(std::ostream& out, const Topology& topology, std::size_t max_width) {
  if (const auto summary = l2_capacity_summary(topology)) {
    out << render_summary_text(*summary, max_width);
  }
}

}  // namespace memtopo
