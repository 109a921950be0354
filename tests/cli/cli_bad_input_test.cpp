// Simulated-device files that once crashed memtopo, ended it with an internal error or were
// computed with (issue 10, item 6), given to the binary as a user would: each now ends with
// exit 4 and a message that names the key or the position, within 10 s and 2 GiB.
// tests/fuzz/ tries thousands more in-process.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using nlohmann::json;

constexpr double kMaxSeconds = 10;
constexpr long kMaxResidentKib = 2L * 1024 * 1024;
constexpr std::uint64_t kAllOnes32 = 4294967295u;

struct BadInput {
  std::string name;
  std::function<std::string(const std::string& valid)> make;  // from the valid file's text
  std::string expected;                                       // in the message
};

std::string edited(const std::string& valid, const std::function<void(json&)>& edit) {
  json description = json::parse(valid);
  edit(description);
  return description.dump(2);
}

// `valid` with the text of the value of "sm_count" replaced by `text`.
std::string with_sm_count_text(const std::string& valid, const std::string& text) {
  json description = json::parse(valid);
  description["sm_count"] = 123454321;
  std::string out = description.dump();
  out.replace(out.find("123454321"), 9, text);
  return out;
}

std::vector<BadInput> bad_inputs() {
  return {
      {"number_overflow", [](auto& v) { return with_sm_count_text(v, "1e400"); },
       "number overflow parsing '1e400'"},
      {"400_digits", [](auto& v) { return with_sm_count_text(v, std::string(400, '7')); },
       "number overflow"},
      {"deep_nesting",
       [](auto& v) {
         return with_sm_count_text(v, std::string(100'000, '[') + std::string(100'000, ']'));
       },
       "nested more than 32 deep"},
      {"instances_2_32",
       [](auto& v) {
         return edited(v, [](json& d) { d["caches"][0]["instances_per_sm"] = kAllOnes32; });
       },
       "caches[0].instances_per_sm: must be at most 64"},
      {"l1_2gib",
       [](auto& v) {
         return edited(v, [](json& d) {
           d["caches"][0]["size_bytes"] = std::uint64_t{1} << 31;
           d["global_memory_bytes"] = std::uint64_t{1} << 32;
         });
       },
       "too large to simulate"},
      {"l1_beyond_memory",
       [](auto& v) {
         return edited(v, [](json& d) { d["caches"][0]["size_bytes"] = std::uint64_t{1} << 31; });
       },
       "are more than the device's memory"},
      {"hit_latency_2_32",
       [](auto& v) {
         return edited(v, [](json& d) { d["caches"][0]["hit_latency"] = kAllOnes32; });
       },
       "caches[0].hit_latency: must be at most 100000"},
      {"timing_overhead_2_32",
       [](auto& v) { return edited(v, [](json& d) { d["timing_overhead"] = kAllOnes32; }); },
       "timing_overhead: must be at most 100000"},
      {"sm_count_2_63",
       [](auto& v) { return edited(v, [](json& d) { d["sm_count"] = std::uint64_t{1} << 63; }); },
       "sm_count: must be at most 1024"},
      {"sm_count_1e30", [](auto& v) { return edited(v, [](json& d) { d["sm_count"] = 1e30; }); },
       "sm_count: expected a non-negative integer"},
      {"negative", [](auto& v) { return edited(v, [](json& d) { d["dram_latency"] = -5; }); },
       "dram_latency: must not be negative"},
      {"wrong_type", [](auto& v) { return edited(v, [](json& d) { d["caches"] = "L1"; }); },
       "caches: expected a list"},
      {"empty_paths",
       [](auto& v) { return edited(v, [](json& d) { d["caches"][0]["paths"] = json::array(); }); },
       "caches[0].paths: a cache needs at least one load path"},
      {"size_not_a_multiple_of_the_line",
       [](auto& v) { return edited(v, [](json& d) { d["caches"][0]["size_bytes"] = 4100; }); },
       "caches[0].size_bytes: 4100 is not a positive multiple of line_bytes"},
      {"ways_do_not_divide",
       [](auto& v) { return edited(v, [](json& d) { d["caches"][0]["ways"] = 3; }); },
       "caches[0].size_bytes"},
      {"truncated", [](auto& v) { return v.substr(0, v.size() / 2); }, ", column "},
      {"invalid_utf8", [](auto& v) { std::string text = edited(v, [](json&) {});
         return text.insert(text.find('"') + 1, "\xff"); },
       "ill-formed UTF-8 byte"},
      {"duplicate_key",
       [](auto& v) { return "{\"name\": \"twice\", " + v.substr(v.find('{') + 1); },
       "duplicate key \"name\""},
  };
}

TEST(CliBadInput, EveryBadDescriptionEndsWithExit4NamingTheProblem) {
  const std::string valid = read(smallest_test_sim());
  fs::path dir = fresh_directory("bad_input");
  for (const BadInput& input : bad_inputs()) {
    SCOPED_TRACE(input.name);
    const fs::path file = dir / (input.name + ".json");
    write(file, input.make(valid));
    ProcessResult r = memtopo({"--sim", file.string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find(file.string() + ": "), std::string::npos) << "names the file: " << r.err;
    EXPECT_NE(r.err.find(input.expected), std::string::npos) << r.err;
    EXPECT_LT(r.seconds, kMaxSeconds);
    EXPECT_LT(r.max_rss_kib, kMaxResidentKib);
  }
}

TEST(CliBadInput, AnEndlessFileIsRejectedNotReadToTheEnd) {
  ProcessResult r = memtopo({"--sim", "/dev/zero", "--quiet"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("a description is at most"), std::string::npos) << r.err;
  EXPECT_LT(r.max_rss_kib, kMaxResidentKib);
}

}  // namespace
}  // namespace memtopo
