// "Did you mean" (model/suggest.hpp): typos within a third of the word, nothing for a stranger.
#include <gtest/gtest.h>

#include "model/suggest.hpp"

namespace memtopo {
namespace {

TEST(Suggest, EditDistanceCountsASwapAsOne) {
  EXPECT_EQ(edit_distance("compare", "compare"), 0u);
  EXPECT_EQ(edit_distance("comapre", "compare"), 1u);  // swap
  EXPECT_EQ(edit_distance("--devcie", "--device"), 1u);
  EXPECT_EQ(edit_distance("reprot", "report"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, TheClosestWithinAThirdOfTheWord) {
  const std::vector<std::string> subcommands{"report", "compare", "export", "study"};
  EXPECT_EQ(closest_word("comapre", subcommands), "compare");
  EXPECT_EQ(closest_word("exprot", subcommands), "export");
  EXPECT_EQ(closest_word("zzzzzz", subcommands), std::nullopt);
  EXPECT_EQ(closest_word("l1.szie", {"l1.size", "l2.size", "l1.sets"}), "l1.size");
  EXPECT_EQ(did_you_mean("comapre", subcommands), "; did you mean 'compare'?");
  EXPECT_EQ(did_you_mean("zzzzzz", subcommands), ".");
}

}  // namespace
}  // namespace memtopo
