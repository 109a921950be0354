// The console's lines about the GPU's state: the shared-GPU banner, MIG, MPS and the lock in the
// header, and the conditions summary under the phases table.
#include "report/gpu_conditions_text.hpp"

#include <gtest/gtest.h>

#include "report/console.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

DeviceConditions sample(double sm_mhz, double celsius, double watts, std::uint64_t reasons = 0) {
  DeviceConditions c;
  c.sm_clock_mhz = sm_mhz;
  c.memory_clock_mhz = 3201;
  c.temperature_c = celsius;
  c.power_w = watts;
  c.clocks_event_reasons = reasons;
  return c;
}

TEST(GpuConditionsText, SummarisesTheRangesRepeatsAndMarks) {
  RunInfo run;
  PhaseTiming quiet("l1.size");
  quiet.conditions_before = sample(1980, 38, 80.5);
  quiet.conditions_after = sample(1980, 39, 112);
  quiet.timing_overhead = Spread{15, 15, 0, 15, 15, 15, 15, 12};
  PhaseTiming hot("l2.size");
  hot.conditions_before = sample(1755, 41, 300.26, clocks_event_reason::gpu_idle);
  hot.conditions_after = sample(1755, 41, 250, clocks_event_reason::sw_power_cap);
  hot.attempts = 2;
  hot.repeated_because = {"clocks slowed down (NVML: sw_power_cap)"};
  hot.disturbances = hot.repeated_because;
  hot.timing_overhead = Spread{16, 16, 0, 16, 16, 16, 16, 12};
  run.phases = {PhaseTiming("setup"), quiet, hot};
  EXPECT_EQ(conditions_summary(run),
            "  Device around the phases (NVML): SM clock 1755-1980 MHz, memory clock 3201 MHz, "
            "38-41 C, 80.5-300.3 W\n"
            "  Clock slowdowns (NVML): sw_power_cap\n"
            "  Phases repeated: l2.size; marked as disturbed: l2.size\n"
            "  Timing overhead (p50 per phase): 15-16 cycles\n");
}

TEST(GpuConditionsText, WithoutNvmlOnlyTheOverheadIsSaid) {
  RunInfo run;
  PhaseTiming phase("l1.size");
  phase.timing_overhead = Spread{16, 16, 0, 16, 16, 16, 16, 3};
  run.phases = {phase};
  EXPECT_EQ(conditions_summary(run), "  Timing overhead (p50 per phase): 16 cycles\n");
  EXPECT_EQ(conditions_summary(RunInfo{}), "");
}

TEST(GpuConditionsText, HeaderSaysUuidMigMpsAndLock) {
  Topology topology;
  EXPECT_EQ(gpu_sharing_header(topology), "") << "a simulated device has none of these";
  topology.device.uuid = "GPU-1";
  topology.device.mig = "disabled";
  topology.device.mps = "inactive";
  topology.run.gpu_lock = "/tmp/memtopo-GPU-1.lock";
  EXPECT_EQ(gpu_sharing_header(topology),
            "  GPU-1; MIG disabled; MPS inactive\n  lock /tmp/memtopo-GPU-1.lock\n");
}

TEST(GpuConditionsText, ASharedRunOpensWithABannerInTheConsole) {
  Topology topology = testing::make_sample_topology();
  EXPECT_EQ(render_console(topology).find("SHARED GPU"), std::string::npos);
  topology.run.shared_gpu = true;
  topology.run.other_gpu_processes = {{4242, "python3", std::nullopt}};
  const std::string console = render_console(topology);
  EXPECT_NE(console.find("SHARED GPU: other processes used the GPU (pid 4242 (python3)); every "
                         "result may be disturbed by their work\n"),
            std::string::npos)
      << console;
  EXPECT_LT(console.find("SHARED GPU"), console.find("Device 0")) << "above the header";
}

}  // namespace
}  // namespace memtopo
