// The simulated device description loader: keys, defaults, and the errors that name what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "description_test_support.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;
using description_testing::expect_error;
using description_testing::expect_error_after;
using description_testing::kDesignExample;

TEST(DescriptionLoader, ReadsTheDesignExampleKeyByKey) {
  const SimDescription d = parse_description(kDesignExample, "example.json");
  EXPECT_EQ(d.name, "example");
  EXPECT_EQ(d.sm_count, 4u);
  EXPECT_EQ(d.clock_khz, 1500000u);
  EXPECT_EQ(d.global_memory_bytes, 4294967296u);
  EXPECT_EQ(d.dram_latency, 450u);
  EXPECT_EQ(d.cc_major, 9);  // defaults
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.timing_overhead, 0u);
  ASSERT_EQ(d.caches.size(), 2u);
  const CacheDescription& l1 = d.caches[0];
  EXPECT_EQ(l1.name, "L1");
  EXPECT_EQ(l1.scope, CacheScope::sm);
  EXPECT_EQ(l1.instances_per_sm, 1u);
  EXPECT_EQ(l1.size_bytes, 32768u);
  EXPECT_EQ(l1.line_bytes, 128u);
  EXPECT_EQ(l1.sector_bytes, 32u);
  EXPECT_EQ(l1.associativity.ways, 4u);
  EXPECT_EQ(l1.set_index.kind, SetIndex::Kind::modulo);
  EXPECT_EQ(l1.policy.kind, Replacement::Kind::lru);
  EXPECT_EQ(l1.hit_latency, 33u);
  EXPECT_EQ(l1.paths, (std::vector<LoadPath>{LoadPath::ca, LoadPath::nc, LoadPath::tex}));
  EXPECT_EQ(l1.partitions, 1u);
  const CacheDescription& l2 = d.caches[1];
  EXPECT_EQ(l2.scope, CacheScope::device);
  EXPECT_EQ(l2.partitions, 2u);
  EXPECT_EQ(l2.far_latency_extra, 180u);
  EXPECT_EQ(l2.far_miss_latency_extra, 0u) << "absent: misses cost dram_latency everywhere";
  EXPECT_EQ(l2.paths.back(), LoadPath::constant);
  ASSERT_EQ(d.tlbs.size(), 2u);
  EXPECT_EQ(d.tlbs[0].entries, 16u);
  EXPECT_EQ(d.tlbs[0].associativity.ways, 0u);
  EXPECT_EQ(d.tlbs[1].associativity.ways_per_set,
            (std::vector<std::uint32_t>{17, 8, 8, 8, 8, 8, 7}));
  EXPECT_EQ(d.tlbs[1].page_bytes, 2097152u);
  EXPECT_EQ(d.tlbs[1].miss_latency_extra, 120u);
  EXPECT_EQ(d.shared_memory.bytes_per_sm, 233472u);
  EXPECT_EQ(d.shared_memory.banks, 32u);
  EXPECT_EQ(d.shared_memory.bank_width_bytes, 4u);
  EXPECT_EQ(d.shared_memory.latency, 29u);
  EXPECT_EQ(d.noise.seed, 7u);
  EXPECT_EQ(d.noise.jitter_cycles, 2u);
  EXPECT_DOUBLE_EQ(d.noise.outlier_probability, 0.0005);
  EXPECT_EQ(d.noise.outlier_cycles, 400u);
}

TEST(DescriptionLoader, ReadsOptionalKeysAndTheirDefaults) {
  const SimDescription d = parse_description(R"({
    "name": "minimal", "sm_count": 1, "clock_khz": 1000, "global_memory_bytes": 4096,
    "dram_latency": 100, "timing_overhead": 20, "compute_capability": [8, 6],
    "caches": [
      { "name": "C", "scope": "sm", "instances_per_sm": 2, "size_bytes": 1024, "line_bytes": 64,
        "ways": 0, "policy": "fifo", "hit_latency": 10, "paths": ["tex"] },
      { "name": "W", "scope": "device", "size_bytes": 2048, "line_bytes": 128, "ways": 4,
        "set_index": {"bits": [7, 8]}, "policy": {"victim_weights": [1, 3, 1, 1]},
        "hit_latency": 10, "paths": ["ca"] },
      { "name": "R", "scope": "device", "size_bytes": 768, "line_bytes": 128, "ways": [3, 1, 1, 1],
        "set_index": {"bits": [9, 7]}, "policy": "random", "hit_latency": 10, "paths": ["cg"] }
    ],
    "shared_memory": { "bytes_per_sm": 1024, "banks": 16, "bank_width_bytes": 8, "latency": 5 }
  })",
                                             "minimal.json");
  EXPECT_EQ(d.timing_overhead, 20u);
  EXPECT_EQ(d.cc_major, 8);
  EXPECT_EQ(d.cc_minor, 6);
  EXPECT_TRUE(d.tlbs.empty());
  EXPECT_EQ(d.noise.jitter_cycles, 0u);
  EXPECT_EQ(d.noise.outlier_probability, 0.0);
  EXPECT_EQ(d.caches[0].sector_bytes, 64u);  // unsectored
  EXPECT_EQ(d.caches[0].instances_per_sm, 2u);
  EXPECT_EQ(d.caches[0].policy.kind, Replacement::Kind::fifo);
  EXPECT_EQ(d.caches[1].set_index.bits, (std::vector<std::uint32_t>{7, 8}));
  EXPECT_EQ(d.caches[1].policy.victim_weights, (std::vector<double>{1, 3, 1, 1}));
  EXPECT_EQ(d.caches[2].policy.kind, Replacement::Kind::random);
  EXPECT_EQ(d.caches[2].associativity.ways_per_set, (std::vector<std::uint32_t>{3, 1, 1, 1}));
  EXPECT_EQ(ways_of_each_set(d.caches[0].associativity, 16), (std::vector<std::uint32_t>{16}));
  EXPECT_EQ(ways_of_each_set(d.caches[1].associativity, 16), (std::vector<std::uint32_t>(4, 4)));
}

TEST(DescriptionLoader, UnknownKeysAreNamedWithTheirPath) {
  expect_error_after([](json& d) { d["caches"][1]["wayz"] = 4; },
                     "t.json: caches[1]: unknown key \"wayz\"");
  expect_error_after([](json& d) { d["foo"] = 1; }, "t.json: unknown key \"foo\"");
  expect_error_after([](json& d) { d["shared_memory"]["bank"] = 1; },
                     "t.json: shared_memory: unknown key \"bank\"");
  expect_error_after([](json& d) { d["noise"]["jitter"] = 1; },
                     "t.json: noise: unknown key \"jitter\"");
  expect_error_after([](json& d) { d["tlbs"][1]["sets"] = 7; },
                     "t.json: tlbs[1]: unknown key \"sets\"");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["policy"] = {{"weights", {1, 1, 1, 1}}};
      },
      "t.json: caches[0].policy: unknown key \"weights\"");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"bit", {7}}};
      },
      "t.json: caches[0].set_index: unknown key \"bit\"");
}

TEST(DescriptionLoader, MissingRequiredKeysAreNamed) {
  expect_error_after([](json& d) { d.erase("sm_count"); },
                     "t.json: missing required key \"sm_count\"");
  expect_error_after([](json& d) { d["caches"][0].erase("ways"); },
                     "t.json: caches[0]: missing required key \"ways\"");
  expect_error_after([](json& d) { d["tlbs"][0].erase("page_bytes"); },
                     "t.json: tlbs[0]: missing required key \"page_bytes\"");
  expect_error_after([](json& d) { d.erase("shared_memory"); },
                     "t.json: missing required key \"shared_memory\"");
}

TEST(DescriptionLoader, WrongTypesAreNamedWithWhatWasExpected) {
  expect_error_after([](json& d) { d["sm_count"] = "4"; },
                     "t.json: sm_count: expected a non-negative integer, got \"4\"");
  expect_error_after([](json& d) { d["caches"][0]["hit_latency"] = 33.5; },
                     "t.json: caches[0].hit_latency: expected a non-negative integer, got 33.5");
  expect_error_after([](json& d) { d["caches"][0]["hit_latency"] = -3; },
                     "t.json: caches[0].hit_latency: must not be negative, got -3");
  expect_error_after([](json& d) { d["caches"] = "L1"; }, "t.json: caches: expected a list");
  expect_error_after([](json& d) { d["caches"][0] = 5; }, "t.json: caches[0]: expected an object");
  expect_error_after([](json& d) { d["caches"][0]["paths"] = "ca"; },
                     "t.json: caches[0].paths: expected a list");
  expect_error_after([](json& d) { d["caches"][0]["paths"][1] = 3; },
                     "t.json: caches[0].paths[1]: expected a string");
  expect_error_after([](json& d) { d["noise"]["outlier_probability"] = "rare"; },
                     "t.json: noise.outlier_probability: expected a number");
  expect_error_after([](json& d) { d["compute_capability"] = json::array({9}); },
                     "t.json: compute_capability: expected [major, minor]");
  expect_error_after([](json& d) { d["sm_count"] = 5000000000ull; },
                     "t.json: sm_count: must be at most");
  expect_error("[1, 2]", "t.json: expected an object, got [1,2]");
}

TEST(DescriptionLoader, BadCacheGeometryIsNamedWithTheReason) {
  expect_error_after(
      [](json& d) { d["caches"][0]["size_bytes"] = 1000; },
      "t.json: caches[0].size_bytes: 1000 is not a positive multiple of line_bytes 128");
  expect_error_after(
      [](json& d) { d["caches"][0]["size_bytes"] = 33 * 128; },
      "t.json: caches[0].size_bytes: 4224 is not a multiple of line_bytes x ways = 512");
  expect_error_after([](json& d) { d["caches"][0]["line_bytes"] = 96; },
                     "t.json: caches[0].line_bytes: must be a power of two, got 96");
  expect_error_after([](json& d) { d["caches"][0]["sector_bytes"] = 48; },
                     "t.json: caches[0].sector_bytes: must be a power of two, got 48");
  expect_error_after([](json& d) { d["caches"][0]["sector_bytes"] = 256; },
                     "t.json: caches[0].sector_bytes: 256 does not divide line_bytes 128");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["ways"] = json::array({4, 0});
      },
      "t.json: caches[0].ways[1]: every set needs at least one way");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["ways"] = json::array({100, 100});
      },
      "t.json: caches[0].ways: the sets' ways add up to 200 lines, but size_bytes / line_bytes is "
      "256");
  expect_error_after([](json& d) { d["caches"][0]["scope"] = "cluster"; },
                     "t.json: caches[0].scope: must be \"sm\" or \"device\", got \"cluster\"");
  expect_error_after([](json& d) { d["caches"][0]["instances_per_sm"] = 0; },
                     "t.json: caches[0].instances_per_sm: must be at least 1");
  expect_error_after([](json& d) { d["caches"][1]["instances_per_sm"] = 2; },
                     "t.json: caches[1].instances_per_sm: only a cache of scope \"sm\"");
  expect_error_after([](json& d) { d["caches"][0]["partitions"] = 2; },
                     "t.json: caches[0].partitions: only a cache of scope \"device\"");
  expect_error_after([](json& d) { d["caches"][1]["partitions"] = 0; },
                     "t.json: caches[1].partitions: must be at least 1");
  expect_error_after([](json& d) { d["caches"][0]["sm_partitions"] = {0, 1}; },
                     "t.json: caches[0].sm_partitions: only a cache of scope \"device\"");
  expect_error_after([](json& d) { d["caches"][1]["partition_policy"] = "nearest"; },
                     "t.json: caches[1].partition_policy: must be \"home\" or \"copy_on_read\", "
                     "got \"nearest\"");
  expect_error_after([](json& d) { d["caches"][1]["sm_partitions"] = {0, 2}; },
                     "t.json: caches[1].sm_partitions[1]:");
  expect_error_after([](json& d) { d["caches"][1]["sm_partitions"] = {0, 1, 1}; },
                     "t.json: caches[1].sm_partitions: lists 3 SMs, but sm_count is");
  expect_error_after([](json& d) { d["caches"][1]["name"] = "L1"; },
                     "t.json: caches[1].name: the name \"L1\" is already taken");
}

TEST(DescriptionLoader, BadSetIndexIsNamedWithTheReason) {
  expect_error_after(
      [](json& d) { d["caches"][0]["set_index"] = "xor"; },
      "t.json: caches[0].set_index: must be \"modulo\", {\"bits\": [...]} or {\"xor\": [[...], "
      "...]}, got \"xor\"");
  // 32 KiB / (128 x 4) = 64 sets need 6 bits.
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"bits", {7, 8}}};
      },
      "t.json: caches[0].set_index.bits: 2 bits select 2^2 sets, but the cache has 64 sets");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"bits", {3, 8, 9, 10, 11, 12}}};
      },
      "t.json: caches[0].set_index.bits[0]: bit 3 lies inside a 128-byte line");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"bits", {7, 8, 9, 10, 11, 7}}};
      },
      "t.json: caches[0].set_index.bits[5]: bit 7 is listed twice");
  // Unequal sets: three sets cannot be selected by bits.
  expect_error_after(
      [](json& d) {
        d["caches"][0]["ways"] = json::array({128, 64, 64});
        d["caches"][0]["set_index"] = {{"bits", {7, 8}}};
      },
      "t.json: caches[0].set_index.bits: 2 bits select 2^2 sets, but the cache has 3 sets");
}

// 32 KiB / (128 x 4) = 64 sets: six functions, each a parity of address bits.
TEST(DescriptionLoader, XorSetIndexIsReadAsOneMaskPerSetBit) {
  json d = json::parse(kDesignExample);
  d["caches"][0]["set_index"] = {
      {"xor", {{7, 13}, {8, 14}, {9, 15}, {10, 16}, {11, 17}, {12, 18, 20}}}};
  const SimDescription loaded = parse_description(d.dump(), "t.json");
  const SetIndex& index = loaded.caches[0].set_index;
  EXPECT_EQ(index.kind, SetIndex::Kind::xor_functions);
  ASSERT_EQ(index.xor_masks.size(), 6u);
  EXPECT_EQ(index.xor_masks[0], (std::uint64_t{1} << 7) | (std::uint64_t{1} << 13));
  EXPECT_EQ(index.xor_masks[5],
            (std::uint64_t{1} << 12) | (std::uint64_t{1} << 18) | (std::uint64_t{1} << 20));
}

TEST(DescriptionLoader, BadXorSetIndexIsNamedWithTheReason) {
  const json six = {{7, 13}, {8, 14}, {9, 15}, {10, 16}, {11, 17}, {12, 18}};
  expect_error_after(
      [](json& d) {
        d["caches"][0]["set_index"] = {{"xor", {{7, 13}, {8, 14}}}};
      },
      "t.json: caches[0].set_index.xor: 2 functions select 2^2 sets, but the cache has 64 sets");
  expect_error_after(
      [&](json& d) {
        json f = six;
        f[2] = json::array();
        d["caches"][0]["set_index"] = {{"xor", f}};
      },
      "t.json: caches[0].set_index.xor[2]: a set bit needs at least one address bit");
  expect_error_after(
      [&](json& d) {
        json f = six;
        f[1] = {8, 5};
        d["caches"][0]["set_index"] = {{"xor", f}};
      },
      "t.json: caches[0].set_index.xor[1][1]: bit 5 lies inside a 128-byte line; set bits start "
      "at bit 7");
  expect_error_after(
      [&](json& d) {
        json f = six;
        f[0] = {7, 13, 7};
        d["caches"][0]["set_index"] = {{"xor", f}};
      },
      "t.json: caches[0].set_index.xor[0][2]: bit 7 is listed twice");
  // The sixth function is the XOR of the first two: only 32 sets could ever be used.
  expect_error_after(
      [&](json& d) {
        json f = six;
        f[5] = {7, 13, 8, 14};
        d["caches"][0]["set_index"] = {{"xor", f}};
      },
      "t.json: caches[0].set_index.xor: the functions are not linearly independent (one is the "
      "XOR of others), so some sets would never be used");
  expect_error_after(
      [&](json& d) {
        d["caches"][0]["set_index"] = {{"xor", six}, {"bits", {7, 8, 9, 10, 11, 12}}};
      },
      "t.json: caches[0].set_index.xor: give either bits or xor, not both");
}

TEST(DescriptionLoader, BadPoliciesAndPathsAreNamedWithTheReason) {
  expect_error_after([](json& d) { d["caches"][0]["policy"] = "mru"; },
                     "t.json: caches[0].policy: must be \"lru\", \"fifo\", \"random\", \"lip\" or "
                     "{\"victim_weights\"");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["policy"] = {{"victim_weights", {1, 3, 1}}};
      },
      "t.json: caches[0].policy.victim_weights: has 3 weights for 4 ways");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["policy"] = {{"victim_weights", {1, -1, 1, 1}}};
      },
      "t.json: caches[0].policy.victim_weights[1]: a weight must not be negative");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["policy"] = {{"victim_weights", {0, 0, 0, 0}}};
      },
      "t.json: caches[0].policy.victim_weights: needs at least one positive weight");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["ways"] = json::array({128, 128});
        d["caches"][0]["policy"] = {{"victim_weights", {1, 1}}};
      },
      "t.json: caches[0].policy.victim_weights: needs sets of equal ways");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["paths"] = json::array({"ca", "bogus"});
      },
      "t.json: caches[0].paths[1]: unknown load path \"bogus\"");
  expect_error_after([](json& d) { d["caches"][0]["paths"] = json::array({"shared"}); },
                     "t.json: caches[0].paths[0]: \"shared\" is shared memory");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["paths"] = json::array({"ca", "ca"});
      },
      "t.json: caches[0].paths[1]: load path \"ca\" is listed twice");
  expect_error_after([](json& d) { d["caches"][0]["paths"] = json::array(); },
                     "t.json: caches[0].paths: a cache needs at least one load path");
}

TEST(DescriptionLoader, BadTlbSharedMemoryAndNoiseValuesAreNamed) {
  expect_error_after(
      [](json& d) {
        d["tlbs"][0]["entries"] = 10;
        d["tlbs"][0]["ways"] = 4;
      },
      "t.json: tlbs[0].entries: 10 is not a multiple of ways 4");
  expect_error_after(
      [](json& d) {
        d["tlbs"][1]["ways"] = json::array({17, 8});
      },
      "t.json: tlbs[1].ways: the sets' ways add up to 25, but entries is 64");
  expect_error_after([](json& d) { d["tlbs"][0]["page_bytes"] = 3000; },
                     "t.json: tlbs[0].page_bytes: must be a power of two, got 3000");
  expect_error_after([](json& d) { d["tlbs"][0]["entries"] = 0; },
                     "t.json: tlbs[0].entries: must be at least 1");
  expect_error_after([](json& d) { d["shared_memory"]["bank_width_bytes"] = 3; },
                     "t.json: shared_memory.bank_width_bytes: must be a power of two, got 3");
  expect_error_after([](json& d) { d["shared_memory"]["banks"] = 0; },
                     "t.json: shared_memory.banks: must be at least 1");
  expect_error_after([](json& d) { d["noise"]["outlier_probability"] = 1.5; },
                     "t.json: noise.outlier_probability: must lie in [0, 1], got 1.5");
  expect_error_after([](json& d) { d["noise"]["outlier_probability"] = -0.1; },
                     "t.json: noise.outlier_probability: must lie in [0, 1], got -0.1");
  expect_error_after([](json& d) { d["sm_count"] = 0; }, "t.json: sm_count: must be at least 1");
  expect_error_after([](json& d) { d["name"] = ""; }, "t.json: name: must not be empty");
}

}  // namespace
}  // namespace memtopo::sim
