// What no GPU is, refused by the description loader (issue 37, item 5), and what every real
// GPU reports, accepted: lines and caches against the memory, pages of at least 4 KiB, nothing
// after the description, messages that quote at most 40 characters of a value.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

json tiny() {
  std::ifstream file(std::string(MEMTOPO_SOURCE_DIR) +
                     "/tests/fuzz/corpus/sim_description/throughput.json");
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

// The loader's message for `text` ("" when it loads).
std::string problem_of_text(const std::string& text) {
  try {
    parse_description(text, "t.json");
  } catch (const DescriptionError& error) {
    return error.what();
  }
  return "";
}

std::string problem_after(const std::function<void(json&)>& edit) {
  json description = tiny();
  edit(description);
  return problem_of_text(description.dump());
}

#define EXPECT_SAYS(problem, text) \
  EXPECT_NE((problem).find(text), std::string::npos) << "the message: " << (problem)

TEST(DescriptionPlausibility, TheSeedLoads) {
  EXPECT_EQ(problem_after([](json&) {}), "");
}

TEST(DescriptionPlausibility, ALineLargerThanItsCacheOrTheMemoryIsRefused) {
  EXPECT_SAYS(problem_after([](json& d) {
                d["caches"][0]["line_bytes"] = 131072;
                d["caches"][0]["sector_bytes"] = 131072;
              }),
              "caches[0].size_bytes: 65536 is smaller than line_bytes 131072: a cache holds at "
              "least one line");
  EXPECT_SAYS(problem_after([](json& d) {
                d["global_memory_bytes"] = 1 << 20;
                d["caches"][1]["line_bytes"] = 1 << 21;
                d["caches"][1]["sector_bytes"] = 1 << 21;
                d["caches"][1]["size_bytes"] = 1 << 25;
                d["caches"][1]["ways"] = 16;
              }),
              "caches[1].line_bytes: 2097152 is larger than the device's memory");
}

// A 32 PiB L1 of 2 GiB lines on a 1 GiB device loaded, took 1.25 GB and reported "> 256 KiB".
TEST(DescriptionPlausibility, AnSmCacheLargerThanTheMemoryIsRefused) {
  EXPECT_SAYS(problem_after([](json& d) {
                d["global_memory_bytes"] = std::uint64_t{1} << 30;
                d["caches"][0]["line_bytes"] = std::uint64_t{1} << 31;
                d["caches"][0]["sector_bytes"] = std::uint64_t{1} << 31;
                d["caches"][0]["size_bytes"] = std::uint64_t{1} << 55;
                d["caches"][0]["ways"] = 4096;
              }),
              "caches[0].line_bytes: 2147483648 is larger than the device's memory");
  EXPECT_SAYS(problem_after([](json& d) {
                d["global_memory_bytes"] = 65536;
                d["caches"][0]["instances_per_sm"] = 2;
              }),
              "caches[0].size_bytes: an SM's 131072 bytes of this cache");
  // A device-wide cache may hold more than one SM's share; it is not checked against memory.
  EXPECT_EQ(problem_after([](json& d) { d["global_memory_bytes"] = 65536; }), "");
}

TEST(DescriptionPlausibility, PagesBelowFourKibAreRefused) {
  const auto with_page = [](std::uint64_t page) {
    return problem_after([page](json& d) {
      d["tlbs"] = json::array({{{"name", "T"},
                                {"entries", 8},
                                {"ways", 0},
                                {"page_bytes", page},
                                {"miss_latency_extra", 9}}});
    });
  };
  EXPECT_SAYS(with_page(1), "tlbs[0].page_bytes: must be at least 4096 (4 KiB");
  EXPECT_SAYS(with_page(2048), "must be at least 4096");
  EXPECT_EQ(with_page(4096), "");
}

// `{...}\0 garbage` was accepted by the loader (nlohmann's lexer stops at a NUL byte).
TEST(DescriptionPlausibility, OnlyWhitespaceMayFollowTheDescription) {
  const std::string text = tiny().dump();
  EXPECT_SAYS(problem_of_text(text + std::string(1, '\0') + " garbage"), "a NUL byte at byte");
  EXPECT_SAYS(problem_of_text(text + " garbage"), "not valid JSON");
  EXPECT_SAYS(problem_of_text(text + "{}"), "expected end of input");
  EXPECT_EQ(problem_of_text("\n" + text + " \n\t"), "");
}

// An unknown key, load path, scope, policy or cache name of a megabyte was quoted whole (0.1 to
// 1.75 MB of message) against the 40 characters docs/sim-format.md promises.
TEST(DescriptionPlausibility, MessagesQuoteAtMostFortyCharactersOfAValue) {
  const std::string huge(1 << 20, 'x');
  const std::vector<std::function<void(json&)>> edits = {
      [&](json& d) { d[huge] = 1; },
      [&](json& d) { d["caches"][0][huge] = 1; },
      [&](json& d) { d["caches"][0]["paths"][0] = huge; },
      [&](json& d) { d["caches"][0]["scope"] = huge; },
      [&](json& d) { d["caches"][0]["policy"] = huge; },
      [&](json& d) { d["throughput"]["cache_bytes_per_cycle"][huge] = 5; },
      [&](json& d) { d["caches"][1]["name"] = d["caches"][0]["name"]; },
  };
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const std::string problem = problem_after(edits[i]);
    EXPECT_FALSE(problem.empty()) << i;
    EXPECT_LT(problem.size(), 400u) << i << ": " << problem.substr(0, 200);
  }
}

// Limits admit what every real GPU reports: an RTX 4090's memory clock (GDDR6X at half its data
// rate) was refused.
TEST(DescriptionPlausibility, RealGpuValuesAreAccepted) {
  EXPECT_EQ(problem_after([](json& d) {
              d["throughput"]["memory_clock_khz"] = 10'501'000;
              d["throughput"]["memory_bus_width_bits"] = 384;
              d["clock_khz"] = 2'520'000;
              d["global_memory_bytes"] = std::uint64_t{24} << 30;
              d["sm_count"] = 128;
            }),
            "");
  // The largest figures the API reports today: an H200 (132 SMs, 6016-bit HBM3e at 3,201,000
  // kHz, 141 GiB, 1,980,000 kHz) and a B200 (148 SMs, 8192 bits, 192 GB, 4,000,000 kHz).
  EXPECT_EQ(problem_after([](json& d) {
              d["throughput"]["memory_clock_khz"] = 3'201'000;
              d["throughput"]["memory_bus_width_bits"] = 6016;
              d["clock_khz"] = 1'980'000;
              d["global_memory_bytes"] = std::uint64_t{150'109'880'320};
              d["sm_count"] = 132;
            }),
            "");
  EXPECT_EQ(problem_after([](json& d) {
              d["throughput"]["memory_clock_khz"] = 4'000'000;
              d["throughput"]["memory_bus_width_bits"] = 8192;
              d["global_memory_bytes"] = std::uint64_t{192'000'000'000};
              d["sm_count"] = 148;
            }),
            "");
  EXPECT_SAYS(problem_after([](json& d) { d["throughput"]["memory_clock_khz"] = 200'000'000; }),
              "must be at most 100000000");
}

// A description of 1.3 million empty objects (3.9 MB) took 4 minutes to parse (nlohmann's parse
// with a callback is quadratic in a list of objects).
TEST(DescriptionPlausibility, AListOfManyObjectsIsRefusedInLinearTime) {
  std::string text = "{\"name\": [";
  for (int i = 0; i < 1'000'000; ++i) text += "{},";
  text.back() = ']';
  text += "}";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_SAYS(problem_of_text(text), "name: expected a string");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20);
}

}  // namespace
}  // namespace memtopo::sim
