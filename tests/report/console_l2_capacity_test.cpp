// The L2 capacity story (report/console_l2_capacity.hpp): one SM's size, the segments, the
// every-SM bracket from the bandwidth sweep and the API size, with what explains them.
#include "report/console_l2_capacity.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "sample_topology.hpp"

namespace memtopo {
namespace {

constexpr double kMiB = 1048576;

// The H200 at 875ae68: one SM 26.72 MiB, API 60 MiB; the all-SM read sweep (MiB, TB/s).
Topology h200_like(nlohmann::json segments_value, bool segments_sure, double one_sm_mib = 26.72) {
  Topology topology = testing::make_sample_topology();
  topology.device.l2_bytes = static_cast<std::uint64_t>(60 * kMiB);
  Element& l2 = topology.element("l2", "cache", "device");
  l2.set(testing::measured_property("size", one_sm_mib * kMiB, "bytes", 0.9));
  Property segments = testing::measured_property("segments", segments_value, "", 0.9);
  segments.inconclusive = !segments_sure;
  l2.set(segments);
  nlohmann::json points = nlohmann::json::array();
  const double sweep[][2] = {{11.2, 10.82}, {13.4, 10.76}, {15.9, 10.13}, {18.9, 9.9},
                             {22.5, 9.38},  {26.7, 9.6},   {31.8, 10.19}, {37.8, 10.33},
                             {44.9, 10.43}, {53.4, 10.44}, {63.5, 10.0},  {75.6, 8.88},
                             {89.9, 8.17},  {106.9, 7.78}, {213.8, 5.11}};
  for (const auto& point : sweep) points.push_back({point[0] * kMiB, point[1] * 1e12});
  Property bandwidth = testing::measured_property("bandwidth", 13.6e12, "bytes/second", 0.6);
  bandwidth.evidence["sweep"] = {{"points", points}};
  l2.set(bandwidth);
  return topology;
}

TEST(L2CapacityStory, EverySmKeepsTheApiSizeAndOneSmsShareIsUnexplained) {
  const CapacityStory story = l2_capacity_story(h200_like(1, false));
  ASSERT_EQ(story.rows.size(), 4u);
  EXPECT_EQ(story.rows[0].what, "API");
  EXPECT_EQ(story.rows[1].value, "26.72 MiB");
  EXPECT_EQ(story.rows[2].value, "at least 1 x 26.72 MiB");
  EXPECT_EQ(story.rows[3].value, "63.5 MiB to 75.6 MiB");
  ASSERT_EQ(story.explanations.size(), 2u);
  EXPECT_EQ(story.explanations[0],
            "unexplained: one SM fills 0.45 of the API's 60 MiB; at least 1 segment(s) of it make "
            "26.72 MiB (0.45), 33.28 MiB short");
  EXPECT_EQ(story.explanations[1],
            "explained: every SM together keeps at least about the API's 60 MiB at L2 speed (up "
            "to 63.5 MiB; the bandwidth falls gradually beyond, the footprint varies from run to "
            "run)");
  const auto all = all_sm_capacity(h200_like(1, false));
  ASSERT_TRUE(all.has_value());
  // The level: p50 of the points from 13.36 to 53.44 MiB (10.19 TB/s); 75.6 and 89.9 MiB
  // lie below 90 % of it, two in a row.
  EXPECT_NEAR(all->level_bytes_per_second, 10.19e12, 1e9);
  EXPECT_DOUBLE_EQ(all->held_bytes, 63.5 * kMiB);
}

// One point below the band is noise; two in a row end the L2 level.
TEST(L2CapacityStory, OneLowPointDoesNotEndTheL2Level) {
  Topology topology = h200_like(1, false);
  Property& bandwidth = *topology.element("l2", "cache", "device").find("bandwidth");
  nlohmann::json& points = bandwidth.evidence["sweep"]["points"];
  for (auto& point : points) {
    if (point[0].get<double>() == 37.8 * kMiB) point[1] = 8.0e12;  // one dip
  }
  const auto all = all_sm_capacity(topology);
  ASSERT_TRUE(all.has_value());
  EXPECT_DOUBLE_EQ(all->held_bytes, 63.5 * kMiB);
  ASSERT_TRUE(all->lost_bytes.has_value());
  EXPECT_DOUBLE_EQ(*all->lost_bytes, 75.6 * kMiB);
}

TEST(L2CapacityStory, AnEverySmLevelBelowTheApiSizeIsUnexplained) {
  Topology topology = h200_like(1, false);
  topology.device.l2_bytes = static_cast<std::uint64_t>(120 * kMiB);
  const CapacityStory story = l2_capacity_story(topology);
  ASSERT_EQ(story.explanations.size(), 2u);
  EXPECT_EQ(story.explanations[1],
            "unexplained: every SM together keeps only 63.5 MiB at L2 speed, against the API's "
            "120 MiB");
}

TEST(L2CapacityStory, SegmentsThatMakeUpTheApiSizeExplainOneSm) {
  const CapacityStory story = l2_capacity_story(h200_like(2, true, 30));
  ASSERT_FALSE(story.explanations.empty());
  EXPECT_EQ(story.explanations[0],
            "explained: one SM fills one of 2 segments, and the segments make up the API's size");
}

TEST(L2CapacityStory, NothingWithoutAMeasuredOneSmSize) {
  Topology topology = testing::make_sample_topology();  // its l2.size is the API's
  EXPECT_TRUE(l2_capacity_story(topology).rows.empty());
  std::ostringstream out;
  render_l2_capacity(out, topology, 120);
  EXPECT_EQ(out.str(), "");
}

TEST(L2CapacityStory, TheConsoleSectionShowsTheRowsAndTheExplanations) {
  std::ostringstream out;
  render_l2_capacity(out, h200_like(1, false), 120);
  const std::string text = out.str();
  EXPECT_NE(text.find("L2 capacity: one SM, its segments, every SM, the API"), std::string::npos);
  EXPECT_NE(text.find("63.5 MiB to 75.6 MiB  every SM reading"), std::string::npos) << text;
  EXPECT_NE(text.find("  unexplained: one SM fills 0.45"), std::string::npos) << text;
}

}  // namespace
}  // namespace memtopo
