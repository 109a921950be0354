// The runner with a device that reports its conditions (a fake NVML): phases disturbed by a
// moving clock, a slowdown or another process are repeated once, marked when it persists, and a
// drifting timing overhead is warned about.
#include "probes/core/phase_monitor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <thread>

#include "fakes.hpp"
#include "probes/core/runner.hpp"

namespace memtopo {
namespace {

using testing::FakeBackend;
using testing::FakeProbe;

DeviceConditions steady(double sm_mhz = 1980) {
  DeviceConditions c;
  c.sm_clock_mhz = sm_mhz;
  c.memory_clock_mhz = 3201;
  c.temperature_c = 40;
  c.power_w = 120;
  c.clocks_event_reasons = 0;
  c.other_processes = std::vector<GpuProcess>{};
  return c;
}

DeviceConditions throttled() {
  DeviceConditions c = steady(1410);
  c.clocks_event_reasons = clocks_event_reason::sw_thermal_slowdown;
  return c;
}

DeviceConditions shared() {
  DeviceConditions c = steady();
  c.other_processes = std::vector<GpuProcess>{{4242, "python3", 1ull << 30}};
  return c;
}

// Hands out the queued conditions one per call (the last one again when the queue runs dry)
// and traces whose timing overhead is `overhead`.
class ConditionsBackend : public FakeBackend {
 public:
  std::optional<DeviceConditions> conditions() override {
    if (queue.size() > 1) {
      DeviceConditions next = queue.front();
      queue.pop_front();
      return next;
    }
    return queue.empty() ? std::nullopt : std::optional<DeviceConditions>(queue.front());
  }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    std::vector<Trace> traces = FakeBackend::run(batch);
    for (Trace& trace : traces) trace.overhead_cycles = overhead;
    return traces;
  }

  std::deque<DeviceConditions> queue;
  double overhead = 15;
};

Property size_property_in_bytes(double bytes) {
  Property property;
  property.name = "size";
  property.value = bytes;
  property.unit = "bytes";
  return property;
}

struct MonitorFixture : ::testing::Test {
  ConditionsBackend backend;
  Topology topology;
  ProbeContext ctx{.backend = backend, .topology = topology};
  int runs = 0;

  // A probe that runs one chase and writes l1.size = 1024 * (number of the attempt).
  FakeProbe sizing{
      "l1.size", {}, [this](ProbeContext& c) {
        ++runs;
        c.run(std::vector<ChaseSpec>(1));
        c.topology.warnings.push_back("attempt " + std::to_string(runs));
        c.topology.element("l1", "cache", "sm").set(size_property_in_bytes(1024.0 * runs));
      }};
};

TEST_F(MonitorFixture, AQuietPhaseRunsOnceAndRecordsItsConditions) {
  backend.queue = {steady()};
  run_probes(ctx, {&sizing});
  EXPECT_EQ(runs, 1);
  const PhaseTiming& phase = topology.run.phases.at(0);
  EXPECT_EQ(phase.attempts, 1u);
  EXPECT_TRUE(phase.disturbances.empty());
  ASSERT_TRUE(phase.conditions_before && phase.conditions_after);
  EXPECT_EQ(phase.conditions_after->temperature_c, 40);
  ASSERT_TRUE(phase.timing_overhead);
  EXPECT_EQ(phase.timing_overhead->p50, 15);
  EXPECT_EQ(topology.warnings, std::vector<std::string>{"attempt 1"});
}

TEST_F(MonitorFixture, AClockThatMovedRepeatsThePhaseFromTheFindingsBeforeIt) {
  backend.queue = {steady(1980), steady(1500), steady(1500)};
  // Samples taken within 50 ms are reused; make each attempt's samples distinct.
  FakeProbe slow{
      "l1.size", {}, [this](ProbeContext& c) {
        ++runs;
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        c.topology.warnings.push_back("attempt " + std::to_string(runs));
        c.topology.element("l1", "cache", "sm").set(size_property_in_bytes(1024.0 * runs));
      }};
  run_probes(ctx, {&slow});
  EXPECT_EQ(runs, 2);
  const PhaseTiming& phase = topology.run.phases.at(0);
  EXPECT_EQ(phase.attempts, 2u);
  EXPECT_EQ(phase.repeated_because,
            std::vector<std::string>{"SM clock moved from 1980 to 1500 MHz"});
  EXPECT_TRUE(phase.disturbances.empty()) << "the second attempt ran at a steady 1500 MHz";
  EXPECT_EQ(topology.number("l1", "size"), 2048) << "the repeat's finding is kept";
  EXPECT_EQ(topology.warnings, std::vector<std::string>{"attempt 2"})
      << "the first attempt's warnings are rolled back with its findings";
  EXPECT_TRUE(topology.find("l1")->find("size")->note.empty());
}

TEST_F(MonitorFixture, ASlowdownThatPersistsMarksTheFindingsAndWarns) {
  backend.queue = {throttled()};
  run_probes(ctx, {&sizing});
  EXPECT_EQ(runs, 2);
  const PhaseTiming& phase = topology.run.phases.at(0);
  EXPECT_EQ(phase.attempts, 2u);
  ASSERT_EQ(phase.disturbances.size(), 1u);
  EXPECT_EQ(phase.disturbances[0], "clocks slowed down (NVML: sw_thermal_slowdown)");
  const Property* size = topology.find("l1")->find("size");
  EXPECT_NE(size->note.find("measured while the GPU was disturbed: clocks slowed down"),
            std::string::npos)
      << size->note;
  EXPECT_EQ(size->evidence["disturbed_by"][0], phase.disturbances[0]);
  ASSERT_EQ(topology.warnings.size(), 2u);
  EXPECT_NE(topology.warnings[1].find("l1.size was disturbed twice (clocks slowed down"),
            std::string::npos)
      << topology.warnings[1];
  EXPECT_NE(topology.warnings[1].find("its findings l1.size are marked"), std::string::npos);
  EXPECT_FALSE(topology.run.shared_gpu);
}

TEST_F(MonitorFixture, AnotherProcessThatStaysMarksTheRunShared) {
  backend.queue = {shared()};
  FakeProbe next("tex.size");
  run_probes(ctx, {&sizing, &next});
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(topology.run.shared_gpu);
  EXPECT_NE(topology.run.phases[0].disturbances.at(0).find(
                "another process used the GPU: pid 4242 (python3, 1 GiB)"),
            std::string::npos);
  EXPECT_EQ(topology.run.phases[1].attempts, 1u)
      << "once the run is marked shared, the process no longer repeats phases";
}

TEST_F(MonitorFixture, ProcessesAreExpectedOnASharedRun) {
  backend.queue = {shared()};
  topology.run.shared_gpu = true;  // --allow-shared
  run_probes(ctx, {&sizing});
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(topology.run.phases[0].disturbances.empty());
}

TEST_F(MonitorFixture, WithoutConditionsNothingIsRepeatedButTheOverheadIsTracked) {
  run_probes(ctx, {&sizing});
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(topology.run.phases[0].conditions_before);
  EXPECT_TRUE(topology.run.phases[0].timing_overhead);
}

TEST_F(MonitorFixture, AnOverheadDriftBeyondItsSpreadIsWarnedOnce) {
  FakeProbe few("l1.sector", {}, [this](ProbeContext& c) {
    backend.overhead = 30;  // too few traces to set the range
    c.run(std::vector<ChaseSpec>(2));
  });
  FakeProbe baseline("l1.size", {}, [this](ProbeContext& c) {
    backend.overhead = 15;
    c.run(std::vector<ChaseSpec>(8));
  });
  FakeProbe drifting("tex.size", {}, [this](ProbeContext& c) {
    backend.overhead = 19;
    c.run(std::vector<ChaseSpec>(3));
  });
  FakeProbe again("ro.size", {}, [](ProbeContext& c) { c.run(std::vector<ChaseSpec>(3)); });
  run_probes(ctx, {&few, &baseline, &drifting, &again});
  ASSERT_EQ(topology.warnings.size(), 1u);
  EXPECT_NE(topology.warnings[0].find("timing overhead drifted in tex.size: p50 19.0 cycles, "
                                      "outside the 15.0-15.0 of the 8 traces of l1.size"),
            std::string::npos)
      << topology.warnings[0];
}

TEST(PhaseDisturbances, IdleAndUserClockSettingsAreNoDisturbance) {
  DeviceConditions idle = steady();
  idle.clocks_event_reasons =
      clocks_event_reason::gpu_idle | clocks_event_reason::applications_clocks_setting;
  EXPECT_TRUE(phase_disturbances(idle, steady(), false).empty());
  EXPECT_TRUE(phase_disturbances(steady(1980), steady(1900), false).empty()) << "within 5 %";
  DeviceConditions memory_moved = steady();
  memory_moved.memory_clock_mhz = 1600;
  EXPECT_EQ(phase_disturbances(steady(), memory_moved, false),
            std::vector<std::string>{"memory clock moved from 3201 to 1600 MHz"});
  DeviceConditions unknown;  // NVML could not tell: nothing to judge
  EXPECT_TRUE(phase_disturbances(unknown, throttled(), true).size() == 1);
  EXPECT_TRUE(phase_disturbances(unknown, unknown, false).empty());
}

TEST(OverheadDrift, AllowsTheBaselinesRangeAndOneCycle) {
  PhaseTiming base("l1.size");
  base.timing_overhead = Spread{15, 15, 1, 13, 17, 12, 18, 40};
  PhaseTiming phase("l2.size");
  phase.timing_overhead = Spread{19, 19, 0, 19, 19, 19, 19, 1};
  EXPECT_FALSE(overhead_drift(base, phase)) << "19 <= max 18 + 1: one trace may stray so far";
  phase.timing_overhead->p50 = 19.5;
  EXPECT_TRUE(overhead_drift(base, phase));
  phase.timing_overhead->p50 = 10.5;
  EXPECT_TRUE(overhead_drift(base, phase));
  phase.timing_overhead.reset();
  EXPECT_FALSE(overhead_drift(base, phase));
}

TEST(OverheadDrift, ABaselineOfFewTracesSaysTooLittle) {
  PhaseTiming base("l1.size");
  base.timing_overhead = Spread{15, 15, 0, 15, 15, 15, 15, 3};
  PhaseTiming phase("l2.size");
  phase.timing_overhead = Spread{30, 30, 0, 30, 30, 30, 30, 40};
  EXPECT_FALSE(overhead_drift(base, phase));
}

}  // namespace
}  // namespace memtopo
