// Outputs never touch inputs (cli/path_aliases.hpp): every input and output of every command,
// named the same file in every way a path can (as given, through a symlink, a hard link, a
// detour through ".."), is a usage error before anything runs, and the input stays as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "cli_helpers.hpp"

namespace memtopo::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kUsage = 2;

// Another name of `file` in `directory`, made in one of the ways a path can name a file.
using Alias = std::function<std::string(const fs::path& file, const fs::path& directory)>;

const std::vector<std::pair<std::string, Alias>>& aliases() {
  static const std::vector<std::pair<std::string, Alias>> kAliases{
      {"the same path", [](const fs::path& file, const fs::path&) { return file.string(); }},
      {"a symlink",
       [](const fs::path& file, const fs::path& directory) {
         fs::create_symlink(file, directory / "link");
         return (directory / "link").string();
       }},
      {"a hard link",
       [](const fs::path& file, const fs::path& directory) {
         fs::create_hard_link(file, directory / "hard");
         return (directory / "hard").string();
       }},
      {"a detour", [](const fs::path& file, const fs::path& directory) {
         fs::create_directories(directory / "sub");
         return (directory / "sub" / ".." / file.filename()).string();
       }}};
  return kAliases;
}

// Runs `arguments` (with INPUT and OUTPUT replaced) for each alias of the input as the output:
// exit 2, the message names the input, the input unchanged.
void expect_refused(const std::string& name, const std::vector<std::string>& arguments,
                    const std::string& input_text) {
  for (const auto& [how, make_alias] : aliases()) {
    SCOPED_TRACE(name + ", the output named through " + how);
    const fs::path dir = fresh_directory("aliases");
    const fs::path input = dir / "input.json";
    write(input, input_text);
    const std::string output = make_alias(input, dir);
    std::vector<std::string> args;
    for (const std::string& argument : arguments) {
      args.push_back(argument == "INPUT"    ? input.string()
                     : argument == "OUTPUT" ? output
                                            : argument);
    }
    const ProcessResult result = memtopo(args);
    EXPECT_EQ(result.exit_code, kUsage) << result.err;
    EXPECT_NE(result.err.find("would destroy the input"), std::string::npos) << result.err;
    EXPECT_EQ(read(input), input_text) << "the input was changed";
  }
}

std::string a_run() {
  static const std::string run = [] {
    const fs::path dir = fresh_directory("aliases_run");
    EXPECT_EQ(memtopo(quick_run({"--json", (dir / "run.json").string()})).exit_code, 0);
    return read(dir / "run.json");
  }();
  return run;
}

TEST(CliAliases, EveryOutputOverEveryInputIsAUsageErrorAndTheInputStays) {
  const std::string sim = read(smallest_test_sim());
  const std::vector<std::string> discovery = {"--only", "l1.size", "--quiet", "--sim", "INPUT"};
  for (const std::string& output : {"--json", "--html", "--markdown", "--traces"}) {
    std::vector<std::string> args = discovery;
    args.insert(args.end(), {output, "OUTPUT"});
    expect_refused(std::string("discovery ") + output, args, sim);
  }
  expect_refused("discovery --export", {"--sim", "INPUT", "--export", "accel-sim", "OUTPUT"}, sim);
  expect_refused("study --json", {"study", "stride", "--sim", "INPUT", "--json", "OUTPUT"}, sim);
  const std::string run = a_run();
  expect_refused("study --topology", {"study", "stride", "--topology", "INPUT", "--html", "OUTPUT"},
                 run);
  expect_refused("report --html", {"report", "INPUT", "--html", "OUTPUT"}, run);
  expect_refused("report --markdown", {"report", "INPUT", "--markdown", "OUTPUT"}, run);
  expect_refused("export", {"export", "accel-sim", "INPUT", "OUTPUT"}, run);
  expect_refused("compare --json (A)", {"compare", "--json", "OUTPUT", "INPUT", "INPUT"}, run);
}

TEST(CliAliases, TwoOutputsOfOneFileAreAUsageError) {
  const fs::path dir = fresh_directory("aliases_outputs");
  for (const auto& [first, second] : std::vector<std::pair<std::string, std::string>>{
           {"--json", "--html"}, {"--html", "--markdown"}, {"--json", "--markdown"}}) {
    const ProcessResult result =
        memtopo(quick_run({first, (dir / "same").string(), second, (dir / "same").string()}));
    EXPECT_EQ(result.exit_code, kUsage) << result.err;
    EXPECT_NE(result.err.find("are the same file"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir / "same"));
  }
  fs::create_symlink(dir / "target.html", dir / "dangling");
  const ProcessResult through_link = memtopo(
      quick_run({"--html", (dir / "target.html").string(), "--json", (dir / "dangling").string()}));
  EXPECT_EQ(through_link.exit_code, kUsage) << "a dangling link names its target";
  // Standard output and a device are never "the same file": writing them twice loses nothing.
  EXPECT_EQ(memtopo(quick_run({"--json", "/dev/null", "--html", "/dev/null"})).exit_code, 0);
  EXPECT_EQ(memtopo({"compare", "--json", "-",
                     source_file("tests/fuzz/corpus/topology_json/"
                                 "minimal.json"),
                     source_file("tests/fuzz/corpus/topology_json/minimal.json")})
                .exit_code,
            0)
      << "two runs may be one file (an input read twice)";
}

// `--json --quiet` wrote the results to a file named "--quiet".
TEST(CliAliases, AnOptionGivenAsAFileIsAUsageError) {
  const fs::path dir = fresh_directory("aliases_options");
  for (const std::string& option : {"--json", "--html", "--markdown", "--traces"}) {
    SCOPED_TRACE(option);
    const ProcessResult result =
        run_process({"/bin/sh", "-c",
                     "cd '" + dir.string() + "' && '" + kBinary + "' --sim '" +
                         smallest_test_sim() + "' --only l1.size " + option + " --quiet"});
    EXPECT_EQ(result.exit_code, kUsage) << result.err;
    EXPECT_NE(result.err.find("which is an option, not a file"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir / "--quiet"));
  }
  const ProcessResult sim = memtopo({"--sim", "--quiet", "--only", "l1.size"});
  EXPECT_EQ(sim.exit_code, kUsage);
  EXPECT_NE(sim.err.find("--sim was given '--quiet'"), std::string::npos) << sim.err;
  EXPECT_EQ(memtopo({"report", (dir / "r.json").string(), "--html", "--markdown"}).exit_code,
            kUsage);
}

}  // namespace
}  // namespace memtopo::testing
