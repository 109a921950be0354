// The simulated device's memory: a chase's arrays and records must fit in it, and what does not
// fit is a MemoryUnavailableError (a probe is skipped), not a failure of the request itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backend/sim/sim_backend.hpp"

namespace memtopo {
namespace {

using nlohmann::json;

constexpr std::uint64_t kGlobalBytes = 1u << 20;
constexpr std::uint32_t kMemoryTestLine = 128;

// One L1 and an L2 on a device with 1 MiB of global memory.
std::unique_ptr<Backend> small_device() {
  json description = {
      {"name", "small memory"},
      {"sm_count", 2},
      {"clock_khz", 1000000},
      {"global_memory_bytes", kGlobalBytes},
      {"dram_latency", 500},
      {"caches",
       {{{"name", "L1"},
         {"scope", "sm"},
         {"size_bytes", 4096},
         {"line_bytes", kMemoryTestLine},
         {"ways", 4},
         {"hit_latency", 30},
         {"paths", {"ca"}}},
        {{"name", "L2"},
         {"scope", "device"},
         {"size_bytes", 65536},
         {"line_bytes", kMemoryTestLine},
         {"ways", 8},
         {"hit_latency", 200},
         {"paths", {"ca", "cg", "const"}}}}},
      {"shared_memory",
       {{"bytes_per_sm", 16384}, {"banks", 32}, {"bank_width_bytes", 4}, {"latency", 25}}}};
  return make_sim_backend_from_text(description.dump(), "small.json");
}

ChaseSpec chase(LoadPath path, std::uint64_t footprint, std::uint32_t timed_loads,
                std::uint32_t chasers = 1) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = kMemoryTestLine;
  spec.timed_loads = timed_loads;
  spec.chasers = chasers;
  return spec;
}

std::string error_of(Backend& backend, const ChaseSpec& spec) {
  try {
    backend.run(std::vector<ChaseSpec>{spec});
  } catch (const MemoryUnavailableError& error) {
    return std::string("memory: ") + error.what();
  } catch (const ExperimentError& error) {
    return std::string("experiment: ") + error.what();
  }
  return "ran";
}

TEST(SimMemory, ArraysUpToHalfTheMemoryRunBeyondItTheMemoryIsUnavailable) {
  const auto device = small_device();
  EXPECT_EQ(device->limits().max_footprint_bytes, kGlobalBytes / 2);
  EXPECT_EQ(error_of(*device, chase(LoadPath::ca, kGlobalBytes / 2, 64)), "ran");
  const std::string error =
      error_of(*device, chase(LoadPath::cg, kGlobalBytes / 2 + kMemoryTestLine, 64));
  EXPECT_TRUE(error.starts_with("memory: ")) << error;
  EXPECT_NE(error.find("half the simulated device's global memory"), std::string::npos) << error;
}

TEST(SimMemory, ASweepCountsLikeAChase) {
  const auto device = small_device();
  ChaseSpec spec = chase(LoadPath::ca, 4096, 64);
  spec.eviction = EvictionSweep{LoadPath::cg, kGlobalBytes, kMemoryTestLine, 1};
  EXPECT_TRUE(error_of(*device, spec).starts_with("memory: "));
}

TEST(SimMemory, RecordsTakeDeviceMemoryToo) {
  const auto device = small_device();
  // 8 bytes per timed load and chaser: 32 chasers x 4096 loads = 1 MiB of records, plus 64 KiB
  // of array, is more than the 1 MiB the device has.
  const std::string error = error_of(*device, chase(LoadPath::ca, 65536, 4096, 32));
  EXPECT_TRUE(error.starts_with("memory: ")) << error;
  EXPECT_NE(error.find("needs 1114112 bytes of device memory (65536 for its arrays, 1048576 for "
                       "its records); the simulated device has 1048576"),
            std::string::npos)
      << error;
  EXPECT_EQ(error_of(*device, chase(LoadPath::ca, 65536, 2048, 32)), "ran");
}

TEST(SimMemory, FixedSizeMemoriesStayExperimentErrors) {
  const auto device = small_device();
  EXPECT_TRUE(error_of(*device, chase(LoadPath::constant, 65536 + kMemoryTestLine, 16))
                  .starts_with("experiment: "));
  ChaseSpec shared = chase(LoadPath::shared, 16384 + 4, 16);
  shared.stride_bytes = 4;
  EXPECT_TRUE(error_of(*device, shared).starts_with("experiment: "));
}

}  // namespace
}  // namespace memtopo
