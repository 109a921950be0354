// Shared-memory bank inference on synthetic degree tables: the degrees a layout predicts, turned
// into cycles (base + per pass x (degree - 1), with and without jitter), must give that layout
// back, and a measurement no layout explains must give none.
#include "analysis/banks.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace memtopo {
namespace {

constexpr std::uint32_t kLanes = 32;

// Cycles of every pattern on a device of `truth`, with `jitter` added in a fixed +-pattern.
std::vector<double> cycles_on(const std::vector<BankPattern>& patterns, const BankHypothesis& truth,
                              double base, double per_pass, double jitter = 0,
                              double wide_extra = 0) {
  std::vector<double> cycles;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const double sign = i % 3 == 0 ? 1 : i % 3 == 1 ? -1 : 0;
    const double extra = patterns[i].word_bytes > 4 ? wide_extra : 0;
    cycles.push_back(base + extra + per_pass * (predicted_degree(patterns[i], truth) - 1.0) +
                     sign * jitter);
  }
  return cycles;
}

TEST(BankDegrees, AStrideOfBankWideWordsFollowsTheGcdRule) {
  for (const std::uint32_t banks : {16u, 24u, 32u}) {
    for (std::uint32_t stride = 1; stride <= kSweepMaxStride; ++stride) {
      const std::uint32_t gcd = std::gcd(stride, banks);
      const std::uint32_t expected = (kLanes * gcd + banks - 1) / banks;  // ceil
      EXPECT_EQ(predicted_degree(stride_pattern(kLanes, stride, 4), {banks, 4}), expected)
          << banks << " banks, stride " << stride;
      EXPECT_EQ(predicted_degree(stride_pattern(kLanes, stride, 8), {banks, 8}), expected);
    }
  }
}

// Paper 000, Fig. 7: Kepler's 8-byte mode with 4-byte words.
TEST(BankDegrees, EightByteBanksServeTwoFourByteWordsAtOnce) {
  const BankHypothesis kepler{32, 8};
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 1, 4), kepler), 1u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 2, 4), kepler), 1u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 4, 4), kepler), 2u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 6, 4), kepler), 1u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 6, 4), {32, 4}), 2u);
}

TEST(BankDegrees, WideLoadsOnNarrowBanksNeedSeveralPasses) {
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 1, 8), {32, 4}), 2u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 2, 8), {32, 4}), 4u);
  EXPECT_EQ(predicted_degree(stride_pattern(kLanes, 1, 16), {32, 4}), 4u);
  EXPECT_EQ(predicted_degree(broadcast_pattern(kLanes, 8), {32, 4}), 1u);
}

TEST(BankDegrees, BroadcastMulticastAndTheLadder) {
  for (const BankHypothesis& h : bank_hypotheses()) {
    ASSERT_EQ(predicted_degree(broadcast_pattern(kLanes, 4), h), 1u);
  }
  EXPECT_EQ(predicted_degree(multicast_pattern(kLanes, 2, 32, 4), {32, 4}), 16u);
  EXPECT_EQ(predicted_degree(multicast_pattern(kLanes, 8, 32, 4), {32, 4}), 4u);
  EXPECT_EQ(predicted_degree(multicast_pattern(kLanes, 4, 1, 4), {32, 4}), 1u);
  for (std::uint32_t degree = 1; degree <= kLanes; ++degree) {
    EXPECT_EQ(predicted_degree(degree_ladder_pattern(kLanes, degree, 128), {32, 4}), degree);
    EXPECT_EQ(predicted_degree(degree_ladder_pattern(kLanes, degree, 256), {32, 8}), degree);
  }
}

TEST(BankScale, TheFitRecoversBaseAndCostPerPass) {
  const auto patterns = stride_method_patterns(kLanes);
  const auto cycles = cycles_on(patterns, {32, 4}, 30, 2, 0, 3);
  const HypothesisScore score = score_hypothesis(patterns, cycles, {32, 4});
  EXPECT_NEAR(score.scale.per_pass_cycles, 2, 1e-9);
  EXPECT_NEAR(score.scale.base_for(4), 30, 1e-9);
  EXPECT_NEAR(score.scale.base_for(8), 33, 1e-9);
  EXPECT_EQ(score.agreeing, patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    EXPECT_NEAR(score.measured[i], score.predicted[i], 1e-9) << patterns[i].name;
  }
}

TEST(BankScale, AgreementAllowsHalfAPassOrAnEighthOfTheDegree) {
  EXPECT_TRUE(degree_agrees(1.4, 1));
  EXPECT_FALSE(degree_agrees(1.6, 1));
  EXPECT_TRUE(degree_agrees(29, 32));
  EXPECT_FALSE(degree_agrees(27.5, 32));
}

class BankInferenceOn : public ::testing::TestWithParam<BankHypothesis> {};

TEST_P(BankInferenceOn, SyntheticCyclesGiveTheLayoutBack) {
  const BankHypothesis truth = GetParam();
  const auto patterns = stride_method_patterns(kLanes);
  // A simulated device (latency per pass, no base) and a GPU-like one (a base, a small cost per
  // pass, a wide load's fixed extra, jitter of a third of a pass).
  for (const auto& cycles :
       {cycles_on(patterns, truth, 29, 29), cycles_on(patterns, truth, 30, 3, 1, 2)}) {
    const BankInference inference = infer_banks(patterns, cycles);
    ASSERT_TRUE(inference.unique) << inference.why_not;
    EXPECT_EQ(inference.best.hypothesis, truth);
    EXPECT_EQ(inference.best.agreeing, patterns.size());
    ASSERT_TRUE(inference.banks && inference.width_bytes);
    EXPECT_EQ(*inference.banks, truth.banks);
    EXPECT_EQ(*inference.width_bytes, truth.width_bytes);
    // The rivals differ somewhere, and there the choice is right and they are not.
    for (const auto& rival : {inference.banks_rival, inference.width_rival}) {
      ASSERT_TRUE(rival);
      EXPECT_GT(rival->distinguishing, 0u);
      EXPECT_EQ(rival->chosen_agreeing, rival->distinguishing);
      EXPECT_LT(rival->agreeing, patterns.size());
    }
    EXPECT_NE(inference.banks_rival->hypothesis.banks, truth.banks);
    EXPECT_NE(inference.width_rival->hypothesis.width_bytes, truth.width_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, BankInferenceOn,
                         ::testing::Values(BankHypothesis{32, 4}, BankHypothesis{16, 4},
                                           BankHypothesis{32, 8}, BankHypothesis{16, 8},
                                           BankHypothesis{24, 4}, BankHypothesis{64, 4}),
                         [](const auto& test_info) {
                           return std::to_string(test_info.param.banks) + "x" +
                                  std::to_string(test_info.param.width_bytes);
                         });

TEST(BankInference, NoConflictAtAllExplainsNothing) {
  const auto patterns = stride_method_patterns(kLanes);
  const std::vector<double> flat(patterns.size(), 30);
  const BankInference inference = infer_banks(patterns, flat);
  EXPECT_EQ(inference.best.agreeing, 0u);
  EXPECT_FALSE(inference.banks);
  EXPECT_FALSE(inference.width_bytes);
  EXPECT_FALSE(inference.why_not.empty());
}

TEST(BankInference, PatternsThatCannotTellWidthsApartLeaveTheWidthOpen) {
  // 4-byte strides that are multiples of 4 words: 8 and 16 B banks (and 4 B) agree on them only
  // up to the layout's row; with the row alone (32 x 4 = 16 x 8 = 8 x 16 bytes) the widths tie.
  std::vector<BankPattern> patterns = {broadcast_pattern(kLanes, 4)};
  for (const std::uint32_t stride : {4u, 8u, 16u, 32u}) {
    patterns.push_back(stride_pattern(kLanes, stride, 4));
  }
  const auto cycles = cycles_on(patterns, {32, 4}, 29, 29);
  const BankInference inference = infer_banks(patterns, cycles);
  EXPECT_GT(inference.tied.size(), 1u);
  EXPECT_FALSE(inference.unique);
  EXPECT_FALSE(inference.width_bytes);
  EXPECT_FALSE(inference.why_not.empty());
}

TEST(BankInference, MismatchedInputsThrow) {
  const auto patterns = stride_method_patterns(kLanes);
  EXPECT_THROW(infer_banks(patterns, std::vector<double>(3, 1.0)), std::invalid_argument);
  EXPECT_THROW(infer_banks({}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
