// memtopo compare and memtopo export as a user calls them, on runs of simulated devices: the
// exit codes (0 equal, 9 different, 4 not memtopo's JSON), the difference a sim's L1 size makes,
// and the exported dl1 string against the description's ground truth.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using nlohmann::json;

constexpr int kRunsDiffer = 9;
constexpr int kBadInput = 4;
const std::string kSmallSim = "tests/probes/sims/hopper-like-small.json";  // L1 32 KiB
const std::string kLargeL1Sim = "tests/probes/sims/l1-176k-clean.json";    // L1 176 KiB

// One discovery of `only` on `sim`, written to dir/name.json.
fs::path discover(const fs::path& dir, const std::string& name, const std::string& sim,
                  const std::string& only, std::vector<std::string> extra = {}) {
  const fs::path file = dir / (name + ".json");
  std::vector<std::string> args{"--sim", source_file(sim), "--quiet",    "--only",
                                only,    "--json",         file.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult result = memtopo(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return file;
}

const json* find_property(const json& comparison, const std::string& element,
                          const std::string& property) {
  for (const json& p : comparison["properties"]) {
    if (p["element"] == element && p["property"] == property) return &p;
  }
  return nullptr;
}

TEST(CliCompare, ARunComparedWithItselfExits0) {
  const fs::path dir = fresh_directory("compare_self");
  const fs::path run = discover(dir, "a", kSmallSim, "l1.size,l1.latency");
  const ProcessResult result = memtopo({"compare", run.string(), run.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("agree within their spreads"), std::string::npos) << result.out;
}

TEST(CliCompare, AnotherSeedStaysWithinTheSpread) {
  const fs::path dir = fresh_directory("compare_seed");
  const fs::path a = discover(dir, "a", kSmallSim, "l1.size,l1.latency,l2.latency");
  const fs::path b =
      discover(dir, "b", kSmallSim, "l1.size,l1.latency,l2.latency", {"--seed", "2"});
  const ProcessResult result = memtopo({"compare", "--json", "-", a.string(), b.string()});
  EXPECT_EQ(result.exit_code, 0) << result.out;
  const json comparison = json::parse(result.out);
  EXPECT_EQ(comparison["schema"], "memtopo-compare/2");
  EXPECT_EQ(comparison["differ"], false);
}

TEST(CliCompare, DifferentL1SizesAreADifference) {
  const fs::path dir = fresh_directory("compare_l1");
  const fs::path a = discover(dir, "a", kSmallSim, "l1.size");
  const fs::path b = discover(dir, "b", kLargeL1Sim, "l1.size");
  const fs::path out = dir / "comparison.json";
  const ProcessResult result = memtopo({"compare", "--json", out.string(), a.string(), b.string()});
  EXPECT_EQ(result.exit_code, kRunsDiffer) << result.err;
  EXPECT_NE(result.out.find("l1.size"), std::string::npos) << result.out;
  const json comparison = json::parse(read(out));
  const json* size = find_property(comparison, "l1", "size");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->at("verdict"), "changed");
  EXPECT_EQ(size->at("a"), 32768);  // the descriptions' ground truth
  EXPECT_EQ(size->at("b"), 180224);
  EXPECT_DOUBLE_EQ(size->at("delta").get<double>(), 180224 - 32768);
}

TEST(CliCompare, AnythingButMemtopoJsonExits4) {
  const fs::path dir = fresh_directory("compare_bad");
  const fs::path run = discover(dir, "a", kSmallSim, "l1.latency");
  write(dir / "corrupt.json", read(run).substr(0, 200));
  write(dir / "foreign.json", R"({"name": "not memtopo", "values": [1, 2]})");
  json other = json::parse(read(run));
  other["tool"]["name"] = "mt4g";
  write(dir / "other_tool.json", other.dump());
  ProcessResult comparison =
      memtopo({"compare", "--json", (dir / "c.json").string(), run.string(), run.string()});
  const std::vector<std::pair<std::string, std::string>> cases{
      {(dir / "corrupt.json").string(), "not valid JSON"},
      {(dir / "foreign.json").string(), "schema_version"},
      {(dir / "other_tool.json").string(), "mt4g"},
      {(dir / "c.json").string(), "is a comparison of two runs"},  // compare's own output
      {source_file(kSmallSim), "schema_version"},     // a sim description
      {(dir / "missing.json").string(), "no such file"},
      {dir.string(), "directory"}};
  for (const auto& [file, expected] : cases) {
    SCOPED_TRACE(file);
    const ProcessResult result = memtopo({"compare", run.string(), file});
    EXPECT_EQ(result.exit_code, kBadInput);
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("memtopo --json FILE writes"), std::string::npos);
  }
  EXPECT_EQ(memtopo({"compare", run.string()}).exit_code, 2);
  EXPECT_EQ(memtopo({"export", "accel-sim", (dir / "foreign.json").string(), "-"}).exit_code,
            kBadInput);
}

std::string option_value(const std::string& text, const std::string& option) {
  std::smatch match;
  const std::regex line("(^|\n)" + option + " ([^\n]*)");
  return std::regex_search(text, match, line) ? match[2].str() : "";
}

// Sets, line and ways of cache `name` in a sim description: its ground truth.
std::string dl1_geometry(const std::string& sim, const std::string& name) {
  const json description = json::parse(read(source_file(sim)));
  for (const json& cache : description["caches"]) {
    if (cache["name"] != name) continue;
    const auto size = cache["size_bytes"].get<std::uint64_t>();
    const auto line = cache["line_bytes"].get<std::uint64_t>();
    const auto ways = cache["ways"].get<std::uint64_t>();
    return std::to_string(size / (line * ways)) + ":" + std::to_string(line) + ":" +
           std::to_string(ways);
  }
  return "";
}

TEST(CliExport, Dl1OfASimulatedDeviceIsItsDescription) {
  for (const std::string& sim : {kSmallSim, kLargeL1Sim}) {
    SCOPED_TRACE(sim);
    const fs::path dir = fresh_directory("export_sim");
    const fs::path config = dir / "accel-sim.config";
    const fs::path run =
        discover(dir, "run", sim, "l1.sets,l1.line,l1.latency,l2.latency,dram.latency",
                 {"--export", "accel-sim", config.string()});
    const std::string text = read(config);
    EXPECT_NE(text.find("SIMULATED DEVICE"), std::string::npos);
    EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1").substr(0, 2), "S:");  // 32 B sectors
    EXPECT_EQ(option_value(text, "-gpgpu_cache:dl1").substr(2, dl1_geometry(sim, "L1").size() + 1),
              dl1_geometry(sim, "L1") + ",");
    // Increments of the run's own latencies, as Accel-Sim's tuner writes them: of a level with
    // near and far modes, the typical latency (each mode's value weighted by its share).
    const json result = json::parse(read(run));
    auto latency = [&](const std::string& element) {
      for (const json& e : result["elements"]) {
        if (e["id"] != element) continue;
        const json& property = e["latency"];
        if (!property.contains("modes")) return property["value"].get<double>();
        double typical = 0;
        for (const json& mode : property["modes"])
          typical += mode["value"].get<double>() * mode["share"].get<double>();
        return typical;
      }
      return -1.0;
    };
    EXPECT_EQ(option_value(text, "-gpgpu_l1_latency"), std::to_string(std::llround(latency("l1"))));
    EXPECT_EQ(option_value(text, "-gpgpu_l2_rop_latency"),
              std::to_string(std::llround(latency("l2") - latency("l1"))));
    EXPECT_EQ(option_value(text, "-dram_latency"),
              std::to_string(std::llround(latency("dram") - latency("l2"))));
    EXPECT_NE(text.find("# not measured:"), std::string::npos);  // no banks, no carveout
    EXPECT_NE(text.find("-gpgpu_shmem_num_banks (shared.banks not in the run)"), std::string::npos);
    // The same export from the saved run.
    const ProcessResult again = memtopo({"export", "accel-sim", run.string(), "-"});
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, text);
  }
}

TEST(CliExport, BadExportArgumentsAreUsageErrors) {
  EXPECT_EQ(memtopo({"--export", "gem5", "x.cfg"}).exit_code, 2);
  EXPECT_EQ(memtopo({"--export", "accel-sim"}).exit_code, 2);
  EXPECT_EQ(memtopo({"--export", "accel-sim", "-"}).exit_code, 2);
  EXPECT_EQ(memtopo({"export", "gem5", "run.json", "-"}).exit_code, 2);
}

}  // namespace
}  // namespace memtopo
