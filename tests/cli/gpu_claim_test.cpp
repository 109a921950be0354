// What memtopo does about other processes on the GPU before the first probe, and the options
// that set it (--wait, --allow-shared).
#include "cli/gpu_claim.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <sstream>

#include "cli/exit_codes.hpp"
#include "fakes.hpp"

namespace memtopo {
namespace {

using namespace std::chrono_literals;

DeviceFacts h200() {
  DeviceFacts facts;
  facts.name = "NVIDIA H200";
  facts.uuid = "GPU-12345678-9abc-def0-1234-56789abcdef0";
  facts.nvml_status = "ok";
  return facts;
}

DeviceConditions with_others(std::vector<GpuProcess> others) {
  DeviceConditions conditions;
  conditions.other_processes = std::move(others);
  return conditions;
}

TEST(JudgeSharing, AloneGoesOnQuietly) {
  const SharingVerdict verdict = judge_sharing(h200(), with_others({}), false);
  EXPECT_FALSE(verdict.refuse);
  EXPECT_FALSE(verdict.shared);
  EXPECT_TRUE(verdict.message.empty());
  EXPECT_TRUE(verdict.warning.empty());
}

TEST(JudgeSharing, AnotherProcessStopsTheRunNamingItAndTheWayOut) {
  const SharingVerdict verdict =
      judge_sharing(h200(), with_others({{4242, "python3", 2ull << 30}}), false);
  EXPECT_TRUE(verdict.refuse);
  EXPECT_NE(verdict.message.find("GPU 0 (NVIDIA H200, GPU-12345678-9abc-def0-1234-56789abcdef0) "
                                 "is in use by another process: pid 4242 (python3, 2 GiB)"),
            std::string::npos)
      << verdict.message;
  EXPECT_NE(verdict.message.find("--allow-shared"), std::string::npos);
  EXPECT_NE(verdict.message.find("nvidia-smi"), std::string::npos);
}

TEST(JudgeSharing, AllowSharedGoesOnMarkingTheRun) {
  const SharingVerdict verdict = judge_sharing(h200(), with_others({{4242, "", 1024}}), true);
  EXPECT_FALSE(verdict.refuse);
  EXPECT_TRUE(verdict.shared);
  EXPECT_EQ(verdict.others.size(), 1u);
  EXPECT_NE(verdict.warning.find("measured on a shared GPU (--allow-shared): pid 4242 (1 KiB)"),
            std::string::npos)
      << verdict.warning;
}

TEST(JudgeSharing, NotKnowingIsAWarningNotARefusal) {
  DeviceFacts facts = h200();
  facts.nvml_status = "cannot load libnvidia-ml.so.1";
  SharingVerdict verdict = judge_sharing(facts, std::nullopt, false);
  EXPECT_FALSE(verdict.refuse);
  EXPECT_NE(verdict.warning.find("cannot tell whether another process uses GPU 0"),
            std::string::npos);
  EXPECT_NE(verdict.warning.find("NVML: cannot load libnvidia-ml.so.1"), std::string::npos);
  verdict = judge_sharing(h200(), DeviceConditions{}, false);
  EXPECT_NE(verdict.warning.find("NVML cannot list its processes"), std::string::npos);
}

// A backend whose process list changes from call to call.
class ProcessesBackend : public testing::FakeBackend {
 public:
  std::optional<DeviceConditions> conditions() override {
    ++calls;
    DeviceConditions next = lists.front();
    if (lists.size() > 1) lists.pop_front();
    return next;
  }
  std::deque<DeviceConditions> lists;
  int calls = 0;
};

TEST(SettledConditions, AMemtopoThatJustLeftIsGivenAMomentToGo) {
  ProcessesBackend backend;
  backend.lists = {with_others({{77, "memtopo", std::nullopt}}), with_others({})};
  const auto settled = settled_conditions(backend, 2s);
  ASSERT_TRUE(settled && settled->other_processes);
  EXPECT_TRUE(settled->other_processes->empty());
  EXPECT_EQ(backend.calls, 2);
}

TEST(SettledConditions, AProcessThatStaysIsStillThereAfterTheMoment) {
  ProcessesBackend backend;
  backend.lists = {with_others({{77, "python3", std::nullopt}})};
  const auto start = std::chrono::steady_clock::now();
  const auto settled = settled_conditions(backend, 300ms);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(settled->other_processes->size(), 1u);
}

TEST(CheckGpuSharing, RefusesWithItsExitCodeAndRecordsASharedRun) {
  ProcessesBackend backend;
  backend.lists = {with_others({{4242, "python3", std::nullopt}})};
  GpuClaim claim;
  Options options;
  Topology topology;
  topology.device = h200();
  std::ostringstream err;
  EXPECT_EQ(check_gpu_sharing(backend, /*simulated=*/true, claim, options, topology, err),
            exit_code::ok)
      << "a simulated device shares nothing";
  options.allow_shared = true;
  EXPECT_EQ(check_gpu_sharing(backend, false, claim, options, topology, err), exit_code::ok);
  EXPECT_TRUE(topology.run.shared_gpu);
  EXPECT_EQ(topology.run.other_gpu_processes.at(0).pid, 4242u);
  ASSERT_EQ(topology.warnings.size(), 1u);
  EXPECT_NE(err.str().find("memtopo: warning: measured on a shared GPU"), std::string::npos);
}

struct Parsed {
  CommandLine command_line;
  std::string err;
};

Parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "memtopo");
  std::ostringstream out, err;
  CommandLine command_line =
      parse_command_line(static_cast<int>(args.size()), args.data(), out, err);
  return {command_line, err.str()};
}

TEST(SharingOptions, WaitAndAllowShared) {
  Parsed p = parse({});
  ASSERT_TRUE(p.command_line.options);
  EXPECT_FALSE(p.command_line.options->wait_seconds) << "by default memtopo waits";
  EXPECT_FALSE(p.command_line.options->allow_shared);
  p = parse({"--wait", "2.5", "--allow-shared"});
  ASSERT_TRUE(p.command_line.options) << p.err;
  EXPECT_EQ(p.command_line.options->wait_seconds, 2.5);
  EXPECT_TRUE(p.command_line.options->allow_shared);
  p = parse({"--wait", "0"});
  EXPECT_EQ(p.command_line.options->wait_seconds, 0.0);
}

TEST(SharingOptions, AWaitThatIsNoDurationIsAUsageError) {
  for (const char* bad : {"-1", "soon", "", "1e9", "nan"}) {
    Parsed p = parse({"--wait", bad});
    EXPECT_FALSE(p.command_line.options) << bad;
    EXPECT_EQ(p.command_line.exit_code, exit_code::usage) << bad;
    EXPECT_NE(p.err.find("is not a number of seconds"), std::string::npos) << bad << ": " << p.err;
  }
}

}  // namespace
}  // namespace memtopo
