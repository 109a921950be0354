// The confidence rules on known inputs: each rule's value where it is easy to compute by hand,
// its edges, and what a product of factors keeps.
#include "analysis/confidence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

TEST(Confidence, AgreementIsLaplacesRuleOfSuccession) {
  EXPECT_DOUBLE_EQ(agreement(0, 0, "").value, 0.5);  // no checks: even odds
  EXPECT_NEAR(agreement(1, 1, "").value, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(agreement(8, 8, "").value, 0.9);
  EXPECT_NEAR(agreement(256, 256, "sets").value, 257.0 / 258.0, 1e-12);
  EXPECT_DOUBLE_EQ(agreement(1, 2, "directions").value, 0.5);
  EXPECT_DOUBLE_EQ(agreement(0, 8, "").value, 0.1);
  EXPECT_EQ(agreement(3, 4, "passes").inputs, "3 of 4 passes");
  EXPECT_THROW(agreement(3, 2, ""), std::invalid_argument);
}

TEST(Confidence, MoreAgreeingChecksNeverLowerAgreement) {
  for (std::size_t n = 1; n < 50; ++n) {
    EXPECT_LT(agreement(n - 1, n, "").value, agreement(n, n, "").value);
    EXPECT_LT(agreement(n, n, "").value, agreement(n + 1, n + 1, "").value);
  }
}

TEST(Confidence, ShareWithinCountsTheSamplesNearTheCenter) {
  const std::vector<double> samples = {100, 101, 99, 105, 200, 300, 95, 110, 111, 90};
  // Within 10 % of 100 (90..110 inclusive): 100 101 99 105 95 110 90 = 7 of 10.
  EXPECT_DOUBLE_EQ(share_within(samples, 100, 0.1, "").value, 0.7);
}

TEST(Confidence, ModeSeparationIsOneMinusTheValleyRatio) {
  EXPECT_DOUBLE_EQ(mode_separation(0, "").value, 1.0);      // nothing between the modes
  EXPECT_NEAR(mode_separation(0.022, "").value, 0.978, 1e-12);  // an H200 DRAM chase's valley
  EXPECT_DOUBLE_EQ(mode_separation(0.25, "").value, 0.75);  // the valley split's limit
  EXPECT_DOUBLE_EQ(mode_separation(1.5, "").value, 0.0);    // no dip: clamped
  EXPECT_EQ(mode_separation(0.1, "").rule, "mode_separation");
  EXPECT_THROW(mode_separation(std::nan(""), ""), std::invalid_argument);
}

TEST(Confidence, ClosenessRulesAreOneOnTheTargetAndZeroHalfWay) {
  EXPECT_DOUBLE_EQ(integer_closeness(2.0, "").value, 1.0);
  EXPECT_NEAR(integer_closeness(2.1, "").value, 0.8, 1e-12);
  EXPECT_NEAR(integer_closeness(1.9, "").value, 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(integer_closeness(2.5, "").value, 0.0);
  EXPECT_DOUBLE_EQ(octave_closeness(128, "").value, 1.0);
  EXPECT_NEAR(octave_closeness(128 * std::exp2(0.25), "").value, 0.5, 1e-12);
  EXPECT_NEAR(octave_closeness(128 * std::exp2(-0.5), "").value, 0.0, 1e-12);
  EXPECT_THROW(octave_closeness(0, ""), std::invalid_argument);
}

TEST(Confidence, CapacityAgreementFallsWithTheOctavesBetweenTwoCapacities) {
  EXPECT_DOUBLE_EQ(capacity_agreement(245760, 245760, "").value, 1.0);
  // 4 ways x 512 sets x 128 B against a measured 240 KiB (the H200's L1).
  EXPECT_NEAR(capacity_agreement(262144, 245760, "").value,
              1.0 - 2.0 * std::log2(262144.0 / 245760), 1e-12);
  EXPECT_NEAR(capacity_agreement(262144, 245760, "").value, 0.81, 0.01);
  // Symmetric, and 0 half an octave apart or more.
  EXPECT_DOUBLE_EQ(capacity_agreement(245760, 262144, "").value,
                   capacity_agreement(262144, 245760, "").value);
  EXPECT_NEAR(capacity_agreement(1024 * std::exp2(0.5), 1024, "").value, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(capacity_agreement(4096, 1024, "").value, 0.0);
  EXPECT_THROW(capacity_agreement(0, 1024, ""), std::invalid_argument);
  EXPECT_THROW(capacity_agreement(1024, -1, ""), std::invalid_argument);
}

TEST(Confidence, ContrastIsClampedAndZeroWithoutAScale) {
  EXPECT_DOUBLE_EQ(contrast(0.5, 1.0, "").value, 0.5);
  EXPECT_DOUBLE_EQ(contrast(2.0, 1.0, "").value, 1.0);
  EXPECT_DOUBLE_EQ(contrast(-0.1, 1.0, "").value, 0.0);
  EXPECT_DOUBLE_EQ(contrast(0.5, 0.0, "").value, 0.0);
}

TEST(Confidence, MethodsAgreeingIsAPlainShare) {
  EXPECT_DOUBLE_EQ(methods_agreeing(1, 2, "").value, 0.5);
  EXPECT_DOUBLE_EQ(methods_agreeing(2, 2, "").value, 1.0);
  EXPECT_THROW(methods_agreeing(0, 0, ""), std::invalid_argument);
}

TEST(Confidence, WeakestOfTakesTheMinimum) {
  const std::vector<double> c = {0.9, 0.41, 1.0};
  EXPECT_DOUBLE_EQ(weakest_of(c, "latencies").value, 0.41);
  EXPECT_THROW(weakest_of(std::vector<double>{}, ""), std::invalid_argument);
}

TEST(Confidence, AProductKeepsEveryFactorAndNamesTheWeakest) {
  Confidence c{agreement(8, 8, "passes"), share(0.5, "near")};
  EXPECT_DOUBLE_EQ(c.value(), 0.45);
  ASSERT_EQ(c.factors().size(), 2u);
  ASSERT_NE(c.weakest(), nullptr);
  EXPECT_EQ(c.weakest()->rule, "share");
  EXPECT_EQ(c.evidence().size(), 2u);
  EXPECT_EQ(c.evidence()[0]["rule"], "agreement");
  // Weakest first in the explanation.
  EXPECT_EQ(c.explain().rfind("share 0.5", 0), 0u) << c.explain();
  c *= inherited(0.5, "l1.size");
  EXPECT_DOUBLE_EQ(c.value(), 0.225);
}

TEST(Confidence, TheRunnersInheritedCapBringsAValueDownToItsLeastSureInput) {
  // Own evidence 0.98, planned from ways at 0.72: the product becomes 0.72, not 0.98 x 0.72.
  const ConfidenceFactor cap = inherited_cap(0.98, 0.72, "that of l1.ways");
  EXPECT_EQ(cap.rule, "inherited");
  Confidence c{share(0.98, "own")};
  c *= cap;
  EXPECT_NEAR(c.value(), 0.72, 1e-12);
  EXPECT_NE(cap.inputs.find("at most 0.72, that of l1.ways"), std::string::npos) << cap.inputs;
  // Already no surer: nothing to take away.
  EXPECT_DOUBLE_EQ(inherited_cap(0.5, 0.72, "").value, 1.0);
  EXPECT_DOUBLE_EQ(inherited_cap(0.0, 0.0, "").value, 1.0);
  EXPECT_THROW(inherited_cap(std::nan(""), 0.5, ""), std::invalid_argument);
}

TEST(Confidence, EmptyProductIsOneAndRejectsNaN) {
  Confidence c;
  EXPECT_DOUBLE_EQ(c.value(), 1.0);
  EXPECT_EQ(c.weakest(), nullptr);
  const ConfidenceFactor bad{"bad", std::nan(""), ""};
  EXPECT_THROW(c *= bad, std::invalid_argument);
  EXPECT_THROW(share(std::nan(""), ""), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
