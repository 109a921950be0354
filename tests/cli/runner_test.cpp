#include "probes/core/runner.hpp"

#include <gtest/gtest.h>

#include "fakes.hpp"

namespace memtopo {
namespace {

using testing::FakeBackend;
using testing::FakeProbe;

std::vector<std::unique_ptr<Probe>> registry() {
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(std::make_unique<FakeProbe>("l1.size"));
  probes.push_back(std::make_unique<FakeProbe>("l1.line", std::vector<std::string>{"l1.size"}));
  probes.push_back(std::make_unique<FakeProbe>("l2.size"));
  probes.push_back(
      std::make_unique<FakeProbe>("l1.latency", std::vector<std::string>{"l1.line", "l2.size"}));
  probes.push_back(std::make_unique<FakeProbe>("tex.size"));
  return probes;
}

std::vector<std::string> ids(const std::vector<Probe*>& probes) {
  std::vector<std::string> out;
  for (const Probe* probe : probes) out.push_back(probe->id());
  return out;
}

using Ids = std::vector<std::string>;

Property size_in_bytes(double bytes) {
  Property property;
  property.name = "size";
  property.value = bytes;
  property.unit = "bytes";
  return property;
}

TEST(SelectProbes, EmptySelectionIsEveryProbeInRegistryOrder) {
  auto probes = registry();
  EXPECT_EQ(ids(select_probes(probes, {})),
            (Ids{"l1.size", "l1.line", "l2.size", "l1.latency", "tex.size"}));
}

TEST(SelectProbes, ProbeIdAddsWhatItNeedsTransitivelyAndFirst) {
  auto probes = registry();
  EXPECT_EQ(ids(select_probes(probes, {"l1.latency"})),
            (Ids{"l1.size", "l1.line", "l2.size", "l1.latency"}));
}

TEST(SelectProbes, ElementIdSelectsAllItsProbes) {
  auto probes = registry();
  EXPECT_EQ(ids(select_probes(probes, {"tex", "l1"})),
            (Ids{"l1.size", "l1.line", "l2.size", "l1.latency", "tex.size"}));
  EXPECT_EQ(ids(select_probes(probes, {"l2"})), (Ids{"l2.size"}));
}

TEST(SelectProbes, DuplicatesCollapse) {
  auto probes = registry();
  EXPECT_EQ(ids(select_probes(probes, {"l1.size", "l1.size", "l1"})),
            (Ids{"l1.size", "l1.line", "l2.size", "l1.latency"}));
}

TEST(SelectProbes, DependenciesGoFirstEvenWhenTheRegistryListsThemLater) {
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(std::make_unique<FakeProbe>("a.x", std::vector<std::string>{"b.x"}));
  probes.push_back(std::make_unique<FakeProbe>("c.x"));
  probes.push_back(std::make_unique<FakeProbe>("b.x"));
  EXPECT_EQ(ids(select_probes(probes, {})), (Ids{"c.x", "b.x", "a.x"}));
}

TEST(SelectProbes, UnknownIdListsTheValidOnes) {
  auto probes = registry();
  try {
    select_probes(probes, {"l1", "l9.size"});
    FAIL() << "expected SelectionError";
  } catch (const SelectionError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("unknown id 'l9.size'"), std::string::npos) << message;
    EXPECT_NE(message.find("Element ids: l1, l2, tex"), std::string::npos) << message;
    EXPECT_NE(message.find("l1.latency"), std::string::npos) << message;
  }
}

TEST(SelectProbes, CyclesAndMissingNeedsAreProgrammingErrors) {
  std::vector<std::unique_ptr<Probe>> cycle;
  cycle.push_back(std::make_unique<FakeProbe>("a.x", std::vector<std::string>{"b.x"}));
  cycle.push_back(std::make_unique<FakeProbe>("b.x", std::vector<std::string>{"a.x"}));
  EXPECT_THROW(select_probes(cycle, {}), std::logic_error);

  std::vector<std::unique_ptr<Probe>> missing;
  missing.push_back(std::make_unique<FakeProbe>("a.x", std::vector<std::string>{"z.x"}));
  EXPECT_THROW(select_probes(missing, {}), std::logic_error);
}

struct RunFixture : ::testing::Test {
  FakeBackend backend;
  Topology topology;
  ProbeContext ctx{.backend = backend, .topology = topology};
};

TEST_F(RunFixture, RecordsOnePhaseAndOneOutcomePerProbe) {
  FakeProbe ok("l1.size", {}, [](ProbeContext& c) {
    c.topology.element("l1", "cache", "sm").set(size_in_bytes(1024));
  });
  FakeProbe skipped("tex.size", {}, [](ProbeContext&) { throw ProbeSkipped("no texture path"); });
  FakeProbe failed("l2.size", {},
                   [](ProbeContext&) { throw std::runtime_error("no change point"); });
  FakeProbe out_of_memory("dram.size", {}, [](ProbeContext&) { throw OutOfMemoryError("8 GiB"); });
  run_probes(ctx, {&ok, &skipped, &failed, &out_of_memory});

  ASSERT_EQ(topology.run.phases.size(), 4u);
  EXPECT_EQ(topology.run.phases[1].name, "tex.size");
  EXPECT_GE(topology.run.phases[0].seconds, 0);
  ASSERT_EQ(topology.run.probes.size(), 4u);
  EXPECT_EQ(topology.run.probes[0].status, "ok");
  EXPECT_EQ(topology.run.probes[1].status, "skipped");
  EXPECT_EQ(topology.run.probes[1].reason, "no texture path");
  EXPECT_EQ(topology.run.probes[2].status, "failed");
  EXPECT_EQ(topology.run.probes[2].reason, "no change point");
  EXPECT_EQ(topology.run.probes[3].status, "skipped") << "free memory is not the probe's fault";
  EXPECT_EQ(topology.run.probes[3].reason, "not enough device memory: 8 GiB");
  EXPECT_TRUE(skipped_for_lack_of_memory(topology.run.probes[3]));
  EXPECT_FALSE(skipped_for_lack_of_memory(topology.run.probes[1]));
  EXPECT_EQ(topology.number("l1", "size"), 1024);
  ASSERT_EQ(topology.warnings.size(), 1u) << "one warning per failed probe, none for a skip";
  EXPECT_EQ(topology.warnings[0], "probe l2.size failed: no change point");
  EXPECT_FALSE(topology.run.interrupted);
}

TEST_F(RunFixture, RecordsClocksAndWarnsWhenTheClockMovedMoreThanFivePercent) {
  FakeProbe steady("l1.size");
  FakeProbe throttled("l1.latency");
  backend.clocks = {1500000, 1530000, 1500000, 1200000};  // +2%, then -20%
  run_probes(ctx, {&steady, &throttled});
  EXPECT_EQ(topology.run.phases[0].sm_clock_khz_before, 1500000);
  EXPECT_EQ(topology.run.phases[0].sm_clock_khz_after, 1530000);
  ASSERT_EQ(topology.warnings.size(), 1u);
  EXPECT_NE(topology.warnings[0].find("from 1500 MHz to 1200 MHz (-20%) during l1.latency"),
            std::string::npos)
      << topology.warnings[0];
}

TEST_F(RunFixture, UnknownClockIsLeftOut) {
  FakeProbe probe("l1.size");
  run_probes(ctx, {&probe});
  EXPECT_EQ(topology.run.phases[0].sm_clock_khz_before, std::nullopt);
  EXPECT_TRUE(topology.warnings.empty());
}

TEST_F(RunFixture, InterruptKeepsWhatWasMeasuredAndMarksTheRestNotRun) {
  bool stop = false;
  ctx.interrupted = [&] { return stop; };
  FakeProbe first("l1.size", {}, [](ProbeContext& c) {
    c.topology.element("l1", "cache", "sm").set(size_in_bytes(1));
  });
  FakeProbe second("l1.line", {}, [&](ProbeContext& c) {
    stop = true;  // the user presses Ctrl-C while this probe runs its batches
    c.check_interrupted();
  });
  FakeProbe third("l2.size");
  EXPECT_THROW(run_probes(ctx, {&first, &second, &third}), Interrupted);
  EXPECT_TRUE(topology.run.interrupted);
  ASSERT_EQ(topology.run.probes.size(), 3u);
  EXPECT_EQ(topology.run.probes[0].status, "ok");
  EXPECT_EQ(topology.run.probes[1].status, "not_run");
  EXPECT_EQ(topology.run.probes[2].status, "not_run");
  EXPECT_EQ(topology.run.probes[2].reason, "interrupted before it started");
  EXPECT_EQ(topology.run.phases.size(), 2u) << "the interrupted probe's time is still reported";
  EXPECT_TRUE(topology.find("l1"));
}

TEST_F(RunFixture, InterruptBeforeTheFirstProbeRunsNothing) {
  ctx.interrupted = [] { return true; };
  bool ran = false;
  FakeProbe probe("l1.size", {}, [&](ProbeContext&) { ran = true; });
  EXPECT_THROW(run_probes(ctx, {&probe}), Interrupted);
  EXPECT_FALSE(ran);
  EXPECT_EQ(topology.run.probes[0].status, "not_run");
  EXPECT_TRUE(topology.run.phases.empty());
}

TEST_F(RunFixture, ReportsProgressPerProbe) {
  std::vector<std::string> lines;
  ctx.progress = [&](const std::string& line) { lines.push_back(line); };
  FakeProbe a("l1.size"), b("l2.size");
  run_probes(ctx, {&a, &b});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "[2/2] l2.size: fake l2.size");
}

}  // namespace
}  // namespace memtopo
