// The fleet rule (report/fleet.hpp, docs/fleet.md) on synthetic fleets with a known truth, and
// the reading of the runs it takes (one entry per GPU, multi-device runs included).
#include "report/fleet.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "model/json.hpp"
#include "report/fleet_render.hpp"
#include "report/multi_device_report.hpp"
#include "report/run_file.hpp"

namespace memtopo {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A latency with its own spread: stdev 3 cycles, p5..p95 = value -/+ 5.
Property latency(const std::string& name, double value) {
  Property p;
  p.name = name;
  p.value = value;
  p.unit = "cycles";
  p.confidence = 0.9;
  p.spread = Spread{value, value, 3, value - 5, value + 5, value - 8, value + 8, 1000};
  return p;
}

// A size found by a search whose final bracket is 64 KiB wide.
Property size(double bytes) {
  Property p;
  p.name = "size";
  p.value = bytes;
  p.unit = "bytes";
  p.confidence = 0.9;
  p.evidence["final_bracket"] = {bytes - 32768, bytes + 32768};
  return p;
}

struct GpuValues {
  double dram_latency = 522;
  double l2_size = 23.5 * kMiB;
  double tlb_penalty = 10;
};

Topology gpu(const GpuValues& values, int number, const std::string& model = "NVIDIA H200") {
  Topology t;
  t.device.name = model;
  t.device.cc_major = 9;
  t.device.sm_count = 132;
  t.device.uuid = "GPU-" + std::to_string(number);
  t.run.host = "node" + std::to_string(number / 8);
  t.element("dram", "memory", "device")
      .properties.push_back(latency("latency", values.dram_latency));
  t.element("l2", "cache", "device").properties.push_back(size(values.l2_size));
  t.element("tlb_l1", "tlb", "sm")
      .properties.push_back(latency("miss_penalty", values.tlb_penalty));
  return t;
}

// `count` GPUs whose values scatter by about one cycle and 32 KiB, seeded.
std::vector<RunEntry> fleet_of(int count, const std::string& model = "NVIDIA H200") {
  std::mt19937 random(38);
  std::normal_distribution<double> cycles(0.0, 1.0);
  std::vector<RunEntry> entries;
  for (int i = 0; i < count; ++i) {
    GpuValues values;
    values.dram_latency += cycles(random);
    values.tlb_penalty += 0.2 * cycles(random);
    values.l2_size += 32768 * std::round(cycles(random));
    entries.push_back({"gpu" + std::to_string(i) + ".json", gpu(values, i, model)});
  }
  return entries;
}

std::vector<std::pair<std::size_t, std::string>> outliers(const Fleet& fleet) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const FleetGroup& group : fleet.groups) {
    for (const FleetProperty& p : group.properties) {
      for (const FleetValue& v : p.values) {
        if (v.outlier) found.emplace_back(v.gpu, p.element + "." + p.property);
      }
    }
  }
  return found;
}

TEST(Fleet, FindsTheTwoPlantedOutliersOfTwoHundred) {
  std::vector<RunEntry> entries = fleet_of(200);
  entries[17].topology.elements[0].properties[0] = latency("latency", 541);  // DRAM 19 cy slower
  entries[123].topology.elements[1].properties[0] = size(20 * kMiB);         // 3.5 MiB of L2 gone
  const Fleet fleet = analyse_fleet(entries);
  ASSERT_EQ(fleet.groups.size(), 1u);
  EXPECT_FALSE(fleet.groups[0].too_small);
  const auto found = outliers(fleet);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], std::make_pair(std::size_t{17}, std::string("dram.latency")));
  EXPECT_EQ(found[1], std::make_pair(std::size_t{123}, std::string("l2.size")));
  EXPECT_EQ(fleet.outliers(), 2u);
  EXPECT_NE(render_fleet_text(fleet).find("node2 GPU-17"), std::string::npos);
}

TEST(Fleet, IdenticalRunsHaveNoOutlier) {
  std::vector<RunEntry> entries;
  for (int i = 0; i < 50; ++i) entries.push_back({"same.json", gpu(GpuValues{}, i)});
  const Fleet fleet = analyse_fleet(entries);
  EXPECT_EQ(fleet.outliers(), 0u);
  EXPECT_EQ(fleet.groups[0].properties.size(), 3u);
  EXPECT_EQ(fleet.groups[0].properties[0].robust_sigma, 0);
}

TEST(Fleet, ScatterWithoutAPlantedOutlierFlagsNothing) {
  EXPECT_EQ(analyse_fleet(fleet_of(500)).outliers(), 0u);
}

TEST(Fleet, AModelOfTwoGpusIsTooSmallToJudge) {
  std::vector<RunEntry> entries = fleet_of(2);
  entries[1].topology.elements[0].properties[0] = latency("latency", 700);
  const Fleet fleet = analyse_fleet(entries);
  ASSERT_EQ(fleet.groups.size(), 1u);
  EXPECT_TRUE(fleet.groups[0].too_small);
  EXPECT_EQ(fleet.outliers(), 0u);
  EXPECT_NE(render_fleet_text(fleet).find("too small to judge"), std::string::npos);
}

TEST(Fleet, DifferentModelsAreNeverCompared) {
  std::vector<RunEntry> entries = fleet_of(10);
  for (RunEntry& other : fleet_of(4, "NVIDIA A100")) {
    other.topology.elements[0].properties[0] = latency("latency", 400);  // every A100 alike
    entries.push_back(std::move(other));
  }
  const Fleet fleet = analyse_fleet(entries);
  ASSERT_EQ(fleet.groups.size(), 2u);
  EXPECT_EQ(fleet.groups[0].gpus.size(), 10u);
  EXPECT_EQ(fleet.groups[1].gpus.size(), 4u);
  EXPECT_EQ(fleet.outliers(), 0u);
}

TEST(Fleet, AValueFarFromTheFleetButWithinItsOwnUncertaintyIsNotAnOutlier) {
  std::vector<RunEntry> entries = fleet_of(100);
  Property noisy = latency("latency", 540);
  // 16 samples scattering by 20 cycles: its median is known to 1.2533 x 20 / 4 = 6.3 cycles,
  // and the fleet's (522) is within 3 of those.
  noisy.spread->stdev = 20;
  noisy.spread->samples = 16;
  entries[5].topology.elements[0].properties[0] = noisy;
  EXPECT_EQ(analyse_fleet(entries).outliers(), 0u);
  // The same loads' range with a thousand samples: the median is known to 0.8 cycles, and a
  // median 18 cycles from the fleet's is a GPU that differs, whatever its loads' range (an
  // H200's DRAM chase spans 497-548 cycles; two H200s' p50s differ by 22 in every run).
  noisy.spread->samples = 1000;
  entries[5].topology.elements[0].properties[0] = noisy;
  EXPECT_EQ(analyse_fleet(entries).outliers(), 1u);
}

TEST(Fleet, AWeakValueIsNeverAnOutlier) {
  std::vector<RunEntry> entries = fleet_of(20);
  Property weak = latency("latency", 600);
  weak.confidence = 0.33;  // its run doubted it (the H200's l2.bandwidth, five repeats at 0366023)
  entries[6].topology.elements[0].properties[0] = weak;
  const Fleet fleet = analyse_fleet(entries);
  EXPECT_EQ(fleet.outliers(), 0u);
  EXPECT_TRUE(fleet.groups[0].properties[0].values[6].weak);
}

TEST(Fleet, AnIncompleteRunIsLeftOut) {
  std::vector<RunEntry> entries = fleet_of(10);
  entries[3].topology.run.complete = false;
  entries[3].topology.elements[0].properties[0] = latency("latency", 900);
  const Fleet fleet = analyse_fleet(entries);
  EXPECT_EQ(fleet.groups[0].gpus.size(), 9u);
  EXPECT_EQ(fleet.groups[0].incomplete, std::vector<std::size_t>{3});
  EXPECT_EQ(fleet.outliers(), 0u);
}

TEST(Fleet, InconclusiveValuesAreCountedNotJudged) {
  std::vector<RunEntry> entries = fleet_of(10);
  entries[2].topology.elements[0].properties[0].inconclusive = true;
  const Fleet fleet = analyse_fleet(entries);
  EXPECT_EQ(fleet.groups[0].properties[0].not_conclusive, 1u);
  EXPECT_EQ(fleet.groups[0].properties[0].values.size(), 9u);
}

TEST(Fleet, JsonAndHtmlNameTheOutlier) {
  std::vector<RunEntry> entries = fleet_of(20);
  entries[4].topology.elements[0].properties[0] = latency("latency", 600);
  const Fleet fleet = analyse_fleet(entries);
  const auto json = fleet_to_json(fleet);
  EXPECT_EQ(json["schema"], kFleetSchema);
  EXPECT_EQ(json["outliers"], 1);
  EXPECT_EQ(json["models"][0]["properties"][0]["values"][4]["outlier"], true);
  const std::string html = render_fleet_html(fleet, RunInfo{});
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("node0 GPU-4"), std::string::npos);
}

TEST(RunEntries, AMultiDeviceRunIsOneEntryPerGpu) {
  MultiDeviceReport report;
  report.devices = {gpu(GpuValues{}, 0), gpu(GpuValues{}, 1)};
  report.devices[0].run.slurm = SlurmTask{"4242", 3, 1};
  const auto path = std::filesystem::temp_directory_path() / "memtopo-fleet-multi.json";
  std::ofstream(path) << render_multi_device_json(report);
  const std::vector<RunEntry> entries = read_run_entries(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].origin, path.string() + " devices[1]");
  EXPECT_EQ(entries[1].topology.device.uuid, "GPU-1");
  ASSERT_TRUE(entries[0].topology.run.slurm);
  EXPECT_EQ(entries[0].topology.run.slurm->job_id, "4242");
  EXPECT_EQ(entries[0].topology.run.slurm->proc_id, 3);
  EXPECT_EQ(entries[0].topology.run.slurm->local_id, 1);
  EXPECT_FALSE(entries[1].topology.run.slurm);
}

}  // namespace
}  // namespace memtopo
