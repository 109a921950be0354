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

// A DRAM latency of near and far modes: GPGPU-Sim gives every access one latency, so the
// increment is the typical one (modes weighted by their shares), and the note says so.
TEST(ExportAccelSim, ADramLatencyOfTwoModesExportsTheTypicalOne) {
  Topology t = measured_topology();
  Property& dram = *t.element("dram", "memory", "device").find("latency");
  dram.value = 521;
  dram.modes = {Mode{"near", 521, 0.44, {}, 0.84, nlohmann::json::array()},
                Mode{"far", 710, 0.56, {}, 0.6, nlohmann::json::array()}};
  const std::string text = render_accel_sim_config(t);
  // 0.44 x 521 + 0.56 x 710 = 626.84; minus 261.4.
  EXPECT_EQ(option_value(text, "-dram_latency"), "365");
  EXPECT_NE(text.find("# note: dram.latency has near and far modes (521 / 710 cy (44 % / 56 %)): "
                      "its typical latency 627 cy"),
            std::string::npos)
      << text;
  EXPECT_EQ(option_value(text, "-gpgpu_l2_rop_latency"), "228");  // one mode: as before
}

TEST(ExportAccelSim, CarveoutTableGivesTheAdaptiveL1Options) {
  const std::string text = render_accel_sim_config(measured_topology());
  EXPECT_EQ(option_value(text, "-gpgpu_unified_l1d_size"), "240");
  // From the reservations asked for (57 and 114 KiB), 0 included; no API facts in this run.
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_option"), "0,57,114");
}

// The options come from what was asked, plus the system's 1 KiB per block and the API's
// 228 KiB per SM, never from the measured L1: two identical GPUs whose L1 rows differ by a
// KiB (5,61,... on one H200 and 4,60,... on another) give the same list.
TEST(ExportAccelSim, CarveoutOptionsAreTheSameOnTwoIdenticalGpus) {
  Topology a = measured_topology();
  a.device.shared_per_sm_bytes = 233472;
  a.device.shared_per_block_optin_bytes = 232448;
  Topology b = a;
  Property& carveout = *b.element("l1", "cache", "sm").find("carveout");
  for (auto& row : carveout.value) row["l1_bytes"] = row["l1_bytes"].get<int>() - 1024;
  EXPECT_EQ(option_value(render_accel_sim_config(a), "-gpgpu_shmem_option"), "0,58,115,228");
  EXPECT_EQ(option_value(render_accel_sim_config(b), "-gpgpu_shmem_option"), "0,58,115,228");
}

// l1.sets inconclusive (the H200): the sets follow from size / (line x ways), with the
// confidence of the weakest input.
TEST(ExportAccelSim, L1SetsAreDerivedFromSizeLineAndWays) {
  Topology t = measured_topology();
  Element& l1 = t.element("l1", "cache", "sm");
  l1.find("sets")->inconclusive = true;
  l1.set(measured("size", 245760, "bytes", 1.0));
  l1.find("ways")->confidence = 0.72;
  const std::string text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1").substr(0, 12), "S:480:128:4,") << text;
  EXPECT_NE(text.find("# note: sets = l1.size / (line x ways) = 480 (l1.sets inconclusive)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# confidence: 0.72 (the weakest source)\n-gpgpu_cache:dl1"),
            std::string::npos)
      << text;
  l1.find("size")->value = 245760 + 128;  // not a whole number of sets: not written
  EXPECT_EQ(option_value(render_accel_sim_config(t), "-gpgpu_cache:dl1"), "");
}

TEST(ExportAccelSim, ConstantCacheAndApiFacts) {
  Topology t = measured_topology();
  Element& constant = t.element("constant_l1", "cache", "sm");
  constant.set(measured("size", 2048, "bytes"));
  constant.set(measured("line", 64, "bytes"));
  constant.set(measured("ways", 4, ""));
  constant.set(measured("sets", 8, ""));
  constant.set(measured("policy", "lru", ""));
  t.device.sm_count = 132;
  t.device.sm_clock_khz = 1980000;
  t.device.memory_clock_khz = 3201000;
  t.device.shared_per_sm_bytes = 233472;
  t.device.shared_per_block_bytes = 49152;
  const std::string text = render_accel_sim_config(t);
  EXPECT_EQ(option_value(text, "-gpgpu_const_cache:l1"), "N:8:64:4,L:R:f:N:L,S:2:64,4");
  EXPECT_EQ(option_value(text, "-gpgpu_n_clusters"), "132");
  EXPECT_EQ(option_value(text, "-gpgpu_n_cores_per_cluster"), "1");
  EXPECT_EQ(option_value(text, "-gpgpu_clock_domains"), "1980:1980:1980:3201");
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_size"), "233472");
  EXPECT_EQ(option_value(text, "-gpgpu_shmem_per_block"), "49152");
  EXPECT_NE(text.find("# source: api, device.sm_count = 132"), std::string::npos) << text;
  // Without the facts (a run file of an older schema): listed, not written.
  const std::string bare = render_accel_sim_config(measured_topology());
  EXPECT_EQ(option_value(bare, "-gpgpu_n_clusters"), "");
  EXPECT_NE(bare.find("#   -gpgpu_n_clusters ("), std::string::npos) << bare;
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
