// Host logic of the CUDA backend's view of the other processes on its GPU, on NVML answers
// written by hand: which process is memtopo's own (in a container too), MPS, the UUID's text.
#include "backend/cuda/gpu_sharing.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace memtopo {
namespace {

using Pids = std::set<std::uint32_t>;

GpuProcess process(std::uint32_t pid, std::string name = "") {
  return GpuProcess{pid, std::move(name), std::nullopt};
}

TEST(OwnGpuPids, OurPidWhenNvmlListsIt) {
  EXPECT_EQ(own_gpu_pids(100, {process(7)}, {process(7), process(100)}), Pids{100});
  EXPECT_EQ(own_gpu_pids(100, {}, {process(100), process(8)}), Pids{100})
      << "a process that came at the same time is another";
}

TEST(OwnGpuPids, InAContainerTheOneProcessThatCameWithOurContext) {
  // NVML speaks host PIDs; getpid() in the container says 12.
  EXPECT_EQ(own_gpu_pids(12, {process(7)}, {process(7), process(31337)}), Pids{31337});
}

TEST(OwnGpuPids, SeveralNewcomersCannotBeToldApartAndCountAsOthers) {
  EXPECT_EQ(own_gpu_pids(12, {}, {process(31337), process(31338)}), Pids{});
  EXPECT_EQ(own_gpu_pids(12, {process(7)}, {process(7)}), Pids{}) << "our context is not listed";
}

TEST(OtherGpuProcesses, LeavesOutOurOwnAndTheMpsServerEachPidOnce) {
  const std::vector<GpuProcess> listed = {process(100), process(5, kMpsServerName),
                                          process(7, "python3"), process(7, "python3")};
  const std::vector<GpuProcess> others = other_gpu_processes(listed, {100});
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].pid, 7u);
  EXPECT_EQ(others[0].name, "python3");
}

TEST(DescribeMps, SaysHowItWasSeen) {
  EXPECT_EQ(describe_mps(true, 0, std::nullopt, std::nullopt), "inactive");
  EXPECT_EQ(describe_mps(false, 0, std::nullopt, std::nullopt), "") << "unknown without NVML";
  EXPECT_EQ(describe_mps(true, 2, 5u, std::nullopt),
            "active (MPS server pid 5; 2 MPS client(s) listed by NVML)");
  EXPECT_EQ(describe_mps(false, 0, std::nullopt, std::string("/tmp/nvidia-mps/control")),
            "active (control pipe /tmp/nvidia-mps/control)");
}

TEST(MpsControlPipe, FollowsTheEnvironment) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "memtopo_mps_pipe_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("CUDA_MPS_PIPE_DIRECTORY", dir.c_str(), 1);
  EXPECT_FALSE(mps_control_pipe());
  std::ofstream(dir / "control") << "";
  EXPECT_EQ(mps_control_pipe(), (dir / "control").string());
  ::unsetenv("CUDA_MPS_PIPE_DIRECTORY");
}

TEST(FormatGpuUuid, WritesNvidiaSmisSpelling) {
  const unsigned char bytes[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                   0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-12345678-9abc-def0-0123-456789abcdef");
  EXPECT_EQ(format_gpu_uuid(bytes, "MIG-"), "MIG-12345678-9abc-def0-0123-456789abcdef");
}

}  // namespace
}  // namespace memtopo
