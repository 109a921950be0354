// `memtopo study sync` and `memtopo study spilling` as a user calls them on a machine without
// a GPU: listed, and on a simulated device skipped with exit code 10 and the reason, in the
// console and in the JSON.
#include <gtest/gtest.h>

#include "../cli/cli_helpers.hpp"

namespace memtopo::testing {
namespace {

const std::string kTinySim = source_file("tests/sims/tiny.json");

TEST(KernelStudiesCli, ListNamesSyncAndSpilling) {
  const ProcessResult r = memtopo({"study", "--list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("sync\n"), std::string::npos);
  EXPECT_NE(r.out.find("spilling\n"), std::string::npos);
}

TEST(KernelStudiesCli, OnASimulatedDeviceTheyAreSkippedWithTheReason) {
  for (const std::string id : {"sync", "spilling"}) {
    SCOPED_TRACE(id);
    const ProcessResult console = memtopo({"study", id, "--sim", kTinySim});
    EXPECT_EQ(console.exit_code, 10);
    EXPECT_NE(console.out.find("Status: skipped (the simulated device does not model"),
              std::string::npos)
        << console.out;
    const ProcessResult json = memtopo({"study", id, "--sim", kTinySim, "--json", "-"});
    EXPECT_EQ(json.exit_code, 10);
    const auto parsed = nlohmann::json::parse(json.out);
    EXPECT_EQ(parsed["study"]["id"], id);
    EXPECT_EQ(parsed["study"]["status"], "skipped");
    EXPECT_NE(parsed["study"]["reason"].get<std::string>().find("needs a CUDA GPU"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace memtopo::testing
