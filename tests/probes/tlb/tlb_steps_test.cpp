// Which steps of a TLB ladder's staircase are levels (steps_up): sure steps up onto a plateau
// above every one before; a step passed over does not hide the levels after it. Which reading
// of a scan of sets the findings use (LevelSets::exact, from_ramp).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>

#include "probes/core/staircase_sweep.hpp"
#include "probes/tlb/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// A staircase of plateaus at `means`, the step into plateau k + 1 with `confidences[k]`.
Staircase plateaus(const std::vector<double>& means, const std::vector<double>& confidences) {
  Staircase s;
  for (const double mean : means) {
    StaircaseLevel level;
    level.mean = mean;
    s.levels.push_back(level);
  }
  for (std::size_t k = 0; k + 1 < means.size(); ++k) {
    StaircaseStep step;
    step.jump = means[k + 1] - means[k];
    step.confidence = confidences[k];
    s.steps.push_back(step);
  }
  return s;
}

TEST(TlbSteps, ADriftDownBeforeTheLevelsDoesNotHideThem) {
  // The H200's 32 MiB ladder in one process (plateau means, cycles): 270 at 2-4 elements,
  // a drift to 268.5 at 5-16 (confidence 0.16), the L1 TLB at 22 (0.95), the L2 TLB at 2896 (1).
  const Staircase s = plateaus({270.0, 268.5, 278.7, 373.0}, {0.16, 0.95, 1.0});
  EXPECT_EQ(steps_up(s), (std::vector<std::size_t>{1, 2}));
}

TEST(TlbSteps, AStepUpThatOnlyClimbsBackIsNotALevel) {
  // An H100's 2 MiB ladder: +10 (0.44), -7.6, +8.6; here the last one made sure: it climbs
  // back to where the plateaus were, not above them.
  const Staircase s = plateaus({270.0, 280.0, 272.4, 281.0}, {0.44, 0.25, 0.9});
  EXPECT_TRUE(steps_up(s).empty());
  // Sure and well above every plateau before: a level.
  const Staircase higher = plateaus({270.0, 280.0, 272.4, 300.0}, {0.44, 0.25, 0.9});
  EXPECT_EQ(steps_up(higher), (std::vector<std::size_t>{2}));
}

TEST(TlbSteps, UnsureOrDownStepsAreNeverLevels) {
  EXPECT_TRUE(steps_up(plateaus({270.0, 280.0}, {0.49})).empty());
  EXPECT_TRUE(steps_up(plateaus({280.0, 270.0}, {1.0})).empty());
  EXPECT_EQ(steps_up(plateaus({270.0, 280.0}, {0.5})), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(steps_up(Staircase{}).empty());
}

// The H200's L2 TLB ladder in the discovery at 8e8f22c (2026-11-24): elements missing on every
// pass per chain length from 1898, 32 MiB apart. The exact reading completed, with noise.
const std::vector<std::uint64_t> kH200L2TlbCompleteButNoisy = {
    13,   0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    16,   0,    0,    0,    0,    14,   0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    23,   41,   52,   60,   68,   78,   84,   87,   86,   87,   86,   97,
    104,  113,  122,  132,  141,  147,  157,  168,  175,  186,  192,  201,  213,  223,  230,  235,
    241,  249,  259,  267,  278,  287,  294,  305,  313,  323,  331,  341,  349,  359,  367,  377,
    385,  394,  403,  413,  422,  428,  438,  448,  457,  466,  475,  485,  494,  503,  504,  513,
    522,  531,  540,  549,  558,  567,  576,  585,  594,  603,  612,  621,  630,  639,  648,  657,
    666,  675,  684,  693,  702,  711,  720,  729,  738,  747,  756,  765,  774,  783,  792,  801,
    810,  819,  828,  837,  846,  855,  864,  873,  882,  891,  900,  909,  918,  927,  936,  945,
    954,  963,  972,  981,  990,  999,  1008, 1017, 1026, 1035, 1044, 1053, 1062, 1071, 1080, 1089,
    1098, 1107, 1116, 1125, 1134, 1143, 1152, 1161, 1170, 1179, 1188, 1197, 1206, 1215, 1224, 1233,
    1242, 1251, 1260, 1269, 1278, 1287, 1296, 1305, 1314, 1323, 1332, 1341, 1350, 1359, 1368, 1377,
    1386, 1395, 1404, 1413, 1422, 1431, 1440, 1449, 1458, 1467, 1476, 1485, 1494, 1503, 1512, 1521,
    1530, 1539, 1548, 1557, 1566, 1575, 1584, 1593, 1602, 1611, 1620, 1629, 1638, 1647, 1656, 1665,
    1674, 1683, 1692, 1701, 1710, 1719, 1728, 1737, 1746, 1755, 1764, 1773, 1782, 1791, 1800, 1809,
    1818, 1827, 1836, 1845, 1854, 1863, 1872, 1881, 1890, 1899, 1908, 1917, 1926, 1935, 1944, 1953,
    1962, 1971, 1980, 1989, 1998, 2007, 2016, 2025, 2034, 2043, 2052, 2061, 2070, 2079, 2088, 2097,
    2106, 2115, 2124, 2133, 2142, 2151, 2160, 2169, 2178, 2187, 2196, 2205, 2214, 2223, 2232, 2241,
    2250, 2259, 2268, 2269, 2270, 2271, 2272, 2273, 2274, 2275, 2276, 2285, 2294, 2303, 2312, 2313,
    2314, 2315, 2316, 2317, 2318, 2319, 2320};

LevelSets scanned(std::uint64_t first, const std::vector<std::uint64_t>& missing) {
  LevelSets sets;
  sets.first_miss_elements = first;
  sets.missing = missing;
  sets.sets = sets_from_overflows(first, missing);
  sets.ramp = equal_sets_from_ramp(first, missing);
  return sets;
}

TEST(TlbSets, ANoisyExactReadingGivesWayToTheRamp) {
  const LevelSets sets = scanned(1898, kH200L2TlbCompleteButNoisy);
  ASSERT_TRUE(sets.sets.complete);
  EXPECT_GT(sets.sets.ways.size(), 250u);  // every set read, but with ways from 2 to 22
  EXPECT_FALSE(sets.exact());
  ASSERT_TRUE(sets.from_ramp()) << sets.ramp.why;
  EXPECT_EQ(sets.ramp.ways, 8u);
  EXPECT_EQ(sets.ramp.sets, 256u);
  EXPECT_EQ(sets.entries(), 2048u);
}

// An H200's L2 TLB scanned from an aligned page (GPU-a591441c, chain start page 4161536 =
// 4064 x 1024, first miss at 2042 elements): every count explained, the increments 7-11
// around 9 (single words judged a length early or late).
const std::vector<std::uint64_t> kH200L2TlbAligned = {
    0,    0,    0,    0,    0,    0,    0,    0,    19,   35,   36,   51,   62,   68,   79,   88,
    97,   105,  116,  124,  133,  142,  151,  160,  170,  179,  186,  194,  203,  212,  222,  232,
    241,  250,  260,  269,  278,  286,  288,  297,  306,  315,  324,  333,  342,  351,  360,  369,
    378,  387,  396,  405,  414,  423,  432,  441,  450,  459,  468,  477,  486,  495,  504,  513,
    522,  531,  540,  549,  558,  567,  576,  585,  594,  603,  612,  621,  630,  639,  648,  657,
    666,  675,  684,  693,  702,  711,  720,  729,  738,  747,  756,  765,  774,  783,  792,  801,
    810,  819,  828,  837,  846,  855,  864,  873,  882,  891,  900,  909,  918,  927,  936,  945,
    954,  963,  972,  981,  990,  999,  1008, 1017, 1026, 1035, 1044, 1053, 1062, 1071, 1080, 1089,
    1098, 1107, 1116, 1125, 1134, 1143, 1152, 1161, 1170, 1179, 1188, 1197, 1206, 1215, 1224, 1233,
    1242, 1251, 1260, 1269, 1278, 1287, 1296, 1305, 1314, 1323, 1332, 1341, 1350, 1359, 1368, 1377,
    1386, 1395, 1404, 1413, 1422, 1431, 1440, 1449, 1458, 1467, 1476, 1485, 1494, 1503, 1512, 1521,
    1530, 1539, 1548, 1557, 1566, 1575, 1584, 1593, 1602, 1611, 1620, 1629, 1638, 1647, 1656, 1665,
    1674, 1683, 1692, 1701, 1710, 1719, 1728, 1737, 1746, 1755, 1764, 1773, 1782, 1791, 1800, 1809,
    1818, 1827, 1836, 1845, 1854, 1863, 1872, 1881, 1890, 1899, 1908, 1917, 1926, 1935, 1944, 1953,
    1962, 1971, 1980, 1989, 1998, 2007, 2016, 2025, 2034, 2043, 2052, 2061, 2070, 2079, 2088, 2097,
    2106, 2115, 2124, 2133, 2142, 2151, 2160, 2169, 2178, 2187, 2196, 2205, 2214, 2223, 2232, 2241,
    2250, 2259, 2268, 2277, 2286, 2295, 2304, 2305, 2306, 2307, 2308, 2309, 2310, 2311, 2312};

// An H200's L2 TLB at 529f601 (hit baselines, aligned start): clean counts, 25 at the first
// overflow (16 more than a set of 8 ways), then 9 per element with two 1s that pay the 16 back.
// Every count explained, two different ways (24 and 8): only the even-fill bound rejects it.
TEST(TlbSets, AnExactReadingThatBreaksTheEvenFillGivesWayToTheRamp) {
  std::vector<std::uint64_t> counts;
  std::uint64_t now = 0;
  for (const auto& [increment, lengths] : std::vector<std::pair<std::uint64_t, int>>{
           {0, 24}, {25, 1}, {9, 170}, {1, 1}, {9, 55}, {1, 1}, {9, 28}, {1, 8}}) {
    for (int i = 0; i < lengths; ++i) counts.push_back(now += increment);
  }
  const LevelSets sets = scanned(2025, counts);
  ASSERT_TRUE(sets.sets.complete);
  EXPECT_EQ(sets.sets.consistent, sets.sets.steps);
  EXPECT_EQ(ways_value(sets.sets.ways).size(), 254u);  // [24, 8, ...]
  EXPECT_FALSE(sets.exact());
  ASSERT_TRUE(sets.from_ramp()) << sets.ramp.why;
  EXPECT_EQ(sets.ramp.ways, 8u);
  EXPECT_EQ(sets.ramp.sets, 256u);
  EXPECT_EQ(sets.entries(), 2048u);
}

// The H200 L1 TLB scan at a860e43 (run 5): sets of 15 and 1 ways, every count explained, no
// ramp. Out of fill order: no reading (the level's entries are then a bound), not a wrong one.
TEST(TlbSets, SetsOutOfFillOrderAreNoReading) {
  const LevelSets sets = scanned(15, {0, 0, 16, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27});
  ASSERT_TRUE(sets.sets.complete);
  EXPECT_FALSE(sets.exact());
  EXPECT_FALSE(sets.read());
  // In order (one set of 16 ways), the same scan reads.
  EXPECT_TRUE(scanned(15, {0, 0, 17, 18, 19, 20, 21, 22, 23, 24, 25}).exact());
}

TEST(TlbSets, ManyWaysFromAnExplainedScanGiveWayToAStraightRamp) {
  const LevelSets sets = scanned(2042, kH200L2TlbAligned);
  ASSERT_TRUE(sets.sets.complete);
  EXPECT_EQ(sets.sets.consistent, sets.sets.steps);  // no count went down
  EXPECT_NE(sets.sets.ways.size(), 256u);            // the exact reading miscounts the sets
  EXPECT_FALSE(sets.exact());
  ASSERT_TRUE(sets.from_ramp()) << sets.ramp.why;
  EXPECT_GT(sets.ramp.explained, 0.9999);
  EXPECT_EQ(sets.ramp.ways, 8u);
  EXPECT_EQ(sets.ramp.sets, 256u);
  EXPECT_EQ(sets.entries(), 2048u);
}

// The H200 L2 TLB scan at 7d0c541 that read 25 + 253 x 8 ways: its bisection had counted 0 at
// 2049 elements and its first count was 26 at 2050, where 256 sets of 8 ways miss on 9 and 18.
TEST(TlbSets, TheFirstCountIsAMedianAndAShorterChainWithAnOverflowStartsTheScan) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> script = {
      {2050, {18, 18}}, {2049, {9, 0, 9}}, {2048, {0, 0, 0}}};
  std::vector<std::uint64_t> chased;
  const auto count = [&](std::uint64_t length) {
    chased.push_back(length);
    std::vector<std::uint64_t>& counts = script.at(length);
    const std::uint64_t c = counts.front();
    counts.erase(counts.begin());
    return c;
  };
  const FirstOverflow first = confirm_first_overflow(2050, 26, count);
  EXPECT_EQ(first.elements, 2049u);
  EXPECT_EQ(first.missing, 9u);
  EXPECT_EQ(chased, (std::vector<std::uint64_t>{2050, 2050, 2049, 2049, 2049, 2048, 2048, 2048}));
  ASSERT_EQ(first.checks.size(), 3u);
  EXPECT_EQ(first.checks[0].at("counts"), nlohmann::json({26, 18, 18}));
  // The median of the first length alone then reads 256 x 8 from 2049 on.
  const SetsFromOverflows sets =
      sets_from_overflows(first.elements, std::vector<std::uint64_t>{first.missing, 18, 27});
  EXPECT_EQ(sets.ways, (std::vector<std::uint64_t>{8, 8, 8}));
}

TEST(TlbSets, ALoneMisjudgedWordDoesNotMoveTheScansStart) {
  // The H200 L1 TLB (16 entries): one word judged slow at 15 and 16 elements, all 17 at 17.
  const auto count = [](std::uint64_t length) -> std::uint64_t {
    return length >= 17 ? length : length >= 15 ? 1 : 0;
  };
  const FirstOverflow lone = confirm_first_overflow(16, 1, count);
  EXPECT_EQ(lone.elements, 16u);
  EXPECT_EQ(lone.missing, 1u);
  EXPECT_EQ(lone.checks.size(), 2u);  // 16 three times, 15 three times
  // Every shorter chain overflowing (a script that never ends): at most kMaxFirstStepsBack back.
  const FirstOverflow capped =
      confirm_first_overflow(100, 5, [](std::uint64_t) -> std::uint64_t { return 5; });
  EXPECT_EQ(capped.elements, 100 - kMaxFirstStepsBack);
  // A first count that was the odd one out: the median of three.
  const FirstOverflow median = confirm_first_overflow(
      17, 3, [](std::uint64_t n) -> std::uint64_t { return n >= 17 ? 17 : 0; });
  EXPECT_EQ(median.elements, 17u);
  EXPECT_EQ(median.missing, 17u);
}

TEST(TlbSets, LengthsWithoutMissesAreGallopedOverToTheFirstThatMisses) {
  // As on the H200: the ladder's first miss at 1848, the first set overflowing at 2049.
  std::vector<std::uint64_t> chased;
  const auto misses = [&](std::uint64_t length) {
    chased.push_back(length);
    return length >= 2049;
  };
  EXPECT_EQ(first_length_missing(1848, 4096, misses), std::optional<std::uint64_t>(2049));
  EXPECT_LE(chased.size(), 16u);  // doubling, then bisecting: not 201 lengths one by one
  chased.clear();
  // The longest chain caps the doubling; nothing missing up to it gives nothing.
  EXPECT_EQ(first_length_missing(1848, 2000, misses), std::nullopt);
  EXPECT_EQ(chased.back(), 2000u);
  EXPECT_EQ(first_length_missing(1848, 1848, misses), std::nullopt);
  // A miss right after: one chase.
  chased.clear();
  EXPECT_EQ(first_length_missing(2048, 4096, misses), std::optional<std::uint64_t>(2049));
  EXPECT_EQ(chased.size(), 1u);
}

TEST(TlbSets, ExactCountsOfUnequalSetsAreTakenAsTheyAre) {
  // Two sets of 16 and 18 ways (a paper-like unequal level): 35 pages overflow the first
  // (17 misses), 36 the second too (every page misses); longer chains confirm.
  const LevelSets sets = scanned(35, {17, 36, 37, 38});
  ASSERT_TRUE(sets.sets.complete);
  EXPECT_TRUE(sets.exact());
  EXPECT_FALSE(sets.from_ramp());
  EXPECT_EQ(sets.entries(), 16u + 18u);
}

// The level before a step, whose last footprint already misses in part: 30 % of its loads
// take the next level's 437 cycles (the H200 L2 TLB ladder's 64 GiB point). Its typical slowest
// answer stays with the clean footprints; the pooled p95 would be a miss.
TEST(StepThreshold, AFootprintThatMissesInPartDoesNotLiftTheLevelsSlowestAnswer) {
  std::vector<Measured> coarse;
  for (int footprint = 0; footprint < 4; ++footprint) {
    Measured m;
    for (int i = 0; i < 1000; ++i) {
      const bool miss = footprint == 3 && i % 10 < 3;
      m.cycles.push_back(miss ? 437.0 : 280.0 + i % 11);
    }
    coarse.push_back(std::move(m));
  }
  StaircaseLevel before;
  before.first = 0;
  before.last = 3;
  before.spread.p95 = 437;  // what the pooled accesses give
  EXPECT_NEAR(typical_slowest(coarse, before), 290, 0.5);
  before.last = 2;  // clean footprints only: the same answer
  EXPECT_NEAR(typical_slowest(coarse, before), 290, 0.5);
  EXPECT_EQ(typical_slowest({}, before), 437);  // no traces: the pooled p95
}

}  // namespace
}  // namespace memtopo::staircase
