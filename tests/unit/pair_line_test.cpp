// The line from pairs of words (analysis/pair_line): the count the offsets are chased at, the
// smallest offset whose pairs miss like two lines, Laplace agreement; noisy and shapeless scores.
#include "analysis/pair_line.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

// Scores as the xor-lru sim gave them: one line about 0.55 (two sectors per line), two 0.93.
std::vector<PairVerdict> split_at(std::uint64_t line) {
  std::vector<PairVerdict> out;
  for (std::uint64_t d = 32; d <= 1024; d *= 2) out.push_back({d, d < line ? 0.55 : 0.93});
  return out;
}

TEST(PairLine, TheCountWhoseDoubleMissesMostMoreIsChosen) {
  // A random-replacement L1 of 512 lines on a sqrt(2) ladder (recorded on the xor-random sim).
  const std::vector<PairLadderPoint> ladder = {{128, 0.0},    {181, 0.008},  {256, 0.012},
                                               {362, 0.022},  {512, 0.11},   {724, 0.278},
                                               {1024, 0.479}, {1448, 0.665}, {2048, 0.791}};
  const auto count = choose_pair_count(ladder);
  ASSERT_TRUE(count);
  EXPECT_EQ(count->pairs, 724u);  // 0.665 - 0.278 = 0.387, the largest gap
  EXPECT_EQ(count->split_pairs, 1448u);
  EXPECT_DOUBLE_EQ(count->one_line_score, 0.278);
  EXPECT_DOUBLE_EQ(count->split_score, 0.665);
}

TEST(PairLine, ALadderWithoutAClearGapGivesNoCount) {
  const std::vector<PairLadderPoint> flat = {{8, 0.0}, {11, 0.01}, {16, 0.02}, {23, 0.05}};
  EXPECT_FALSE(choose_pair_count(flat));
  const std::vector<PairLadderPoint> too_short = {{8, 0.0}, {11, 1.0}};
  EXPECT_FALSE(choose_pair_count(too_short));
}

TEST(PairLine, TheOffsetWhereTheHigherPlateauStartsIsTheLine) {
  for (const std::uint64_t line : {64u, 128u, 256u, 1024u}) {
    const PairLineInference inference = infer_line_from_pairs(split_at(line));
    ASSERT_TRUE(inference.line_bytes) << line;
    EXPECT_EQ(*inference.line_bytes, line);
    EXPECT_DOUBLE_EQ(inference.one_line_score, 0.55);
    EXPECT_DOUBLE_EQ(inference.two_lines_score, 0.93);
    // 6 of 6 offsets agree: Laplace (6 + 1) / (6 + 2).
    EXPECT_DOUBLE_EQ(inference.confidence.value(), 7.0 / 8.0);
  }
}

TEST(PairLine, RecordedSimScoresGiveTheLine) {
  // xor-random: 0.351 0.345 | 0.773 0.765 0.769 0.782 (128 B lines, random replacement).
  const std::vector<PairVerdict> random = {{32, 0.351},  {64, 0.345},  {128, 0.773},
                                           {256, 0.765}, {512, 0.769}, {1024, 0.782}};
  const PairLineInference inference = infer_line_from_pairs(random);
  ASSERT_TRUE(inference.line_bytes);
  EXPECT_EQ(*inference.line_bytes, 128u);
}

TEST(PairLine, NoStepIsInconclusive) {
  // Every offset one line (or every offset two): the scores cannot tell which.
  const PairLineInference inference = infer_line_from_pairs(split_at(4096));
  EXPECT_FALSE(inference.line_bytes);
  EXPECT_NE(inference.note.find("no step"), std::string::npos);
}

TEST(PairLine, OneNoisyOffsetLowersTheConfidenceButKeepsTheLine) {
  std::vector<PairVerdict> verdicts = split_at(128);
  verdicts[4].miss_score = 0.7;  // 512 B below the midway of 0.55 and the upper run's mean
  const PairLineInference inference = infer_line_from_pairs(verdicts);
  ASSERT_TRUE(inference.line_bytes);
  EXPECT_EQ(*inference.line_bytes, 128u);
  EXPECT_DOUBLE_EQ(inference.confidence.value(), 6.0 / 8.0);
}

TEST(PairLine, ScoresWithoutOneStepAreInconclusive) {
  // One line, two, one, two, ...: no step explains more than 4 of 6.
  std::vector<PairVerdict> verdicts;
  bool one_line = true;
  for (std::uint64_t d = 32; d <= 1024; d *= 2, one_line = !one_line)
    verdicts.push_back({d, one_line ? 0.0 : 0.3});
  const PairLineInference inference = infer_line_from_pairs(verdicts);
  EXPECT_FALSE(inference.line_bytes);
  EXPECT_NE(inference.note.find("do not describe one line"), std::string::npos);
}

TEST(PairLine, TooFewAndUnorderedOffsets) {
  const std::vector<PairVerdict> one = {{32, 0.5}};
  EXPECT_FALSE(infer_line_from_pairs(one).line_bytes);
  const std::vector<PairVerdict> unordered = {{64, 0.0}, {32, 0.3}};
  EXPECT_THROW(infer_line_from_pairs(unordered), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
