#include "cli/options.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/exit_codes.hpp"

namespace memtopo {
namespace {

struct Parsed {
  CommandLine command_line;
  std::string out;
  std::string err;
};

Parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "memtopo");
  std::ostringstream out, err;
  CommandLine command_line =
      parse_command_line(static_cast<int>(args.size()), args.data(), out, err);
  return {command_line, out.str(), err.str()};
}

TEST(Options, DefaultsRunAllProbesOnDeviceZero) {
  Parsed p = parse({});
  ASSERT_TRUE(p.command_line.options);
  const Options& o = *p.command_line.options;
  EXPECT_EQ(o.device, 0);
  EXPECT_FALSE(o.device_given);
  EXPECT_TRUE(o.only.empty());
  EXPECT_EQ(o.seed, 1u);
  EXPECT_FALSE(o.quiet);
}

TEST(Options, ReadsEveryOption) {
  Parsed p = parse({"--device", "1", "--json", "out.json", "--traces", "t", "--only",
                    "l1, l2.size,,tex", "--seed", "42", "--quiet"});
  ASSERT_TRUE(p.command_line.options) << p.err;
  const Options& o = *p.command_line.options;
  EXPECT_EQ(o.device, 1);
  EXPECT_TRUE(o.device_given);
  EXPECT_EQ(o.json_file, "out.json");
  EXPECT_EQ(o.traces_dir, "t");
  EXPECT_EQ(o.only, (std::vector<std::string>{"l1", "l2.size", "tex"}));
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.quiet);
}

TEST(Options, RepeatedOnlyOptionsAddUp) {
  Parsed p = parse({"--only", "l1", "--only", "l2.size,tex"});
  ASSERT_TRUE(p.command_line.options) << p.err;
  EXPECT_EQ(p.command_line.options->only, (std::vector<std::string>{"l1", "l2.size", "tex"}));
}

TEST(Options, ExplicitDeviceZeroCountsAsNamed) {
  Parsed p = parse({"--device", "0"});
  ASSERT_TRUE(p.command_line.options);
  EXPECT_TRUE(p.command_line.options->device_given);
}

TEST(Options, HelpShowsExamplesAndExitCodes) {
  Parsed p = parse({"--help"});
  EXPECT_FALSE(p.command_line.options);
  EXPECT_EQ(p.command_line.exit_code, exit_code::ok);
  EXPECT_NE(p.out.find("Examples:"), std::string::npos);
  EXPECT_NE(p.out.find("130  interrupted"), std::string::npos);
  EXPECT_NE(p.out.find("--only"), std::string::npos);
}

TEST(Options, VersionNamesToolAndGitDescribe) {
  Parsed p = parse({"--version"});
  EXPECT_EQ(p.command_line.exit_code, exit_code::ok);
  EXPECT_EQ(p.out.rfind("memtopo ", 0), 0u) << p.out;
  EXPECT_NE(p.out.find("("), std::string::npos) << p.out;
}

TEST(Options, DeviceTakesAllOrAListForAMultiDeviceRun) {
  Parsed all = parse({"--device", "all"});
  ASSERT_TRUE(all.command_line.options);
  EXPECT_TRUE(all.command_line.options->all_devices);
  EXPECT_TRUE(multi_device(*all.command_line.options));

  Parsed list = parse({"--device", "1,0", "--sim", "multi.json"});
  ASSERT_TRUE(list.command_line.options) << list.err;
  EXPECT_EQ(list.command_line.options->devices, (std::vector<int>{1, 0}));
  EXPECT_TRUE(multi_device(*list.command_line.options));

  // One index stays a one-device run.
  Parsed one = parse({"--device", "1"});
  ASSERT_TRUE(one.command_line.options);
  EXPECT_FALSE(multi_device(*one.command_line.options));
  EXPECT_EQ(one.command_line.options->device, 1);

  for (const char* bad : {"0,0", "0,", ",1", "0,-1", "al", "0;1"}) {
    Parsed p = parse({"--device", bad});
    EXPECT_EQ(p.command_line.exit_code, exit_code::usage) << bad;
  }
  // A repeat is named as such ("not a comma-separated list" said it was not a list).
  Parsed twice = parse({"--device", "1,0,1"});
  EXPECT_NE(twice.err.find("device 1 is named twice in '1,0,1'"), std::string::npos) << twice.err;
}

TEST(Options, BadUsageIsExitCodeTwoWithAHint) {
  for (std::vector<const char*> args : {std::vector<const char*>{"--frobnicate"},
                                        {"--device", "-1"},
                                        {"--device", "x"},
                                        {"--seed", "many"},
                                        {"--seed", "-3"},
                                        {"--json"},
                                        {"--device", "1", "--sim", "a.json"},
                                        {"stray"}}) {
    Parsed p = parse(args);
    EXPECT_FALSE(p.command_line.options) << args[0];
    EXPECT_EQ(p.command_line.exit_code, exit_code::usage) << args[0];
    EXPECT_NE(p.err.find("memtopo --help"), std::string::npos) << p.err;
  }
}

}  // namespace
}  // namespace memtopo
