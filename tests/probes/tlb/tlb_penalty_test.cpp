// A TLB level's miss_penalty on known plateaus: the difference of the levels (or of the chains
// that all missed, from an exact scan of sets), a spread over every pair of footprints, and a
// lower bound where the scan ran but could not be read.
#include "probes/tlb/tlb_penalty.hpp"

#include <gtest/gtest.h>

namespace memtopo::staircase {
namespace {

PenaltyInputs h200_l1_like() {
  PenaltyInputs in;
  in.before_level = 287;
  in.after_level = 297;
  in.before = {286.5, 287, 287.5};
  in.after = {296, 297, 298};
  in.stride_bytes = 16ull << 20;
  return in;
}

const Confidence kStep{ConfidenceFactor{"edge", 0.9, "the step"}};

TEST(TlbPenalty, TheAfterLevelMinusTheBeforeLevelWithASpreadOverEveryPair) {
  const Property p = tlb_miss_penalty(h200_l1_like(), kStep);
  EXPECT_DOUBLE_EQ(p.value.get<double>(), 10);
  EXPECT_FALSE(p.inconclusive);
  ASSERT_TRUE(p.spread && p.confidence);
  EXPECT_EQ(p.spread->samples, 9u);
  EXPECT_DOUBLE_EQ(p.spread->min, 296 - 287.5);
  EXPECT_DOUBLE_EQ(p.spread->max, 298 - 286.5);
  EXPECT_DOUBLE_EQ(*p.confidence, 0.9);
  EXPECT_NE(p.method.find("plateau after the level's step"), std::string::npos) << p.method;
  EXPECT_NE(p.method.find("16 MiB-stride"), std::string::npos) << p.method;
}

TEST(TlbPenalty, AnExactScanGivesTheChainsThatAllMissed) {
  PenaltyInputs in = h200_l1_like();
  in.all_missing_mean = 299.5;
  const Property p = tlb_miss_penalty(in, kStep);
  EXPECT_DOUBLE_EQ(p.value.get<double>(), 12.5);
  EXPECT_FALSE(p.inconclusive);
  EXPECT_NE(p.method.find("every element missed"), std::string::npos) << p.method;
}

TEST(TlbPenalty, AScanThatRanUnreadGivesALowerBound) {
  PenaltyInputs in = h200_l1_like();
  in.unread = "the scan of sets stopped at 64 lengths";
  const Property p = tlb_miss_penalty(in, kStep);
  EXPECT_TRUE(p.inconclusive);
  EXPECT_EQ(p.bound, Bound::lower);
  // The p5 of every after-chain minus every before-chain (10 at the centre): a bound that holds
  // against the plateaus' own variation.
  ASSERT_TRUE(p.spread.has_value());
  EXPECT_DOUBLE_EQ(p.value.get<double>(), p.spread->p5);
  EXPECT_LT(p.value.get<double>(), 10);
  EXPECT_FALSE(p.confidence.has_value());
  EXPECT_NE(p.note.find("stopped at 64 lengths"), std::string::npos) << p.note;
  EXPECT_EQ(p.evidence.at("bound"), "lower");
}

}  // namespace
}  // namespace memtopo::staircase
