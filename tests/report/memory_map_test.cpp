// The memory map (report/memory_map.hpp): its boxes and marks on hand-built topologies, and the
// SVG of recorded runs against golden files: a Hopper-like simulated run, a non-Hopper one
// (tests/validation/generations/ampere-a100.json) and a multi-device run (regenerate:
// MEMTOPO_UPDATE_GOLDEN=1 ctest --test-dir build -R MemoryMap, then review the diff).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "golden_file.hpp"
#include "report/memory_map.hpp"
#include "report/multi_device_report.hpp"
#include "report/run_file.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

using testing::measured_property;

Topology recorded_run(const std::string& name) {
  return read_run_file(std::string(MEMTOPO_SOURCE_DIR) + "/tests/data/memory_map/" + name);
}

const MapBox* box(const MemoryMap& map, const std::string& id) {
  const auto it = std::find_if(map.boxes.begin(), map.boxes.end(),
                               [&](const MapBox& b) { return b.id == id; });
  return it == map.boxes.end() ? nullptr : &*it;
}

std::string text_of(const MapBox& b) {
  std::string text;
  for (const MapText& line : b.lines) text += line.text + "\n";
  return text;
}

Topology small_device() {
  Topology t;
  t.device.name = "test <gpu>";
  t.device.sm_count = 8;
  t.device.l2_bytes = 4 << 20;
  Element& l1 = t.element("l1", "cache", "sm");
  l1.set(measured_property("size", 32768, "bytes", 0.95));
  l1.set(measured_property("latency", 30, "cycles", 0.9));
  l1.set(measured_property("shared_with", nlohmann::json::array({"tex"}), "", 0.9));
  Element& tex = t.element("tex", "cache", "sm");
  tex.set(measured_property("latency", 80, "cycles", 0.9));
  tex.set(measured_property("shared_with", nlohmann::json::array({"l1"}), "", 0.9));
  Element& c1 = t.element("constant_l1", "cache", "sm");
  c1.set(measured_property("latency", 40, "cycles", 0.3));  // low confidence
  Element& l2 = t.element("l2", "cache", "device");
  Property size = measured_property("size", 65536, "bytes", std::nullopt);
  size.inconclusive = true;
  size.bound = Bound::lower;
  l2.set(size);
  Property line = measured_property("line", nullptr, "bytes", std::nullopt);
  line.inconclusive = true;
  l2.set(line);
  Element& dram = t.element("dram", "memory", "device");
  Property latency = measured_property("latency", 542, "cycles", 0.88);
  latency.modes = {{"near", 542, 0.44, {}, 0.88, nlohmann::json::array()},
                   {"far", 730, 0.56, {}, 0.70, nlohmann::json::array()}};
  dram.set(latency);
  Property memory = measured_property("size", 1 << 30, "bytes", std::nullopt);
  memory.source = Source::api;
  dram.set(memory);
  return t;
}

TEST(MemoryMap, ElementsThatShareStorageAreOneBox) {
  const MemoryMap map = memory_map(small_device());
  const MapBox* shared = box(map, "l1+tex");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->title, "L1 / tex");
  EXPECT_NE(text_of(*shared).find("latency L1 30 · tex 80 cy"), std::string::npos)
      << text_of(*shared);
  EXPECT_EQ(box(map, "tex"), nullptr);
}

TEST(MemoryMap, ShowsBothModesOfALatency) {
  const MemoryMap map = memory_map(small_device());
  const MapBox* dram = box(map, "dram");
  ASSERT_NE(dram, nullptr);
  EXPECT_NE(text_of(*dram).find("latency 542 / 730 cy"), std::string::npos) << text_of(*dram);
  EXPECT_NE(text_of(*dram).find("1 GiB (api)"), std::string::npos);
}

TEST(MemoryMap, MarksLowConfidenceBoundsAndInconclusiveValues) {
  const MemoryMap map = memory_map(small_device());
  const MapBox* constant = box(map, "constant_l1");
  ASSERT_NE(constant, nullptr);
  EXPECT_TRUE(constant->low);
  EXPECT_NE(text_of(*constant).find("latency ~ 40 cy"), std::string::npos);
  const MapBox* l2 = box(map, "l2");
  ASSERT_NE(l2, nullptr);
  EXPECT_FALSE(l2->low);
  EXPECT_EQ(l2->lines.front().text, "≥ 64 KiB");
  EXPECT_TRUE(l2->lines.front().unsure);
  EXPECT_NE(text_of(*l2).find("line ?"), std::string::npos) << text_of(*l2);
  const std::string svg = render_memory_map_svg(map);
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\""), std::string::npos) << "the low box is dashed";
  EXPECT_NE(svg.find("test &lt;gpu&gt;"), std::string::npos) << "names are escaped";
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(MemoryMap, DrawsThePartitionsOfTheL2) {
  const MemoryMap map = memory_map(recorded_run("h200-0366023.json"));
  const MapBox* p0 = box(map, "l2-p0");
  const MapBox* p1 = box(map, "l2-p1");
  ASSERT_NE(p0, nullptr);
  ASSERT_NE(p1, nullptr);
  EXPECT_NE(text_of(*p0).find("66 SMs near: 0-1, 8-13"), std::string::npos) << text_of(*p0);
  const MapBox* l2 = box(map, "l2");
  ASSERT_NE(l2, nullptr);
  EXPECT_GE(p0->y, l2->y);
  EXPECT_LE(p0->y + p0->height, l2->y + l2->height) << "the partitions lie inside the L2";
  EXPECT_NE(box(map, "l1+tex+ro"), nullptr) << "l1, tex and ro share storage on the H200";
  const MapBox* dram = box(map, "dram");
  ASSERT_NE(dram, nullptr);
  EXPECT_NE(text_of(*dram).find("latency 521 / 707 cy"), std::string::npos) << text_of(*dram);
}

TEST(MemoryMap, NoBoxesNoPicture) {
  Topology empty;
  EXPECT_TRUE(memory_map(empty).boxes.empty());
  EXPECT_EQ(memory_map_svg(empty), "");
}

TEST(MemoryMap, BoxesStayInsideThePicture) {
  for (const char* run : {"hopper-like.json", "ampere-a100.json", "h200-0366023.json"}) {
    const MemoryMap map = memory_map(recorded_run(run));
    for (const MapBox& b : map.boxes) {
      EXPECT_GE(b.x, 0) << run << " " << b.id;
      EXPECT_LE(b.x + b.width, map.width + 0.01) << run << " " << b.id;
      EXPECT_LE(b.y + b.height, map.height) << run << " " << b.id;
    }
  }
}

TEST(MemoryMap, HopperLikeRunMatchesGolden) {
  testing::expect_matches_golden(memory_map_svg(recorded_run("hopper-like.json")),
                                 "memory-map-hopper-like.svg");
}

TEST(MemoryMap, AmpereRunMatchesGolden) {
  testing::expect_matches_golden(memory_map_svg(recorded_run("ampere-a100.json")),
                                 "memory-map-ampere-a100.svg");
}

Property pair_property(const char* name, nlohmann::json value, const std::string& unit,
                       std::optional<double> confidence, Source source = Source::measured) {
  Property p = measured_property(name, std::move(value), unit, confidence);
  p.source = source;
  return p;
}

MultiDeviceReport two_gpus() {
  MultiDeviceReport report;
  report.devices = {recorded_run("hopper-like.json"), recorded_run("hopper-like.json")};
  report.devices[1].device.device_index = 1;
  P2pReport p2p;
  p2p.devices = {{0, 0, "gpu a", ""}, {1, 1, "gpu b", ""}};
  for (int actor = 0; actor < 2; ++actor) {
    for (int memory : {1 - actor, kHostColumn}) {
      P2pPair pair{actor, memory, {}};
      const bool host = memory == kHostColumn;
      pair.set(pair_property(p2p_property::kLink, host ? "PCIe gen5 x16" : "NVLink x18 (v4)", "",
                             std::nullopt, Source::api));
      Property latency = pair_property(p2p_property::kLatency, host ? 2300 : 1800, "cycles", 0.9);
      latency.seconds_value = host ? 1.23e-6 : 0.933e-6;
      pair.set(latency);
      pair.set(pair_property(p2p_property::kSmRead, host ? 51.1e9 : 369.6e9, "bytes/second",
                             host ? 0.3 : 0.95));
      pair.set(pair_property(p2p_property::kCopyRead, host ? 55.3e9 : 389.6e9, "bytes/second",
                             0.95));
      p2p.pairs.push_back(pair);
    }
  }
  report.p2p = p2p;
  return report;
}

TEST(MemoryMap, MultiDeviceRunDrawsGpusAndTheirLinks) {
  const MemoryMap map = memory_map(two_gpus());
  EXPECT_NE(box(map, "gpu0"), nullptr);
  EXPECT_NE(box(map, "gpu1"), nullptr);
  EXPECT_NE(box(map, "host"), nullptr);
  ASSERT_EQ(map.links.size(), 3u) << "one GPU pair and two host links";
  EXPECT_EQ(map.links[0].label[0].text, "NVLink x18 (v4) (api)");
  EXPECT_EQ(map.links[0].label[1].text, "load 933 ns");
  EXPECT_TRUE(map.links[1].label[2].low) << "the host's SM read is of low confidence";
  testing::expect_matches_golden(render_memory_map_svg(map), "memory-map-two-gpus.svg");
}

TEST(MemoryMap, MultiDevicePageOpensWithTheGpusAndKeepsEachGpusMap) {
  const std::string html = render_multi_device_html(two_gpus());
  const std::size_t gpus = html.find("<figure id=\"map\" class=\"map\">");
  ASSERT_NE(gpus, std::string::npos);
  EXPECT_LT(gpus, html.find("id=\"gpu0-map\"")) << "the GPUs first, then each GPU's own map";
  EXPECT_NE(html.find("id=\"gpu1-map\""), std::string::npos);
}

}  // namespace
}  // namespace memtopo
