// The JSON of what the GPU was doing: device conditions around phases, repeated phases, the
// timing overhead per phase, a shared GPU, MIG and MPS.
#include <gtest/gtest.h>

#include "model/json.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

using nlohmann::ordered_json;

DeviceConditions throttled_conditions() {
  DeviceConditions c;
  c.sm_clock_mhz = 1410;
  c.memory_clock_mhz = 3201;
  c.temperature_c = 84;
  c.power_w = 612.5;
  c.clocks_event_reasons = clocks_event_reason::sw_thermal_slowdown | clocks_event_reason::gpu_idle;
  c.other_processes =
      std::vector<GpuProcess>{{4242, "python3", 2ull << 30}, {77, "", std::nullopt}};
  return c;
}

Topology topology_with_conditions() {
  Topology topology = testing::make_sample_topology();
  PhaseTiming& phase = topology.run.phases[1];
  phase.conditions_before = DeviceConditions{};
  phase.conditions_before->sm_clock_mhz = 1980;
  phase.conditions_after = throttled_conditions();
  phase.attempts = 2;
  phase.repeated_because = {"SM clock moved from 1980 to 1410 MHz"};
  phase.disturbances = {"slowdown: sw_thermal_slowdown"};
  phase.timing_overhead = Spread{15, 15.2, 0.4, 15, 16, 15, 17, 96};
  topology.run.shared_gpu = true;
  topology.run.other_gpu_processes = {{4242, "python3", 1ull << 20}};
  topology.run.gpu_lock = "/tmp/memtopo-GPU-1234.lock";
  topology.device.uuid = "GPU-12345678-9abc-def0-1234-56789abcdef0";
  topology.device.mig = "disabled";
  topology.device.mps = "inactive";
  return topology;
}

TEST(ConditionsJson, RoundTripIsLossless) {
  const Topology original = topology_with_conditions();
  const ordered_json written = topology_to_json(original);
  const Topology back = topology_from_json(written, "memory");
  EXPECT_EQ(topology_to_json(back), written);

  const PhaseTiming& phase = back.run.phases[1];
  ASSERT_TRUE(phase.conditions_after && phase.conditions_after->other_processes);
  EXPECT_EQ(phase.conditions_after->clocks_event_reasons,
            clocks_event_reason::sw_thermal_slowdown | clocks_event_reason::gpu_idle);
  EXPECT_EQ(phase.conditions_after->other_processes->at(0).pid, 4242u);
  EXPECT_EQ(phase.conditions_after->other_processes->at(1).used_memory_bytes, std::nullopt);
  EXPECT_EQ(phase.conditions_before->temperature_c, std::nullopt);
  EXPECT_EQ(phase.attempts, 2u);
  EXPECT_EQ(phase.timing_overhead->samples, 96u);
  EXPECT_TRUE(back.run.shared_gpu);
  EXPECT_EQ(back.run.other_gpu_processes.at(0).name, "python3");
  EXPECT_EQ(back.device.mig, "disabled");
}

TEST(ConditionsJson, ReasonsAreWrittenByNameAndPhasesWithoutConditionsStayShort) {
  const ordered_json doc = topology_to_json(topology_with_conditions());
  const ordered_json& after = doc["run"]["phases"][1]["conditions_after"];
  EXPECT_EQ(after["clocks_event_reasons"], ordered_json({"gpu_idle", "sw_thermal_slowdown"}));
  EXPECT_EQ(after["power_w"], 612.5);
  EXPECT_TRUE(doc["run"]["phases"][1]["conditions_before"]["power_w"].is_null());
  const ordered_json& plain = doc["run"]["phases"][0];
  EXPECT_FALSE(plain.contains("conditions_before"));
  EXPECT_FALSE(plain.contains("attempts"));
  EXPECT_FALSE(plain.contains("timing_overhead_cycles"));
  EXPECT_EQ(doc["run"]["shared_gpu"], true);
}

TEST(ConditionsJson, AWrongTypeNamesThePath) {
  ordered_json doc = topology_to_json(topology_with_conditions());
  doc["run"]["phases"][1]["conditions_after"]["other_processes"][0]["pid"] = "x";
  try {
    topology_from_json(doc, "in.json");
    FAIL() << "expected TopologyJsonError";
  } catch (const TopologyJsonError& error) {
    EXPECT_NE(std::string(error.what()).find("conditions_after.other_processes[0].pid"),
              std::string::npos)
        << error.what();
  }
}

TEST(ClocksEventReasons, NamesAndMaskAreInverse) {
  const std::uint64_t mask = clocks_event_reason::hw_slowdown |
                             clocks_event_reason::applications_clocks_setting | (1ull << 40);
  const std::vector<std::string> names = clocks_event_reason_names(mask);
  EXPECT_EQ(names,
            (std::vector<std::string>{"applications_clocks_setting", "hw_slowdown", "bit_40"}));
  EXPECT_EQ(clocks_event_reasons_from_names(names), mask);
  EXPECT_TRUE(clocks_event_reason_names(0).empty());
  EXPECT_EQ(clocks_event_reasons_from_names({"bit_99", "bit_x", "nonsense"}), 0u);
}

TEST(ClocksEventReasons, IdleAndUserSettingsAreNoSlowdown) {
  using namespace clocks_event_reason;
  EXPECT_EQ(
      slowdowns & (gpu_idle | applications_clocks_setting | display_clock_setting | sync_boost),
      0u);
  EXPECT_NE(slowdowns & sw_power_cap, 0u);
  EXPECT_NE(slowdowns & hw_thermal_slowdown, 0u);
}

TEST(GpuProcessText, SaysPidNameAndMemory) {
  EXPECT_EQ(describe_process({4242, "python3", 2ull << 30}), "pid 4242 (python3, 2 GiB)");
  EXPECT_EQ(describe_process({7, "", std::nullopt}), "pid 7");
  EXPECT_EQ(describe_processes({{1, "a", std::nullopt}, {2, "", 1024}}),
            "pid 1 (a), pid 2 (1 KiB)");
}

}  // namespace
}  // namespace memtopo
