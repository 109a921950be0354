// The console's Hopper section: DSMEM scalars and placement, the TMA tile table, and the Hopper
// elements kept out of the elements table.
#include <gtest/gtest.h>

#include <string>

#include "report/console.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

Property measured(const std::string& name, nlohmann::json value, const std::string& unit) {
  return testing::measured_property(name, std::move(value), unit, 0.97);
}

Topology with_hopper() {
  Topology topology = testing::make_sample_topology();
  Element& dsmem = topology.element("dsmem", "scratchpad", "cluster");
  dsmem.set(measured("latency_local", 31.5, "cycles"));
  dsmem.set(measured("latency_remote", 201.25, "cycles"));
  dsmem.set(measured("max_cluster_size", 16, "blocks"));
  dsmem.set(measured(
      "placement",
      nlohmann::json::array(
          {{{"cluster_size", 2},
            {"ranks", nlohmann::json::array({{{"rank", 0}, {"sm", 4}, {"cycles_p50", 31}},
                                             {{"rank", 1}, {"sm", 5}, {"cycles_p50", 201}}})}}}),
      ""));
  Element& tma = topology.element("tma", "copy_engine", "sm");
  tma.set(measured("copy_latency",
                   nlohmann::json::array({{{"method", "bulk_1d"},
                                           {"rows", 1},
                                           {"row_bytes", 4096},
                                           {"tile_bytes", 4096},
                                           {"p50", 812}},
                                          {{"method", "tensor_2d"},
                                           {"rows", 64},
                                           {"row_bytes", 256},
                                           {"tile_bytes", 16384},
                                           {"skipped", "no tensor maps"}}}),
                   "cycles"));
  return topology;
}

TEST(ConsoleHopper, SectionShowsScalarsPlacementAndTiles) {
  const std::string text = render_console(with_hopper());
  const auto section = text.find("Hopper: distributed shared memory");
  ASSERT_NE(section, std::string::npos) << text;
  const std::string hopper = text.substr(section);
  EXPECT_NE(hopper.find("dsmem.latency_remote"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("201.2"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("1:SM5 201"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("bulk_1d"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("812"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("skipped"), std::string::npos) << hopper;
  // Not in the elements table, nor among the other findings.
  EXPECT_EQ(text.substr(0, section).find("dsmem"), std::string::npos) << text;
}

TEST(ConsoleHopper, NoSectionWithoutHopperElements) {
  const std::string text = render_console(testing::make_sample_topology());
  EXPECT_EQ(text.find("Hopper:"), std::string::npos);
}

}  // namespace
}  // namespace memtopo
