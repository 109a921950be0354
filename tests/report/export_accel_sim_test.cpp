// The Accel-Sim export (report/export_accel_sim.hpp) on a hand-built topology: the dl1 string
// carries the measured geometry, latencies are the tuner's increments, the carveout table
// becomes the adaptive L1's options, and what was not measured is listed, not guessed.
#include <gtest/gtest.h>

#include <algorithm>

#include <regex>

#include "report/export_accel_sim.hpp"

namespace memtopo {
namespace {

Property measured(const std::string& name, nlohmann::json value, const std::string& unit,
                  double confidence = 0.9) {
  Property p;
  p.name = name;
  p.value = std::move(value);
  p.unit = unit;
  p.method = "a method";
  p.confidence = confidence;
  return p;
}

Topology measured_topology() {
  Topology t;
  t.device.name = "test device";
  Element& l1 = t.element("l1", "cache", "sm");
  l1.set(measured("sets", 480, ""));
  l1.set(measured("line", 128, "bytes"));
  l1.set(measured("ways", 4, ""));
  l1.set(measured("sector", 32, "bytes"));
  l1.set(measured("policy", "fifo", ""));
  l1.set(measured("latency", 33, "cycles"));
  // Unified 240 KiB; the device's carveouts 0, 64, 132 KiB for reservations 0, 57, 114 KiB.
  l1.set(
      measured("carveout",
               nlohmann::json::array({{{"l1_bytes", 245760}, {"reserved_shared_bytes", 0}},
                                      {{"l1_bytes", 180224}, {"reserved_shared_bytes", 58368}},
                                      {{"l1_bytes", 110592}, {"reserved_shared_bytes", 116736}}}),
               "bytes"));
  t.element("l2", "cache", "device").set(measured("latency", 261.4, "cycles", 0.5));
  t.element("dram", "memory", "device").set(measured("latency", 480, "cycles"));
  Element& shared = t.element("shared", "scratchpad", "sm");
  shared.set(measured("latency", 29, "cycles"));
  shared.set(measured("banks", 32, ""));
  return t;
}

std::string option_value(const std::string& text, const std::string& option) {
  std::smatch match;
  const std::regex line("(^|\n)" + option + " ([^\n]*)");
  return std::regex_search(text, match, line) ? match[2].str() : "";
}

TEST(ExportAccelSim, Dl1CarriesTheMeasuredGeometry) {
  const std::string text = render_accel_sim_config(measured_topology());
  EXPECT_EQ(
      option_value(text, "-gpgpu_cache:dl1"),
      std::string("S:480:128:4,F:") + kAccelSimHopperDl1Policies + "," + kAccelSimHopperDl1Rest);
  EXPECT_NE(text.find("# source: l1.sets = 480, measured, a method, confidence 0.9"),
            std::string::npos)
      << text;
}

TEST(ExportAccelSim, UnsectoredLineAndUnknownPolicy) {
  Topology t = measured_topology();
  Element& l1 = t.element("l1", "cache", "sm");
  l1.set(measured("sector", 128, "bytes"));
  l1.set(measured("policy", "random", ""));
  const std::string text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1").substr(0, 13), "N:480:128:4,L");
  EXPECT_NE(text.find("'random' has no GPGPU-Sim letter"), std::string::npos);
}

// The L2's letter comes from what a miss fetches (l2.fetch_granularity), or, in a run written
// before that name existed, from l2.sector.
TEST(ExportAccelSim, Dl2IsSectoredWhenAMissFetchesLessThanALine) {
  Topology t = measured_topology();
  Element& l2 = t.element("l2", "cache", "device");
  l2.set(measured("size", 50331648, "bytes"));
  l2.set(measured("line", 128, "bytes"));
  l2.set(measured("ways", 16, ""));
  l2.set(measured("fetch_granularity", 128, "bytes"));
  l2.set(measured("sector", 32, "bytes"));  // ignored beside the new name
  std::string text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl2").substr(0, 1), "N") << text;
  EXPECT_NE(text.find("l2.fetch_granularity = 128 B"), std::string::npos) << text;
  l2.properties.erase(std::remove_if(l2.properties.begin(), l2.properties.end(),
                                     [](const Property& p) { return p.name == "fetch_granularity"; }),
                      l2.properties.end());
  text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl2").substr(0, 1), "S") << text;
}

TEST(ExportAccelSim, LatenciesAreTheTunersIncrements) {
  const std::string text = render_accel_sim_config(measured_topology());
  EXPECT_EQ(option_value(text, "-gpgpu_l1_latency"), "33");
  EXPECT_EQ(option_value(text, "-gpgpu_smem_latency"), "29");
  EXPECT_EQ(option_value(text, "-gpgpu_l2_rop_latency"), "228");  // 261.4 - 33
  EXPECT_EQ(option_value(text, "-dram_latency"), "219");          // 480 - 261.4
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_num_banks"), "32");
}

TEST(ExportAccelSim, CarveoutTableGivesTheAdaptiveL1Options) {
  const std::string text = render_accel_sim_config(measured_topology());
  EXPECT_EQ(option_value(text, "-gpgpu_unified_l1d_size"), "240");
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_option"), "0,64,132");
}

TEST(ExportAccelSim, WhatWasNotMeasuredIsListedNotWritten) {
  Topology t = measured_topology();
  Element& l1 = t.element("l1", "cache", "sm");
  l1.find("ways")->inconclusive = true;
  const std::string text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1"), "");
  const auto not_measured = text.find("# not measured:");
  ASSERT_NE(not_measured, std::string::npos);
  EXPECT_NE(text.find("-gpgpu_cache:dl1 (l1.ways inconclusive)", not_measured), std::string::npos);
  EXPECT_NE(text.find("-gpgpu_cache:dl2 (l2.size not in the run", not_measured), std::string::npos)
      << text;
}

}  // namespace
}  // namespace memtopo

namespace memtopo {
namespace {

// A value out of its option's range (what a malformed run could hold even with every type
// right): the option is listed as not derivable, never written. Strings, 1e308 and 2^64 once
// became LLONG_MIN, and a string reached an empty optional.
TEST(ExportAccelSim, ValuesOutsideAnOptionsRangeAreListedNotWritten) {
  const auto with = [](const std::string& element, const std::string& name, nlohmann::json value) {
    Topology t = measured_topology();
    Property changed = *t.find(element)->find(name);
    changed.value = std::move(value);
    t.element(element, "", "").set(changed);
    return render_accel_sim_config(t);
  };
  std::string text = with("shared", "banks", 0);
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_num_banks"), "");
  EXPECT_NE(text.find("-gpgpu_shmem_num_banks (shared.banks = 0 is outside 1 to 1024)"),
            std::string::npos)
      << text;
  text = with("l1", "ways", 0);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1"), "");
  EXPECT_NE(text.find("l1.ways = 0 is outside 1 to 65536"), std::string::npos) << text;
  text = with("l1", "line", 1e308);
  EXPECT_NE(text.find("l1.line = 1e+308 is outside"), std::string::npos) << text;
  text = with("l1", "line", "128");
  EXPECT_NE(text.find("l1.line is not a number"), std::string::npos) << text;
  text = with("l1", "sets", std::uint64_t{1} << 63);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1"), "");
  // 480 cycles of DRAM after 261 of L2 is an increment of 219; 200 would be negative.
  text = with("dram", "latency", 200);
  EXPECT_EQ(option_value(text, "-dram_latency"), "");
  EXPECT_NE(text.find("dram.latency - l2.latency = -61.4 is outside 0 to 1000000"),
            std::string::npos)
      << text;
  text = with("l1", "carveout",
              nlohmann::json::array({{{"l1_bytes", -5}, {"reserved_shared_bytes", 0}}}));
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_option"), "");
  EXPECT_NE(text.find("l1.carveout row 0: l1_bytes = -5 is outside"), std::string::npos) << text;
  EXPECT_EQ(text.find("-9223372036854775808"), std::string::npos) << text;
}

}  // namespace
}  // namespace memtopo
