// How shared_with concludes from its directions, without a backend: pair verdicts, their
// confidence by the agreement and contrast rules, contradictions and transitivity.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "probes/sharing/sharing_relation.hpp"

namespace memtopo {
namespace {

// A measured direction: evicted (the chase missed after the sweep) or not, with its contrast.
Direction direction(bool evicted, double contrast) {
  Direction d;
  d.measured = true;
  d.verdict.fits = !evicted;
  d.contrast = contrast;
  return d;
}

TEST(SharingRelation, TwoDirectionsThatAgreeOnSharing) {
  const Direction ab = direction(true, 0.5), ba = direction(true, 0.1);
  const PairConclusion c = conclude_pair(&ab, &ba, "l1", "tex");
  EXPECT_TRUE(c.shared);
  EXPECT_EQ(c.directions, 2u);
  EXPECT_EQ(c.agreeing, 2u);
  EXPECT_TRUE(c.contradiction.empty());
  // The less clear direction: half the share a shared array loses.
  EXPECT_EQ(c.strength.rule, "contrast");
  EXPECT_DOUBLE_EQ(c.strength.value, 0.1 / kExpectedEvictedShare);
  EXPECT_DOUBLE_EQ(c.confidence().value(), 3.0 / 4.0 * 0.5);  // agreement 2 of 2: 3/4
}

TEST(SharingRelation, TwoDirectionsThatAgreeOnNoSharing) {
  const Direction ab = direction(false, 0.0), ba = direction(false, 0.05);
  const PairConclusion c = conclude_pair(&ab, &ba, "l1", "constant_l1");
  EXPECT_FALSE(c.shared);
  EXPECT_EQ(c.agreeing, 2u);
  // What stayed away of a shared array's loss: 0.15 of 0.2.
  EXPECT_DOUBLE_EQ(c.strength.value, (kExpectedEvictedShare - 0.05) / kExpectedEvictedShare);
}

TEST(SharingRelation, ADisagreeingPairIsSharedAtEvenOddsAndSaysWhy) {
  const Direction ab = direction(false, 0.0), ba = direction(true, 0.4);
  const PairConclusion c = conclude_pair(&ab, &ba, "l1", "tex");
  EXPECT_TRUE(c.shared);
  EXPECT_EQ(c.agreeing, 1u);
  EXPECT_EQ(c.directions, 2u);
  EXPECT_DOUBLE_EQ(c.strength.value, 1.0);        // the evicting direction, clamped
  EXPECT_DOUBLE_EQ(c.confidence().value(), 0.5);  // agreement 1 of 2
  EXPECT_NE(c.contradiction.find("tex's chase missed after an l1 sweep"), std::string::npos)
      << c.contradiction;
}

TEST(SharingRelation, OneDirectionAloneSpeaksForThePair) {
  const Direction ba = direction(true, 0.2);
  const PairConclusion c = conclude_pair(nullptr, &ba, "constant_l1", "l1");
  EXPECT_TRUE(c.shared);
  EXPECT_EQ(c.directions, 1u);
  EXPECT_DOUBLE_EQ(c.confidence().value(), 2.0 / 3.0);  // agreement 1 of 1, full contrast
}

TEST(SharingRelation, AnElementIsCheckedByEveryDirectionOfItsPairs) {
  // l1 and tex share, ro shares with neither, every direction clean.
  std::map<std::pair<std::size_t, std::size_t>, Direction> directions;
  directions[{0, 1}] = directions[{1, 0}] = direction(true, 0.3);
  directions[{0, 2}] = directions[{2, 0}] = direction(false, 0.0);
  directions[{1, 2}] = directions[{2, 1}] = direction(false, 0.0);
  const SharingRelation r = conclude_relation({"l1", "tex", "ro"}, directions);
  EXPECT_TRUE(r.pairs[0][1].shared && r.pairs[1][0].shared);
  EXPECT_FALSE(r.pairs[0][2].shared);
  EXPECT_TRUE(r.contradictions.empty());
  // Four directions, all agreeing: (4 + 1) / (4 + 2).
  EXPECT_DOUBLE_EQ(r.element_confidence(0).value(), 5.0 / 6.0);
  EXPECT_EQ(r.element_confidence(0).factors()[0].rule, "agreement");
}

TEST(SharingRelation, ARelationThatIsNotTransitiveIsAContradiction) {
  std::map<std::pair<std::size_t, std::size_t>, Direction> directions;
  directions[{0, 1}] = directions[{1, 0}] = direction(true, 0.3);
  directions[{1, 2}] = directions[{2, 1}] = direction(true, 0.3);
  directions[{0, 2}] = directions[{2, 0}] = direction(false, 0.0);
  const SharingRelation r = conclude_relation({"l1", "tex", "ro"}, directions);
  ASSERT_EQ(r.contradictions.size(), 1u);
  EXPECT_NE(r.contradictions[0].find("not transitive"), std::string::npos);
}

}  // namespace
}  // namespace memtopo
