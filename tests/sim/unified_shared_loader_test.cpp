// The description keys of a unified L1/shared-memory array: shared_memory.unified_with and
// shared_memory.carveout_steps_bytes, read strictly (docs/sim-format.md).
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.hpp"
#include "backend/sim/carveout.hpp"
#include "backend/sim/description_loader.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

// An L1 of 32 KiB in sets of 4 x 128 B = 512 B, unified with 48 KiB of shared memory.
constexpr const char* kUnified = R"({
  "name": "unified", "sm_count": 2, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
  "dram_latency": 500,
  "caches": [
    { "name": "L1", "scope": "sm", "size_bytes": 32768, "line_bytes": 128, "ways": 4,
      "hit_latency": 30, "paths": ["ca", "nc", "tex"] },
    { "name": "L2", "scope": "device", "size_bytes": 65536, "line_bytes": 128, "ways": 8,
      "hit_latency": 200, "paths": ["ca", "cg", "nc", "tex", "const"] }
  ],
  "shared_memory": { "bytes_per_sm": 49152, "banks": 32, "bank_width_bytes": 4, "latency": 25,
                     "unified_with": "L1", "carveout_steps_bytes": [0, 8192, 16384, 31744] }
})";

void expect_error_after(const std::function<void(json&)>& edit, const std::string& expected) {
  json document = json::parse(kUnified);
  edit(document);
  try {
    parse_description(document.dump(), "u.json");
    ADD_FAILURE() << "no DescriptionError; expected one containing: " << expected;
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
        << "message: " << error.what() << "\nexpected to contain: " << expected;
  }
}

TEST(UnifiedSharedLoader, ReadsTheUnifiedCacheAndItsCarveoutSteps) {
  const SimDescription d = parse_description(kUnified, "u.json");
  EXPECT_EQ(d.shared_memory.unified_with, "L1");
  EXPECT_EQ(d.shared_memory.carveout_steps_bytes,
            (std::vector<std::uint64_t>{0, 8192, 16384, 31744}));
  // The unified cache loses (step - smallest step); the others keep their size.
  EXPECT_EQ(capacity_at_carveout(d.caches[0], d.shared_memory, 0), 32768u);
  EXPECT_EQ(capacity_at_carveout(d.caches[0], d.shared_memory, 2), 16384u);
  EXPECT_EQ(capacity_at_carveout(d.caches[0], d.shared_memory, 3), 1024u);
  EXPECT_EQ(capacity_at_carveout(d.caches[1], d.shared_memory, 3), 65536u);
  EXPECT_EQ(max_block_shared_bytes(d.shared_memory), 31744u);
}

TEST(UnifiedSharedLoader, TheBlocksCarveoutIsTheSmallestStepAtOrAboveItsSharedMemory) {
  const SimDescription d = parse_description(kUnified, "u.json");
  EXPECT_EQ(carveout_step_for(d.shared_memory, 0), 0u);
  EXPECT_EQ(carveout_step_for(d.shared_memory, 1), 1u);
  EXPECT_EQ(carveout_step_for(d.shared_memory, 8192), 1u);
  EXPECT_EQ(carveout_step_for(d.shared_memory, 8193), 2u);
  EXPECT_EQ(carveout_step_for(d.shared_memory, 31744), 3u);
  EXPECT_THROW(carveout_step_for(d.shared_memory, 31745), ExperimentError);
  // Without steps, a block may use the SM's whole shared memory and no cache shrinks.
  SharedMemoryDescription separate;
  separate.bytes_per_sm = 49152;
  EXPECT_EQ(carveout_step_for(separate, 49152), 0u);
  EXPECT_THROW(carveout_step_for(separate, 49153), ExperimentError);
}

TEST(UnifiedSharedLoader, TheTwoKeysComeTogether) {
  expect_error_after(
      [](json& d) { d["shared_memory"].erase("carveout_steps_bytes"); },
      "u.json: shared_memory.unified_with: needs \"carveout_steps_bytes\" beside it");
  expect_error_after(
      [](json& d) { d["shared_memory"].erase("unified_with"); },
      "u.json: shared_memory.carveout_steps_bytes: needs \"unified_with\" beside it");
}

TEST(UnifiedSharedLoader, TheUnifiedCacheMustExistAndShrinkByWholeSets) {
  expect_error_after([](json& d) { d["shared_memory"]["unified_with"] = "L0"; },
                     "u.json: shared_memory.unified_with: no cache is named \"L0\"");
  expect_error_after([](json& d) { d["shared_memory"]["unified_with"] = ""; },
                     "u.json: shared_memory.unified_with: must name a cache");
  expect_error_after([](json& d) { d["shared_memory"]["unified_with"] = "L2"; },
                     "shared_memory.unified_with: the unified cache \"L2\" must have scope \"sm\"");
  expect_error_after([](json& d) { d["caches"][0]["instances_per_sm"] = 2; },
                     "shared_memory.unified_with: the unified cache \"L1\" must have one instance");
  expect_error_after([](json& d) { d["caches"][0]["ways"] = 0; },
                     "shared_memory.unified_with: the unified cache \"L1\" needs an integer ways");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["ways"] = json::array({128, 128});
      },
      "shared_memory.unified_with: the unified cache \"L1\" needs an integer ways");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"bits", {7, 8, 9, 10, 11, 12}}};
      },
      "shared_memory.unified_with: the unified cache \"L1\" needs set_index \"modulo\"");
  expect_error_after([](json& d) { d["shared_memory"]["carveout_steps_bytes"][1] = 8000; },
                     "u.json: shared_memory.carveout_steps_bytes[1]: shrinks the unified cache "
                     "\"L1\" by 8000 bytes, not a multiple of its set (line_bytes x ways = 512)");
  expect_error_after(
      [](json& d) {
        d["shared_memory"]["carveout_steps_bytes"] = json::array({0, 32768});
      },
      "u.json: shared_memory.carveout_steps_bytes[1]: shrinks the unified cache \"L1\" by 32768 "
      "bytes, leaving nothing of its 32768");
}

TEST(UnifiedSharedLoader, BadStepListsAreNamed) {
  expect_error_after(
      [](json& d) { d["shared_memory"]["carveout_steps_bytes"] = json::array(); },
      "u.json: shared_memory.carveout_steps_bytes: needs at least one carveout step");
  expect_error_after(
      [](json& d) {
        d["shared_memory"]["carveout_steps_bytes"] = json::array({0, 8192, 8192});
      },
      "u.json: shared_memory.carveout_steps_bytes[2]: steps must increase strictly, but 8192 "
      "follows 8192");
  expect_error_after(
      [](json& d) {
        d["shared_memory"]["carveout_steps_bytes"] = json::array({0, 49664});
      },
      "u.json: shared_memory.carveout_steps_bytes[1]: step 49664 exceeds bytes_per_sm 49152");
  expect_error_after([](json& d) { d["shared_memory"]["carveout_steps_bytes"] = 8192; },
                     "u.json: shared_memory.carveout_steps_bytes: expected");
  expect_error_after([](json& d) { d["shared_memory"]["carveout_steps_bytes"][0] = -1; },
                     "u.json: shared_memory.carveout_steps_bytes[0]: must not be negative");
  expect_error_after([](json& d) { d["shared_memory"]["carveout_step_bytes"] = 1; },
                     "u.json: shared_memory: unknown key \"carveout_step_bytes\"");
}

}  // namespace
}  // namespace memtopo::sim
