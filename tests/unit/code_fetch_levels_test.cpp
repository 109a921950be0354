// Instruction-cache levels from cycles per instruction (analysis/code_fetch_levels): on the
// series an H200 recorded, on a clean step and on a flat series.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "analysis/code_fetch_levels.hpp"

namespace memtopo {
namespace {

// Per-size medians of cycles per instruction, from the H200 run at 171c0b4
// (docs/results/nvidia-h200/2026-11-24_171c0b4/discovery.json.gz, icache_l0.size's evidence): the
// staircase with the latency noise floor found no level in it.
const std::vector<std::pair<std::uint64_t, double>> kH200Series = {
    {2048, 1.1172},   {3072, 1.1042},   {4096, 1.0977},   {5120, 1.0938},   {6144, 1.1172},
    {7168, 1.1116},   {9216, 1.1042},   {11264, 1.0994},  {13312, 1.0962},  {15360, 1.0938},
    {19456, 1.0905},  {22528, 1.0888},  {26624, 1.2993},  {31744, 1.2636},  {32768, 1.2705},
    {33792, 1.3366},  {34816, 1.5165},  {35840, 1.6866},  {36864, 1.7860},  {37888, 1.9392},
    {38912, 2.0847},  {46080, 2.2340},  {54272, 2.2276},  {64512, 2.2267},  {77824, 2.2202},
    {92160, 2.2212},  {109568, 2.2179}, {130048, 2.5635}, {132096, 2.7653}, {134144, 3.2623},
    {136192, 3.6195}, {138240, 4.0956}, {140288, 4.5466}, {142336, 4.8936}, {144384, 5.3437},
    {146432, 5.6508}, {148480, 5.6504}, {150528, 5.6486}, {152576, 5.6580}, {154624, 5.6508},
    {155648, 5.6596}, {185344, 5.6606}, {220160, 5.6485}, {261120, 5.6505}, {311296, 5.6560},
    {370688, 5.6537}, {440320, 5.6571}, {523264, 5.6423}, {524288, 5.6340}};

// The same H200 at 7ec9471, whose sweep added sizes inside the 24 KiB step (the old staircase
// rules then lost that level to their ramp merging).
const std::vector<std::pair<std::uint64_t, double>> kH200RefinedSeries = {
    {2048, 1.1172},   {3072, 1.1042},   {4096, 1.0977},   {5120, 1.0938},   {6144, 1.1172},
    {7168, 1.1116},   {9216, 1.1042},   {11264, 1.0994},  {13312, 1.0962},  {15360, 1.0938},
    {19456, 1.0905},  {22528, 1.0888},  {23552, 1.0883},  {24576, 1.2259},  {25600, 1.3081},
    {26624, 1.2993},  {31744, 1.2636},  {32768, 1.2705},  {33792, 1.3366},  {34816, 1.5165},
    {35840, 1.6866},  {36864, 1.7860},  {37888, 1.9392},  {38912, 2.0847},  {46080, 2.2340},
    {54272, 2.2276},  {64512, 2.2267},  {77824, 2.2202},  {92160, 2.2212},  {109568, 2.2179},
    {130048, 2.5595}, {132096, 2.7602}, {134144, 3.2645}, {136192, 3.6357}, {138240, 4.1249},
    {140288, 4.5774}, {142336, 4.9276}, {144384, 5.3576}, {146432, 5.6738}, {148480, 5.6825},
    {150528, 5.6836}, {152576, 5.6782}, {154624, 5.6792}, {155648, 5.6811}, {185344, 5.6731},
    {220160, 5.6536}, {261120, 5.6465}, {311296, 5.6407}, {370688, 5.6518}, {440320, 5.6579},
    {523264, 5.6478}, {524288, 5.6395},
};

// The same H200 at 957cad7 (GPU-88861f72): the L2's plateau reads 5.68 just past the L1.5's
// ramp and 5.64 further on, a change point within the noise between them.
const std::vector<std::pair<std::uint64_t, double>> kH200CutPlateauSeries = {
    {2048, 1.1172},   {3072, 1.1042},   {4096, 1.0977},   {5120, 1.0938},   {6144, 1.1172},
    {7168, 1.1116},   {9216, 1.1042},   {11264, 1.0994},  {13312, 1.0962},  {15360, 1.0938},
    {19456, 1.0905},  {22528, 1.0888},  {23552, 1.0883},  {24576, 1.2259},  {25600, 1.3081},
    {26624, 1.2993},  {31744, 1.2636},  {33792, 1.3366},  {35840, 1.6866},  {37888, 1.9392},
    {38912, 2.0847},  {39936, 2.1663},  {41984, 2.2332},  {44032, 2.2293},  {46080, 2.2340},
    {48128, 2.2301},  {50176, 2.2267},  {52224, 2.2310},  {54272, 2.2276},  {64512, 2.2267},
    {77824, 2.2202},  {92160, 2.2212},  {98304, 2.2204},  {104448, 2.2197}, {109568, 2.2179},
    {110592, 2.2190}, {116736, 2.6118}, {122880, 2.5921}, {129024, 2.5745}, {130048, 2.5678},
    {135168, 3.4598}, {141312, 4.7588}, {147456, 5.6801}, {153600, 5.6736}, {155648, 5.6708},
    {185344, 5.6646}, {220160, 5.6483}, {261120, 5.6395}, {311296, 5.6350}, {370688, 5.6463},
    {440320, 5.6514}, {523264, 5.6447}, {524288, 5.6341}};

// The same H200 at 2c1f551 (docs/results/nvidia-h200/2026-11-28_2c1f551/default.json.gz), as
// every run since 42f185e read it: the 24 KiB size half-way up the first step (1.21), the "L1"
// plateau falling from 1.30 to 1.26, a short 2.73 segment in the L1.5's ramp.
const std::vector<std::pair<std::uint64_t, double>> kH200PooledSeries = {
    {2048, 1.1094}, {3072, 1.0990}, {4096, 1.0938}, {5120, 1.0906}, {6144, 1.1198}, {7168, 1.1138}, {9216, 1.1059}, {11264, 1.1009}, {13312, 1.0974}, {15360, 1.0948}, {19456, 1.0913}, {22528, 1.0895}, {23552, 1.0890}, {24576, 1.2077}, {25600, 1.3025}, {26624, 1.2939}, {31744, 1.2591}, {33792, 1.4489}, {35840, 1.7737}, {37888, 2.0646}, {38912, 2.2307}, {39936, 2.3878}, {41984, 2.4002}, {44032, 2.3961}, {46080, 2.4017}, {48128, 2.3969}, {50176, 2.3935}, {52224, 2.3986}, {54272, 2.3945}, {64512, 2.3941}, {77824, 2.3869}, {92160, 2.3884}, {98304, 2.3875}, {104448, 2.3868}, {109568, 2.3846}, {110592, 2.3861}, {116736, 2.7364}, {122880, 2.7161}, {129024, 2.7020}, {130048, 2.7274}, {135168, 3.6178}, {141312, 4.8846}, {147456, 5.7643}, {153600, 5.7611}, {155648, 5.7604}, {185344, 5.7538}, {220160, 5.7347}, {261120, 5.7245}, {311296, 5.7275}, {370688, 5.7331}, {440320, 5.7333}, {523264, 5.7294}, {524288, 5.7192}};

// Eight per-iteration samples around each median (0.3 % jitter, seeded): the committed run keeps
// only the medians.
struct Series {
  std::vector<std::uint64_t> bytes;
  std::vector<std::vector<double>> samples;
};

Series with_jitter(const std::vector<std::pair<std::uint64_t, double>>& medians, double jitter) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, jitter);
  Series s;
  for (const auto& [bytes, cpi] : medians) {
    s.bytes.push_back(bytes);
    auto& samples = s.samples.emplace_back();
    for (int i = 0; i < 8; ++i) samples.push_back(cpi * (1 + noise(rng)));
  }
  return s;
}

TEST(CodeFetchLevels, TheH200SeriesHasThreeLevelsWithRampsBetween) {
  const Series s = with_jitter(kH200Series, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_EQ(levels.transitions.size(), 3u);
  const auto& t = levels.transitions;
  // A clean step after 22 KiB; a ramp from 33 to 39 KiB; a ramp from 107 to 143 KiB.
  EXPECT_EQ(t[0].size_bytes, 22528u);
  EXPECT_EQ(t[0].first_slower_bytes, 26624u);
  EXPECT_EQ(t[0].ramp_sizes, 0u);
  EXPECT_GE(t[1].size_bytes, 32768u);
  EXPECT_LE(t[1].size_bytes, 33792u);
  EXPECT_GE(t[1].ramp_end_bytes, 37888u);
  EXPECT_LE(t[1].ramp_end_bytes, 46080u);
  EXPECT_EQ(t[2].size_bytes, 109568u);
  EXPECT_GE(t[2].ramp_end_bytes, 140288u);
  EXPECT_LE(t[2].ramp_end_bytes, 146432u);
  EXPECT_NEAR(t[0].cpi_before, 1.10, 0.02);
  EXPECT_NEAR(t[1].cpi_before, 1.28, 0.03);
  EXPECT_NEAR(t[2].cpi_before, 2.22, 0.02);
  EXPECT_NEAR(t[2].cpi_after, 5.65, 0.02);
  for (const auto& transition : t) EXPECT_GE(transition.confidence, 0.9);
}

TEST(CodeFetchLevels, TheRefinedH200SeriesKeepsItsThreeLevels) {
  const Series s = with_jitter(kH200RefinedSeries, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_EQ(levels.transitions.size(), 3u);
  const auto& t = levels.transitions;
  EXPECT_EQ(t[0].size_bytes, 23552u);
  EXPECT_EQ(t[0].first_slower_bytes, 24576u);
  EXPECT_EQ(t[1].size_bytes, 32768u);
  EXPECT_EQ(t[2].size_bytes, 109568u);
  EXPECT_NEAR(t[0].cpi_before, 1.10, 0.02);
  EXPECT_NEAR(t[1].cpi_before, 1.28, 0.03);
  EXPECT_NEAR(t[2].cpi_before, 2.22, 0.02);
  EXPECT_NEAR(t[2].cpi_after, 5.66, 0.03);
  for (const auto& transition : t) EXPECT_GE(transition.confidence, 0.9);
}

TEST(CodeFetchLevels, ALevelCutWithinTheNoiseIsOnePlateau) {
  const Series s = with_jitter(kH200CutPlateauSeries, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_FALSE(levels.transitions.empty());
  const CodeFetchTransition& last = levels.transitions.back();
  EXPECT_EQ(last.size_bytes, 110592u);
  // The level behind is every size from the ramp's end to the largest, not its first part.
  EXPECT_EQ(last.slower_last, kH200CutPlateauSeries.size() - 1);
  EXPECT_NEAR(last.cpi_after, 5.648, 0.006);
}

TEST(CodeFetchLevels, ACleanStepIsOneTransitionAtItsEdge) {
  std::vector<std::pair<std::uint64_t, double>> medians;
  for (std::uint64_t kib = 2; kib <= 256; kib *= 2)
    medians.push_back({kib * 1024, kib <= 32 ? 1.0 : 1.5});
  const Series s = with_jitter(medians, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_EQ(levels.transitions.size(), 1u);
  EXPECT_EQ(levels.transitions[0].size_bytes, 32u * 1024);
  EXPECT_EQ(levels.transitions[0].first_slower_bytes, 64u * 1024);
  EXPECT_EQ(levels.transitions[0].ramp_sizes, 0u);
  EXPECT_NEAR(levels.transitions[0].cpi_after - levels.transitions[0].cpi_before, 0.5, 0.02);
  EXPECT_GT(levels.transitions[0].confidence, 0.99);
  // The two plateaus' sizes: 2..32 KiB in front, 64..256 KiB behind.
  EXPECT_EQ(levels.transitions[0].plateau_first, 0u);
  EXPECT_EQ(levels.transitions[0].plateau_last, 4u);
  EXPECT_EQ(levels.transitions[0].slower_first, 5u);
  EXPECT_EQ(levels.transitions[0].slower_last, 7u);
}

TEST(CodeFetchLevels, AFlatSeriesHasNoTransition) {
  std::vector<std::pair<std::uint64_t, double>> medians;
  for (std::uint64_t kib = 2; kib <= 512; kib += kib / 4 + 1) medians.push_back({kib * 1024, 1.1});
  const Series s = with_jitter(medians, 0.003);
  EXPECT_TRUE(analyze_code_fetch(s.bytes, s.samples).transitions.empty());
}

// A step of half the latency noise floor (0.25 cycles per instruction, 20 %) is found: the floor
// is in cycles per instruction.
TEST(CodeFetchLevels, AStepSmallerThanHalfACycleIsFound) {
  std::vector<std::pair<std::uint64_t, double>> medians;
  for (std::uint64_t kib = 2; kib <= 256; kib *= 2)
    medians.push_back({kib * 1024, kib <= 16 ? 1.0 : 1.2});
  const Series s = with_jitter(medians, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_EQ(levels.transitions.size(), 1u);
  EXPECT_EQ(levels.transitions[0].size_bytes, 16u * 1024);
  EXPECT_GT(levels.transitions[0].confidence, 0.9);
}

// Flat plateaus: every size's median within 5 noise sigmas (0.05 at the floor) of the level. On
// the H200 at 2c1f551 the L0's (1.089-1.120) and L1.5's (2.385-2.402) are; the "L1"'s, from
// 1.21 (its first size half-way up the step) to 1.30, is not.
TEST(CodeFetchLevels, TheH200sMiddlePlateauIsNotFlat) {
  const Series s = with_jitter(kH200PooledSeries, 0.003);
  const CodeFetchLevels levels = analyze_code_fetch(s.bytes, s.samples);
  ASSERT_EQ(levels.transitions.size(), 3u);
  const PlateauFlatness l0 = plateau_flatness(levels, levels.transitions[0]);
  const PlateauFlatness l1 = plateau_flatness(levels, levels.transitions[1]);
  const PlateauFlatness l15 = plateau_flatness(levels, levels.transitions[2]);
  EXPECT_NEAR(l0.band, 0.05, 1e-9);
  EXPECT_TRUE(l0.flat);
  EXPECT_TRUE(l15.flat);
  EXPECT_FALSE(l1.flat);
  EXPECT_NEAR(l1.lowest, 1.208, 0.01);
  EXPECT_NEAR(l1.highest, 1.302, 0.01);
  EXPECT_EQ(levels.transitions[1].size_bytes, 31744u);
}

// A step is a level when it shows in every repetition (two at least) within a quarter octave
// and its plateau is flat; a repetition without it, or a single repetition, leaves it
// inconclusive.
TEST(CodeFetchLevels, AStepIsALevelOnlyWhenEveryRepetitionShowsIt) {
  std::vector<std::pair<std::uint64_t, double>> stepped, flat;
  for (std::uint64_t kib = 2; kib <= 256; kib *= 2) {
    stepped.push_back({kib * 1024, kib <= 32 ? 1.0 : 1.5});
    flat.push_back({kib * 1024, 1.0});
  }
  const Series pooled_series = with_jitter(stepped, 0.003);
  const CodeFetchLevels pooled = analyze_code_fetch(pooled_series.bytes, pooled_series.samples);
  ASSERT_EQ(pooled.transitions.size(), 1u);
  const CodeFetchTransition& step = pooled.transitions[0];
  const Series without = with_jitter(flat, 0.003);
  const std::vector<CodeFetchLevels> both = {pooled, pooled};
  const std::vector<CodeFetchLevels> one_lacks = {
      pooled, analyze_code_fetch(without.bytes, without.samples)};
  const std::vector<CodeFetchLevels> alone = {pooled};

  const LevelVerdict repeated = judge_level(pooled, step, both, 0.5);
  EXPECT_TRUE(repeated.conclusive);
  EXPECT_EQ(repeated.repeated, 2u);
  const LevelVerdict lacking = judge_level(pooled, step, one_lacks, 0.5);
  EXPECT_FALSE(lacking.conclusive);
  EXPECT_EQ(lacking.repeated, 1u);
  ASSERT_EQ(lacking.repeats.size(), 2u);
  EXPECT_NE(lacking.repeats[0], nullptr);
  EXPECT_EQ(lacking.repeats[1], nullptr);
  EXPECT_FALSE(judge_level(pooled, step, alone, 0.5).conclusive);
}

// A repetition's step a quarter octave or less away is the same step; further is another one.
TEST(CodeFetchLevels, ARepeatedStepLiesWithinAQuarterOctave) {
  CodeFetchTransition step;
  step.size_bytes = 32 * 1024;
  CodeFetchLevels repetition;
  CodeFetchTransition near = step, far = step;
  near.size_bytes = 38 * 1024;  // 0.25 octave: 38.05 KiB
  far.size_bytes = 40 * 1024;
  for (CodeFetchTransition* t : {&near, &far}) {
    t->confidence = 0.9;
    t->cpi_before = 1;
    t->cpi_after = 2;
  }
  repetition.transitions = {far};
  EXPECT_EQ(repeated_step(step, repetition, 0.5), nullptr);
  repetition.transitions = {near, far};
  ASSERT_NE(repeated_step(step, repetition, 0.5), nullptr);
  EXPECT_EQ(repeated_step(step, repetition, 0.5)->size_bytes, 38u * 1024);
  repetition.transitions[0].confidence = 0.4;  // below the decision threshold: noise
  EXPECT_EQ(repeated_step(step, repetition, 0.5), nullptr);
}

}  // namespace
}  // namespace memtopo
