// A command line that shows itself (issue 36, item 5): --help lists every subcommand, each has
// its own --help, typos get a suggestion, --list fits the terminal or 120 columns.
#include <gtest/gtest.h>

#include <sstream>

#include "cli_helpers.hpp"

namespace memtopo::testing {
namespace {

const std::vector<std::string> kSubcommands = {"report", "compare", "export", "fleet", "study"};

std::size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) {
    std::size_t columns = 0;  // UTF-8: count the bytes that start a character
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
    widest = std::max(widest, columns);
  }
  return widest;
}

TEST(CliHelp, ListsEverySubcommandWithOneLine) {
  const ProcessResult r = memtopo({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& name : kSubcommands) {
    EXPECT_NE(r.out.find("\n  " + name + " "), std::string::npos) << name << " in\n" << r.out;
  }
  EXPECT_LT(r.out.find("Subcommands"), r.out.find("Options:")) << "subcommands come first";
}

TEST(CliHelp, EverySubcommandHasItsOwnHelp) {
  for (const std::string& name : kSubcommands) {
    const ProcessResult r = memtopo({name, "--help"});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("memtopo " + name), std::string::npos) << name << ":\n" << r.out;
  }
}

TEST(CliHelp, AMistypedSubcommandGetsASuggestion) {
  const ProcessResult r = memtopo({"comapre", "a.json", "b.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'comapre'; did you mean 'compare'?"), std::string::npos)
      << r.err;
  // Nothing close: no suggestion, still the pointer to --help.
  const ProcessResult far = memtopo({"zzzzzz"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("memtopo --help"), std::string::npos) << far.err;
}

TEST(CliHelp, AMistypedOptionGetsASuggestion) {
  const ProcessResult r = memtopo({"--devcie", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option '--devcie'; did you mean '--device'?"), std::string::npos)
      << r.err;
  const ProcessResult sub = memtopo({"compare", "--al", "a.json", "b.json"});
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_NE(sub.err.find("did you mean '--all'?"), std::string::npos) << sub.err;
}

TEST(CliHelp, MistypedIdsAndStudiesGetASuggestion) {
  const ProcessResult only = memtopo({"--only", "l1.szie", "--sim", smallest_test_sim()});
  EXPECT_EQ(only.exit_code, 2);
  EXPECT_NE(only.err.find("unknown id 'l1.szie'; did you mean 'l1.size'?"), std::string::npos)
      << only.err;
  const ProcessResult study = memtopo({"study", "stirde", "--sim", smallest_test_sim()});
  EXPECT_EQ(study.exit_code, 2);
  EXPECT_NE(study.err.find("unknown study 'stirde'; did you mean 'stride'?"), std::string::npos)
      << study.err;
}

TEST(CliHelp, ListFitsTheTerminalOr120Columns) {
  const ProcessResult plain = memtopo({"--list"}, {"COLUMNS="});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_LE(widest_line(plain.out), 120u) << plain.out;
  const ProcessResult narrow = memtopo({"--list"}, {"COLUMNS=100"});
  EXPECT_LE(widest_line(narrow.out), 100u) << narrow.out;
  EXPECT_NE(narrow.out.find("p2p.latency"), std::string::npos);
}

}  // namespace
}  // namespace memtopo::testing
