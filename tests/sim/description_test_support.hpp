#pragma once
// What the description loader's tests share: the design document's example description and
// expectations of a parse that fails.
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/sim/description_loader.hpp"

namespace memtopo::sim::description_testing {

// The example of the design document's simulated device description (the keys docs/sim-format.md
// documents), verbatim.
inline constexpr const char* kDesignExample = R"({
  "name": "example",
  "sm_count": 4,
  "clock_khz": 1500000,
  "global_memory_bytes": 4294967296,
  "dram_latency": 450,
  "caches": [
    { "name": "L1", "scope": "sm", "instances_per_sm": 1,
      "size_bytes": 32768, "line_bytes": 128, "sector_bytes": 32,
      "ways": 4, "set_index": "modulo", "policy": "lru",
      "hit_latency": 33, "paths": ["ca", "nc", "tex"] },
    { "name": "L2", "scope": "device", "partitions": 2, "far_latency_extra": 180,
      "size_bytes": 4194304, "line_bytes": 128, "sector_bytes": 32,
      "ways": 16, "set_index": "modulo", "policy": "lru",
      "hit_latency": 260, "paths": ["ca", "cg", "nc", "tex", "const"] }
  ],
  "tlbs": [
    { "name": "L1 TLB", "entries": 16, "ways": 0, "page_bytes": 2097152, "miss_latency_extra": 30 },
    { "name": "L2 TLB", "entries": 64, "ways": [17, 8, 8, 8, 8, 8, 7], "page_bytes": 2097152, "miss_latency_extra": 120 }
  ],
  "shared_memory": { "bytes_per_sm": 233472, "banks": 32, "bank_width_bytes": 4, "latency": 29 },
  "noise": { "seed": 7, "jitter_cycles": 2, "outlier_probability": 0.0005, "outlier_cycles": 400 }
})";

// Expects parsing `text` (named "t.json") to fail with a message containing `expected`.
inline void expect_error(const std::string& text, const std::string& expected) {
  try {
    parse_description(text, "t.json");
    ADD_FAILURE() << "no DescriptionError; expected one containing: " << expected;
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
        << "message: " << error.what() << "\nexpected to contain: " << expected;
  }
}

inline void expect_error_after(const std::function<void(nlohmann::json&)>& edit,
                               const std::string& expected) {
  nlohmann::json document = nlohmann::json::parse(kDesignExample);
  edit(document);
  expect_error(document.dump(), expected);
}

}  // namespace memtopo::sim::description_testing
