// What the CUDA backend reports about its GPU's state on a real GPU: NVML's clocks,
// temperature, power and clock-event reasons, the other processes (memtopo's own left out),
// UUID, MIG and MPS; and a chase beyond the free memory is a skip, not a failure.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>

#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

using GpuConditions = GpuTest;

TEST_F(GpuConditions, NvmlReportsTheDeviceAndNoProcessButOurOwn) {
  const std::optional<DeviceConditions> conditions = backend().conditions();
  if (backend().facts().nvml_status != "ok") {
    EXPECT_FALSE(conditions);
    GTEST_SKIP() << "NVML unavailable: " << backend().facts().nvml_status;
  }
  ASSERT_TRUE(conditions);
  ASSERT_TRUE(conditions->sm_clock_mhz);
  EXPECT_GT(*conditions->sm_clock_mhz, 0);
  ASSERT_TRUE(conditions->memory_clock_mhz);
  EXPECT_GT(*conditions->memory_clock_mhz, 0);
  ASSERT_TRUE(conditions->temperature_c);
  EXPECT_GT(*conditions->temperature_c, 0);
  EXPECT_LT(*conditions->temperature_c, 120);
  ASSERT_TRUE(conditions->power_w);
  EXPECT_GT(*conditions->power_w, 0);
  ASSERT_TRUE(conditions->clocks_event_reasons);
  std::cout << "SM " << *conditions->sm_clock_mhz << " MHz, memory "
            << *conditions->memory_clock_mhz << " MHz, " << *conditions->temperature_c << " C, "
            << *conditions->power_w << " W, clock-event reasons:";
  for (const std::string& reason : clocks_event_reason_names(*conditions->clocks_event_reasons)) {
    std::cout << " " << reason;
  }
  std::cout << "\n";
  // This test process has a context on the GPU; the device machine runs nothing else.
  ASSERT_TRUE(conditions->other_processes) << "NVML lists the GPU's processes";
  EXPECT_TRUE(conditions->other_processes->empty())
      << "pid " << getpid() << " sees others: " << describe_processes(*conditions->other_processes);
}

TEST_F(GpuConditions, FactsNameTheGpuMigAndMps) {
  const DeviceFacts& facts = backend().facts();
  EXPECT_TRUE(facts.uuid.starts_with("GPU-") || facts.uuid.starts_with("MIG-")) << facts.uuid;
  EXPECT_EQ(facts.uuid.size(), 40u) << facts.uuid;
  std::cout << facts.uuid << "; MIG " << facts.mig << "; MPS " << facts.mps << "\n";
  if (facts.nvml_status == "ok") {
    EXPECT_FALSE(facts.mig.empty());
    EXPECT_FALSE(facts.mps.empty());
  }
}

// Device memory another process holds, for as long as this object lives: all the free memory
// but `leave` bytes.
class MemoryHog {
 public:
  explicit MemoryHog(std::size_t leave) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || free_bytes <= leave) return;
    if (cudaMalloc(&block_, free_bytes - leave) != cudaSuccess) block_ = nullptr;
  }
  ~MemoryHog() {
    if (block_) cudaFree(block_);
  }
  MemoryHog(const MemoryHog&) = delete;
  MemoryHog& operator=(const MemoryHog&) = delete;
  bool holds() const { return block_ != nullptr; }

 private:
  void* block_ = nullptr;
};

TEST_F(GpuConditions, AChaseBeyondTheFreeMemoryIsUnavailableNotAFailure) {
  constexpr std::size_t kLeaveFree = std::size_t{4} << 30;
  constexpr std::uint32_t kPageStride = 2u << 20;
  (void)backend().limits();  // the backend's own buffers exist before the hog takes the rest
  MemoryHog hog(kLeaveFree);
  ASSERT_TRUE(hog.holds()) << "could not take the device memory beyond " << kLeaveFree;
  const BackendLimits limits = backend().limits();
  EXPECT_LT(limits.max_footprint_bytes, kLeaveFree) << "the limit follows the free memory";
  ChaseSpec spec;
  spec.path = LoadPath::cg;
  spec.stride_bytes = kPageStride;
  spec.footprint_bytes = (limits.max_footprint_bytes / kPageStride + 1) * kPageStride;
  spec.timed_loads = 16;
  try {
    backend().run(std::vector<ChaseSpec>{spec});
    FAIL() << "a chase of " << spec.footprint_bytes << " bytes ran; the limit is "
           << limits.max_footprint_bytes;
  } catch (const MemoryUnavailableError& error) {
    EXPECT_NE(std::string(error.what()).find("of device memory free now less a reserve"),
              std::string::npos)
        << error.what();
  }
  spec.footprint_bytes = limits.max_footprint_bytes / kPageStride * kPageStride;
  EXPECT_NO_THROW(backend().run(std::vector<ChaseSpec>{spec})) << "the limit itself runs";
}

}  // namespace
}  // namespace memtopo::testing
