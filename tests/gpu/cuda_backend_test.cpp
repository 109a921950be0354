// The CUDA backend on a real GPU: facts, limits, and timings that must be ordered the way
// any cached memory hierarchy orders them. No expected cycle counts: only orderings.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "gpu_fixture.hpp"
#include "trace_helpers.hpp"

namespace memtopo::testing {
namespace {

using CudaBackendOnGpu = GpuTest;

// A warm chase of `footprint` bytes on `path`, lines visited once per pass.
ChaseSpec warm_chase(LoadPath path, std::uint64_t footprint) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = 128;
  spec.order = ChaseOrder::random_permutation;
  spec.seed = 7;
  spec.warm_passes = 2;
  spec.timed_loads = 2048;
  return spec;
}

TEST_F(CudaBackendOnGpu, ReportsDeviceFacts) {
  const DeviceFacts& facts = backend().facts();
  EXPECT_EQ(backend().kind(), "cuda");
  EXPECT_EQ(facts.backend, "cuda");
  EXPECT_FALSE(facts.name.empty());
  EXPECT_GE(facts.cc_major, 7);
  EXPECT_GT(facts.sm_count, 0u);
  EXPECT_GT(facts.l2_bytes, 0u);
  EXPECT_GT(facts.global_memory_bytes, facts.l2_bytes);
  EXPECT_GT(facts.shared_per_block_optin_bytes, 0u);
  EXPECT_GT(facts.constant_bytes, 0u);
  EXPECT_GT(facts.sm_clock_khz, 0u);
  EXPECT_GT(facts.memory_bus_width_bits, 0u);
  EXPECT_FALSE(facts.pci_bus_id.empty());
  EXPECT_GT(facts.driver_version, 0);
  EXPECT_GT(facts.runtime_version, 0);
  EXPECT_FALSE(facts.nvml_status.empty());
  if (facts.nvml_status == "ok") {
    ASSERT_TRUE(facts.nvml_max_sm_clock_mhz.has_value());
    EXPECT_GT(*facts.nvml_max_sm_clock_mhz, 0u);
    EXPECT_GT(backend().current_sm_clock_khz(), 0.0);
  } else {
    std::cout << "NVML unavailable: " << facts.nvml_status << "\n";
  }
}

TEST_F(CudaBackendOnGpu, LimitsFollowTheDevice) {
  const DeviceFacts& facts = backend().facts();
  const BackendLimits limits = backend().limits();
  EXPECT_GT(limits.max_footprint_bytes, facts.l2_bytes);
  EXPECT_LE(limits.max_footprint_bytes, facts.global_memory_bytes);
  EXPECT_GT(limits.max_constant_footprint_bytes, 0u);
  EXPECT_LE(limits.max_constant_footprint_bytes, facts.constant_bytes);
  EXPECT_GT(limits.max_shared_footprint_bytes, 0u);
  EXPECT_LT(limits.max_shared_footprint_bytes, facts.shared_per_block_optin_bytes);
  EXPECT_GE(limits.max_chasers, 1u);
  EXPECT_GT(limits.max_timed_loads, 1u << 16);
  EXPECT_EQ(limits.concurrent_slots, facts.sm_count);
}

TEST_F(CudaBackendOnGpu, OverheadIsMeasuredAndBelowAnL1Hit) {
  const std::vector<Trace> traces = backend().run(std::vector{warm_chase(LoadPath::ca, 4096)});
  const Trace& trace = traces[0];
  ASSERT_EQ(trace.overhead_samples.size(), 32u);
  EXPECT_GT(trace.overhead_cycles, 0.0);
  EXPECT_EQ(trace.overhead_cycles, median_of(trace.overhead_samples));
  EXPECT_LT(trace.overhead_cycles, median_of(trace.cycles))
      << "timing overhead should be below an L1 hit";
}

TEST_F(CudaBackendOnGpu, L1HitIsFasterThanL2HitIsFasterThanDram) {
  const DeviceFacts& facts = backend().facts();
  const ChaseSpec l1 = warm_chase(LoadPath::ca, 4096);
  // Far beyond any L1, well inside L2.
  const ChaseSpec l2 =
      warm_chase(LoadPath::cg, std::min<std::uint64_t>(2u << 20, facts.l2_bytes / 4));
  // Far beyond L2, cold (caches flushed, no warm pass), a line per 4 KiB visited once.
  ChaseSpec dram = warm_chase(LoadPath::cg, 8 * facts.l2_bytes);
  dram.stride_bytes = 4096;
  dram.warm_passes = 0;
  dram.flush_device_caches = true;
  // One batch each, so that the three do not share L2 bandwidth.
  const double l1_p50 = median_of(backend().run(std::vector{l1})[0].cycles);
  const double l2_p50 = median_of(backend().run(std::vector{l2})[0].cycles);
  const double dram_p50 = median_of(backend().run(std::vector{dram})[0].cycles);
  std::cout << "p50 cycles: L1 " << l1_p50 << ", L2 " << l2_p50 << ", DRAM " << dram_p50 << "\n";
  EXPECT_LT(l1_p50, l2_p50);
  EXPECT_LT(l2_p50, dram_p50);
}

// Records leave shared memory in chunks between timed loads; nothing about a chunk flush may
// disturb the cache under test (a GPU-scope fence there once invalidated L1 after the first
// chunk, and every later "hit" became a miss).
TEST_F(CudaBackendOnGpu, WarmL1ChaseStaysFastAcrossRecordChunks) {
  ChaseSpec spec = warm_chase(LoadPath::ca, 4096);
  spec.timed_loads = 8 * 512;  // several chunks whatever the chunk size up to 512 records
  const Trace trace = backend().run(std::vector{spec})[0];
  const std::vector<std::uint32_t> first(trace.cycles.begin(), trace.cycles.begin() + 256);
  const double hit = median_of(first);
  const auto slow = std::count_if(trace.cycles.begin(), trace.cycles.end(),
                                  [&](std::uint32_t c) { return c > 2 * hit; });
  std::cout << "L1 hit p50 " << hit << " cycles, " << slow << " of " << trace.cycles.size()
            << " accesses slower than twice that\n";
  EXPECT_LT(double(slow), 0.01 * double(trace.cycles.size()));
}

TEST_F(CudaBackendOnGpu, MeasuredClockIsNearTheApiClock) {
  ChaseSpec spec = warm_chase(LoadPath::cg, 1u << 20);
  spec.timed_loads = 20000;  // milliseconds: far above the globaltimer's resolution
  const Trace trace = backend().run(std::vector{spec})[0];
  const double api_khz = static_cast<double>(backend().facts().sm_clock_khz);
  std::cout << "measured SM clock " << trace.clock_khz << " kHz, API " << api_khz << " kHz\n";
  ASSERT_GT(trace.clock_khz, 0.0);
  // A sanity check of the method (clock64 against globaltimer), not a claimed value.
  EXPECT_GT(trace.clock_khz, 0.5 * api_khz);
  EXPECT_LT(trace.clock_khz, 1.5 * api_khz);
}

TEST_F(CudaBackendOnGpu, AnInvalidDeviceIndexNamesTheIndexAndTheCount) {
  try {
    make_cuda_backend(1000);
    FAIL() << "device 1000 should not exist";
  } catch (const NoDeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("1000"), std::string::npos) << message;
    EXPECT_NE(message.find("device(s) visible"), std::string::npos) << message;
  }
  EXPECT_THROW(make_cuda_backend(-1), NoDeviceError);
}

}  // namespace
}  // namespace memtopo::testing
