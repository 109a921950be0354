// Warp accesses on the simulated device: the shared memory's latency per pass times the warp's
// conflict degree, the description's timing overhead on top, and no effect on any chase.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backend/sim/sim_backend.hpp"

namespace memtopo {
namespace {

// Noiseless unless `noise` is given: shared memory of 16 banks of 8 bytes, 25 cycles a pass.
std::string device(const std::string& noise = "") {
  return R"({
    "name": "banks", "sm_count": 2, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
    "dram_latency": 500, "timing_overhead": 20,
    "caches": [
      { "name": "L1", "scope": "sm", "size_bytes": 4096, "line_bytes": 128, "ways": 4,
        "hit_latency": 30, "paths": ["ca"] } ],
    "shared_memory": { "bytes_per_sm": 32768, "banks": 16, "bank_width_bytes": 8,
                       "latency": 25 })" +
         (noise.empty() ? "" : ",\n\"noise\": " + noise) + "}";
}

WarpAccessSpec at_stride(std::uint32_t stride_bytes, std::uint32_t word_bytes,
                         std::uint32_t timed = 16) {
  WarpAccessSpec spec;
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    spec.lane_offsets[lane] = lane * stride_bytes;
  }
  spec.word_bytes = word_bytes;
  spec.timed_accesses = timed;
  return spec;
}

TEST(WarpAccessOnSim, EveryAccessCostsTheLatencyPerPass) {
  auto backend = make_sim_backend_from_text(device(), "banks.json");
  // 16 banks of 8 B: 4 B words at stride 1 share 8 B words (16 of them, one pass); 8 B words
  // at stride 1 fill the 16 banks twice, 16 B words four times; a 128 B stride puts every lane
  // in bank 0.
  const std::vector<WarpAccessSpec> batch = {at_stride(4, 4), at_stride(8, 8), at_stride(128, 4),
                                             at_stride(16, 16)};
  const std::vector<Trace> traces = backend->warp_access()->run_warp_access(batch);
  ASSERT_EQ(traces.size(), 4u);
  const std::uint32_t expected_degrees[] = {1, 2, 32, 4};
  for (std::size_t i = 0; i < traces.size(); ++i) {
    ASSERT_EQ(traces[i].cycles.size(), 16u);
    for (const std::uint32_t cycles : traces[i].cycles) {
      EXPECT_EQ(cycles, 25 * expected_degrees[i] + 20) << i;
    }
    EXPECT_EQ(traces[i].overhead_cycles, 20);
    EXPECT_EQ(traces[i].overhead_samples.size(), 32u);
    EXPECT_EQ(traces[i].indices, std::vector<std::uint32_t>(16, 0));
    EXPECT_DOUBLE_EQ(traces[i].clock_khz, 1e6);
  }
}

TEST(WarpAccessOnSim, NoiseIsSeededAndJittersEveryRecord) {
  const std::string noise = R"({ "seed": 3, "jitter_cycles": 2 })";
  auto first = make_sim_backend_from_text(device(noise), "banks.json");
  auto second = make_sim_backend_from_text(device(noise), "banks.json");
  const std::vector<WarpAccessSpec> batch = {at_stride(128, 4, 256)};
  const Trace a = first->warp_access()->run_warp_access(batch).front();
  EXPECT_EQ(a.cycles, second->warp_access()->run_warp_access(batch).front().cycles);
  for (const std::uint32_t cycles : a.cycles) {
    EXPECT_GE(cycles, 25u * 32 + 20 - 2);
    EXPECT_LE(cycles, 25u * 32 + 20 + 2);
  }
  EXPECT_NE(*std::min_element(a.cycles.begin(), a.cycles.end()),
            *std::max_element(a.cycles.begin(), a.cycles.end()));
}

TEST(WarpAccessOnSim, ChasesAreTheSameWithOrWithoutWarpAccesses) {
  const std::string noise = R"({ "seed": 5, "jitter_cycles": 3 })";
  auto plain = make_sim_backend_from_text(device(noise), "banks.json");
  auto mixed = make_sim_backend_from_text(device(noise), "banks.json");
  ChaseSpec chase;
  chase.footprint_bytes = 2048;
  chase.stride_bytes = 128;
  chase.timed_loads = 64;
  mixed->warp_access()->run_warp_access(std::vector<WarpAccessSpec>{at_stride(4, 4)});
  EXPECT_EQ(plain->run(std::vector<ChaseSpec>{chase}).front().cycles,
            mixed->run(std::vector<ChaseSpec>{chase}).front().cycles);
}

TEST(WarpAccessOnSim, BadSpecsAreRefused) {
  auto backend = make_sim_backend_from_text(device(), "banks.json");
  WarpAccessSpec odd_word = at_stride(4, 4);
  odd_word.word_bytes = 2;
  WarpAccessSpec misaligned = at_stride(4, 8);
  WarpAccessSpec untimed = at_stride(4, 4, 0);
  WarpAccessSpec too_large = at_stride(4096, 4);  // 124 KiB, more than the 32 KiB per SM
  for (const WarpAccessSpec& spec : {odd_word, misaligned, untimed, too_large}) {
    EXPECT_THROW(backend->warp_access()->run_warp_access(std::vector<WarpAccessSpec>{spec}), ExperimentError);
  }
}

// Records take 8 B per timed access in device memory, a launch (one word size) at a time.
TEST(WarpAccessOnSim, RecordsBeyondTheDeviceMemoryAreALackOfMemory) {
  std::string text = device();
  const std::string gigabyte = "\"global_memory_bytes\": 1073741824";
  text.replace(text.find(gigabyte), gigabyte.size(), "\"global_memory_bytes\": 4096");
  auto backend = make_sim_backend_from_text(text, "banks.json");
  // 512 accesses of each word size fill the 4 KiB exactly; one more is too many.
  const std::vector<WarpAccessSpec> fits = {at_stride(4, 4, 256), at_stride(4, 4, 256),
                                            at_stride(8, 8, 512)};
  EXPECT_EQ(backend->warp_access()->run_warp_access(fits).size(), 3u);
  const std::vector<WarpAccessSpec> too_many = {at_stride(4, 4, 256), at_stride(4, 4, 257)};
  EXPECT_THROW(backend->warp_access()->run_warp_access(too_many), MemoryUnavailableError);
}

}  // namespace
}  // namespace memtopo
