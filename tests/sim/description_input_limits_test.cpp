// The simulated device description loader against hostile input: corrupt, missing, implausible,
// huge, deeply nested, badly encoded and endless descriptions are refused, naming what and where.
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

TEST(DescriptionLoader, CorruptJsonAndDuplicateKeysAreRejected) {
  expect_error(R"({"name": "x", "sm_count": })", "t.json: not valid JSON: ");
  expect_error(R"({"name": "x", "sm_count": })", "parse error");
  expect_error("", "t.json: not valid JSON: ");
  expect_error(R"({"name": "x", "name": "y"})", "t.json: duplicate key \"name\"");
}

TEST(DescriptionLoader, MissingFileAndDirectoryAreNamed) {
  try {
    load_description_file("/nonexistent/hopper.json");
    ADD_FAILURE() << "no DescriptionError";
  } catch (const DescriptionError& error) {
    EXPECT_STREQ(error.what(), "/nonexistent/hopper.json: no such file");
  }
  const std::string directory = MEMTOPO_SOURCE_DIR "/sims";
  try {
    load_description_file(directory);
    ADD_FAILURE() << "no DescriptionError";
  } catch (const DescriptionError& error) {
    EXPECT_EQ(std::string(error.what()), directory + ": is a directory, not a description file");
  }
  EXPECT_THROW(make_sim_backend_from_file("/nonexistent/hopper.json"), DescriptionError);
  EXPECT_THROW(make_sim_backend_from_text("{", "t.json"), DescriptionError);
}

TEST(DescriptionLoader, ErrorsInAFileNameTheFile) {
  const std::filesystem::path path =
      std::filesystem::path(MEMTOPO_BINARY_DIR) / "sim_loader_test_wayz.json";
  json document = json::parse(kDesignExample);
  document["caches"][1]["wayz"] = 4;
  { std::ofstream(path) << document.dump(2); }
  try {
    load_description_file(path.string());
    ADD_FAILURE() << "no DescriptionError";
  } catch (const DescriptionError& error) {
    EXPECT_EQ(
        std::string(error.what()).rfind(path.string() + ": caches[1]: unknown key \"wayz\"", 0), 0u)
        << error.what();
  }
  std::filesystem::remove(path);
}

// Values that no GPU has and the simulator could not compute with (issue 10: a hit latency of
// 2^32 - 1 gave an L1 latency of -4,294,967,266 cycles) are rejected, naming the key and range.
TEST(DescriptionLoader, ImplausibleValuesAreRejectedNamingTheKey) {
  constexpr std::uint64_t kAllOnes32 = 4294967295u;
  expect_error_after([&](json& d) { d["caches"][0]["hit_latency"] = kAllOnes32; },
                     "t.json: caches[0].hit_latency: must be at most 100000, got 4294967295");
  expect_error_after([&](json& d) { d["timing_overhead"] = kAllOnes32; },
                     "t.json: timing_overhead: must be at most 100000");
  expect_error_after([&](json& d) { d["dram_latency"] = 100001; },
                     "t.json: dram_latency: must be at most 100000");
  expect_error_after([&](json& d) { d["tlbs"][1]["miss_latency_extra"] = kAllOnes32; },
                     "t.json: tlbs[1].miss_latency_extra: must be at most 100000");
  expect_error_after([&](json& d) { d["caches"][1]["far_latency_extra"] = kAllOnes32; },
                     "t.json: caches[1].far_latency_extra: must be at most 100000");
  expect_error_after([&](json& d) { d["caches"][1]["far_miss_latency_extra"] = kAllOnes32; },
                     "t.json: caches[1].far_miss_latency_extra: must be at most 100000");
  expect_error_after([&](json& d) { d["caches"][0]["far_miss_latency_extra"] = 10; },
                     "t.json: caches[0].far_miss_latency_extra: only a cache of scope \"device\" "
                     "has partitions");
  expect_error_after([&](json& d) { d["noise"]["jitter_cycles"] = kAllOnes32; },
                     "t.json: noise.jitter_cycles: must be at most 100000");
  expect_error_after([&](json& d) { d["caches"][0]["instances_per_sm"] = kAllOnes32; },
                     "t.json: caches[0].instances_per_sm: must be at most 64");
  expect_error_after([&](json& d) { d["sm_count"] = kAllOnes32; },
                     "t.json: sm_count: must be at most 1024");
  expect_error_after([&](json& d) { d["clock_khz"] = std::uint64_t{1} << 63; },
                     "t.json: clock_khz: must be at most 10000000");
  expect_error_after([&](json& d) { d["global_memory_bytes"] = std::uint64_t{1} << 63; },
                     "t.json: global_memory_bytes: must be at most 17592186044416");
  expect_error_after([&](json& d) { d["tlbs"][0]["page_bytes"] = std::uint64_t{1} << 40; },
                     "t.json: tlbs[0].page_bytes: must be at most 4294967296");
  expect_error_after([&](json& d) { d["caches"][1]["partitions"] = kAllOnes32; },
                     "t.json: caches[1].partitions: must be at most 1024");
  expect_error_after([&](json& d) { d["shared_memory"]["banks"] = kAllOnes32; },
                     "t.json: shared_memory.banks: must be at most 1024");
  expect_error_after([&](json& d) { d["caches"][0]["ways"] = 1u << 20; },
                     "t.json: caches[0].ways: must be at most 4096");
}

TEST(DescriptionLoader, HugeAndNonIntegerNumbersAreRejectedNamingTheKey) {
  expect_error_after([](json& d) { d["sm_count"] = 1e30; },
                     "t.json: sm_count: expected a non-negative integer, got 1e+30");
  expect_error_after([](json& d) { d["sm_count"] = std::uint64_t{1} << 63; },
                     "t.json: sm_count: must be at most 1024, got 9223372036854775808");
  expect_error_after([](json& d) { d["sm_count"] = -1; },
                     "t.json: sm_count: must not be negative, got -1");
  expect_error_after([](json& d) { d["sm_count"] = 4.5; },
                     "t.json: sm_count: expected a non-negative integer, got 4.5");
  // Numbers no double holds end in a parse error that quotes them, never an internal error.
  json document = json::parse(kDesignExample);
  std::string text = document.dump();
  const std::string sm_count = "\"sm_count\":4";
  ASSERT_NE(text.find(sm_count), std::string::npos);
  expect_error(
      std::string(text).replace(text.find(sm_count), sm_count.size(), "\"sm_count\":1e400"),
      "t.json: not valid JSON: [json.exception.out_of_range.406] number overflow parsing "
      "'1e400'");
  expect_error(std::string(text).replace(text.find(sm_count), sm_count.size(),
                                         "\"sm_count\":" + std::string(400, '9')),
               "t.json: not valid JSON: [json.exception.out_of_range.406] number overflow");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["policy"] = {{"victim_weights", {1, 1e300, 1, 1}}};
      },
      "t.json: caches[0].policy.victim_weights[1]: a weight must be at most 1000000000, got 1e+300");
}

// A 2 GiB L1 once ended in bad_alloc (exit 1); 16 million lines per array stay the limit, and
// the state of every SM's copy together is bounded too: a resource error naming the cache.
TEST(DescriptionLoader, DescriptionsTooLargeToSimulateAreRejectedBeforeAllocating) {
  expect_error_after([](json& d) { d["caches"][0]["size_bytes"] = std::uint64_t{1} << 32; },
                     "t.json: caches[0].size_bytes: holds 33554432 lines; the simulator models "
                     "at most 16777216");
  // 2 GiB is 16 M lines, allowed in one array, but each of the 4 SMs holds a copy.
  expect_error_after([](json& d) { d["caches"][0]["size_bytes"] = std::uint64_t{1} << 31; },
                     "t.json: too large to simulate: its caches and TLBs need 2049.1 MiB of "
                     "simulator state (at most 1024 MiB");
  expect_error_after(
      [](json& d) {
        d["caches"][0]["size_bytes"] = std::uint64_t{1} << 28;
        d["caches"][0]["instances_per_sm"] = 64;
        d["global_memory_bytes"] = std::uint64_t{1} << 44;
      },
      "the largest cache is caches[0] \"L1\"");
  expect_error_after(
      [](json& d) {
        d["tlbs"][0]["entries"] = 65536;
        d["tlbs"][0]["ways"] = 0;
      },
      "t.json: tlbs[0].ways: 0 (fully associative) makes one set of 65536 ways; at most 4096");
}

TEST(DescriptionLoader, DeepNestingIsRejectedWithoutRecursion) {
  // 100,000 nested lists once overflowed the stack (printing the value in the message).
  const std::size_t depth = 100'000;
  expect_error("{\"caches\": " + std::string(depth, '[') + std::string(depth, ']') + "}",
               "t.json: lists and objects are nested more than 32 deep");
  expect_error(std::string(depth, '['), "t.json: lists and objects are nested more than 32 deep");
}

TEST(DescriptionLoader, InvalidUtf8AndControlCharactersAreNamedAndEscaped) {
  json document = json::parse(kDesignExample);
  std::string text = document.dump();
  const std::string name = "\"example\"";
  ASSERT_NE(text.find(name), std::string::npos);
  std::string invalid = std::string(text).replace(text.find(name), name.size(), "\"ex\xff\"");
  // The parser's message names the position; the raw byte is shown escaped.
  expect_error(invalid, "ill-formed UTF-8 byte");
  try {
    parse_description(invalid, "t.json");
  } catch (const DescriptionError& error) {
    EXPECT_EQ(std::string(error.what()).find('\xff'), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("\\xff"), std::string::npos) << error.what();
  }
  // A name with an escape sequence (valid JSON) is kept, with its control characters escaped.
  document["name"] = "red\x1b[31m";
  document["caches"][0]["name"] = "L1\n";
  document["shared_memory"]["unified_with"] = "L1\n";
  document["shared_memory"]["carveout_steps_bytes"] = {0};
  const SimDescription loaded = parse_description(document.dump(), "t.json");
  EXPECT_EQ(loaded.name, "red\\x1b[31m");
  EXPECT_EQ(loaded.caches[0].name, "L1\\x0a");
  EXPECT_EQ(loaded.shared_memory.unified_with, "L1\\x0a") << "matched against the escaped name";
  // Keys from the file are escaped in messages too.
  expect_error_after([](json& d) { d["\x1b[2J"] = 1; }, "t.json: unknown key \"\\x1b[2J\"");
}

TEST(DescriptionLoader, OversizedAndEndlessInputsAreRejected) {
  expect_error(std::string(limits::kMaxDescriptionBytes + 1, ' '),
               "t.json: 4194305 bytes; a description is at most 4194304 bytes");
  // /dev/zero never ends: the loader reads one byte more than the limit and stops.
  try {
    load_description_file("/dev/zero");
    ADD_FAILURE() << "no DescriptionError";
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find("/dev/zero: 4194305 bytes"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace memtopo::sim
