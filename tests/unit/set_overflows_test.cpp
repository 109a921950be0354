// Sets and ways from the miss counts of a growing cyclic chain (analysis/set_overflows): the
// counts come from a model of an LRU array, so every expectation is its configuration.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "analysis/set_overflows.hpp"
#include "backend/chain.hpp"

namespace memtopo {
namespace {

// Elements missing on every pass of a cyclic chain over pages 0 .. n-1 under LRU: those of the
// sets that hold more pages than ways.
std::uint64_t missing_on(std::uint64_t n, const std::vector<std::uint64_t>& ways,
                         const std::function<std::size_t(std::uint64_t)>& set_of) {
  std::map<std::size_t, std::uint64_t> pages;
  for (std::uint64_t page = 0; page < n; ++page) ++pages[set_of(page)];
  std::uint64_t missing = 0;
  for (const auto& [set, count] : pages) {
    if (count > ways[set]) missing += count;
  }
  return missing;
}

// The counts from the first chain that misses up to `last` pages.
struct Scan {
  std::uint64_t first = 0;
  std::vector<std::uint64_t> missing;
};
Scan scan(const std::vector<std::uint64_t>& ways,
          const std::function<std::size_t(std::uint64_t)>& set_of, std::uint64_t last) {
  Scan s;
  for (std::uint64_t n = 1; n <= last; ++n) {
    const std::uint64_t m = missing_on(n, ways, set_of);
    if (m == 0 && s.missing.empty()) continue;
    if (s.missing.empty()) s.first = n;
    s.missing.push_back(m);
  }
  return s;
}

TEST(SetOverflows, UnequalSetsOfThePaperModuloSeven) {
  const std::vector<std::uint64_t> ways = {17, 8, 8, 8, 8, 8, 8};
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    SCOPED_TRACE(rotation);
    const Scan s = scan(
        ways, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
    ASSERT_TRUE(sets.complete);
    EXPECT_EQ(sets.entries, 65u);
    EXPECT_EQ(sets.ways.size(), 7u);
    EXPECT_EQ(sets.consistent, sets.steps);
    EXPECT_EQ(ways_value(sets.ways), nlohmann::json({17, 8, 8, 8, 8, 8, 8}));
    // The first overflow comes before the capacity: the reason a step alone reads it wrong.
    EXPECT_LT(s.first, 66u);
    // The first chain on which every page missed: the set of 17 ways overflowed last.
    std::uint64_t all_missing = 0;
    for (std::size_t i = 0; i < s.missing.size() && all_missing == 0; ++i) {
      if (s.missing[i] == s.first + i) all_missing = s.first + i;
    }
    EXPECT_EQ(sets.all_missing_elements, all_missing);
    EXPECT_GT(all_missing, 65u);
  }
}

TEST(SetOverflows, EqualSetsGiveOneIntegerAndFullyAssociativeOneSet) {
  const Scan equal = scan(
      std::vector<std::uint64_t>(16, 4), [](std::uint64_t page) { return page % 16; }, 200);
  const SetsFromOverflows sets = sets_from_overflows(equal.first, equal.missing);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(equal.first, 65u);
  EXPECT_EQ(sets.entries, 64u);
  EXPECT_EQ(ways_value(sets.ways), nlohmann::json(4));
  EXPECT_EQ(sets.all_missing_elements, 80u);  // 16 sets x 5 pages

  const Scan full = scan(
      {16}, [](std::uint64_t) { return 0; }, 40);
  const SetsFromOverflows one = sets_from_overflows(full.first, full.missing);
  ASSERT_TRUE(one.complete);
  EXPECT_EQ(one.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(one.all_missing_elements, 17u);
}

TEST(SetOverflows, AnyMappingOfPagesToSets) {
  // A hashed mapping: every set still overflows once, by its ways + 1.
  std::vector<std::uint64_t> ways = {6, 6, 6, 6, 6, 6, 6, 6};
  const auto hashed = [](std::uint64_t page) {
    SplitMix64 rng(page * 7919 + 3);
    return static_cast<std::size_t>(rng.below(8));
  };
  const Scan s = scan(ways, hashed, 400);
  const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(sets.entries, 48u);
  EXPECT_EQ(ways_value(sets.ways), nlohmann::json(6));
}

TEST(SetOverflows, IncompleteScanAndInconsistentCounts) {
  const SetsFromOverflows partial = sets_from_overflows(65, std::vector<std::uint64_t>{5, 10, 11});
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.ways, (std::vector<std::uint64_t>{4, 4}));
  EXPECT_EQ(partial.consistent, 3u);

  // A count that falls, and one above the chain length: not explained, not counted as sets.
  const SetsFromOverflows noisy = sets_from_overflows(9, std::vector<std::uint64_t>{3, 2, 20, 12});
  EXPECT_EQ(noisy.steps, 4u);
  EXPECT_EQ(noisy.consistent, 2u);
  EXPECT_EQ(noisy.ways, std::vector<std::uint64_t>{2});
  EXPECT_TRUE(noisy.complete);
  EXPECT_EQ(noisy.all_missing_elements, 12u);
}

TEST(SetOverflows, LongerChainsConfirmOrContradictACompleteScan) {
  // A fully associative 16-entry level: 17 elements all miss at once, then longer chains too.
  const SetsFromOverflows confirmed =
      sets_from_overflows(17, std::vector<std::uint64_t>{17, 18, 19, 20});
  EXPECT_TRUE(confirmed.complete);
  EXPECT_EQ(confirmed.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(confirmed.steps, 4u);
  EXPECT_EQ(confirmed.consistent, 4u);
  const SetsFromOverflows contradicted =
      sets_from_overflows(17, std::vector<std::uint64_t>{17, 10, 19});
  EXPECT_EQ(contradicted.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(contradicted.consistent, 2u);
}

TEST(SetOverflows, ALoneMissBeforeAnyOverflowIsAMisjudgedWord) {
  // An H200 L1 TLB scan at 59c91cd (run 5 of docs/results/nvidia-h200/2026-11-28_59c91cd): one
  // word slow at 15 and 16 elements, then all 17 at once. Read as counted, the jump of 16 was a
  // set of 15 ways, every count explained; the four other runs counted 0 there and read 16.
  const std::vector<std::uint64_t> counts = {1, 1, 17, 18, 19, 20, 21, 22, 23, 24, 25};
  const SetsFromOverflows sets = sets_from_overflows(15, counts);
  EXPECT_TRUE(sets.complete);
  EXPECT_EQ(sets.ways, std::vector<std::uint64_t>{16});
  EXPECT_EQ(sets.entries, 16u);
  EXPECT_EQ(sets.all_missing_elements, 17u);
  EXPECT_EQ(sets.steps, 11u);
  EXPECT_EQ(sets.consistent, 10u);  // the lone miss is not explained
  // After a set overflowed, one more miss is that set taking one more page: explained.
  const SetsFromOverflows later = sets_from_overflows(9, std::vector<std::uint64_t>{3, 4, 5});
  EXPECT_EQ(later.ways, std::vector<std::uint64_t>{2});
  EXPECT_EQ(later.consistent, 3u);
}

// Counts from runs of (increment, lengths) from `first` elements on.
std::vector<std::uint64_t> counts_of(const std::vector<std::pair<std::uint64_t, int>>& runs) {
  std::vector<std::uint64_t> counts;
  std::uint64_t now = 0;
  for (const auto& [increment, lengths] : runs) {
    for (int i = 0; i < lengths; ++i) counts.push_back(now += increment);
  }
  return counts;
}

TEST(SetOverflows, SetsFilledInTurnFitTheEvenFillBound) {
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Scan s = scan(
        {17, 8, 8, 8, 8, 8, 8}, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    const SetsFromOverflows sets = sets_from_overflows(s.first, s.missing);
    ASSERT_EQ(sets.overflowed_at.size(), sets.ways.size());
    EXPECT_TRUE(overflows_fit_even_fill(sets)) << rotation;
  }
  const Scan equal = scan(
      std::vector<std::uint64_t>(16, 4), [](std::uint64_t page) { return page % 16; }, 200);
  const SetsFromOverflows four = sets_from_overflows(equal.first, equal.missing);
  EXPECT_EQ(four.overflowed_at.front(), 65u);
  EXPECT_TRUE(overflows_fit_even_fill(four));
  const Scan full = scan(
      {16}, [](std::uint64_t) { return 0; }, 40);
  EXPECT_TRUE(overflows_fit_even_fill(sets_from_overflows(full.first, full.missing)));
  // 120 sets of 16 ways and 8 of 15 (a sim whose ramp is straight too): the 15-way sets first.
  std::vector<std::uint64_t> mixed(128, 16);
  for (std::size_t set = 0; set < 8; ++set) mixed[set * 16] = 15;
  const Scan m = scan(
      mixed, [](std::uint64_t page) { return page % 128; }, 2200);
  EXPECT_TRUE(overflows_fit_even_fill(sets_from_overflows(m.first, m.missing)));
}

// An H200 L2 TLB scan at 529f601 (run 2, aligned start): 0 missing from 2025 to 2048 elements,
// 25 at 2049, then 9 more per element but twice only 1, and every element missing at 2305. Read
// as counted: a first set of 24 ways and 253 of 8, 2048 entries. Two sets of 8 ways lost a way
// when the first walks began (16 extra misses at 2049, paid back by the two +1 later): a set of
// 24 ways could hold 25 pages at 2049 elements only if the sets did not fill evenly, and the
// straight ramp (slope 9.0) says they did: 256 x 8.
TEST(SetOverflows, TheH200L2TlbsFirstOverflowBreaksTheEvenFill) {
  const std::vector<std::uint64_t> counts =
      counts_of({{0, 24}, {25, 1}, {9, 170}, {1, 1}, {9, 55}, {1, 1}, {9, 28}, {1, 8}});
  const SetsFromOverflows sets = sets_from_overflows(2025, counts);
  ASSERT_TRUE(sets.complete);
  EXPECT_EQ(sets.ways.front(), 24u);
  EXPECT_EQ(sets.overflowed_at.front(), 2049u);
  EXPECT_EQ(sets.entries, 2048u);
  EXPECT_EQ(sets.ways.size(), 254u);
  EXPECT_FALSE(overflows_fit_even_fill(sets));
  const RampFit ramp = equal_sets_from_ramp(2025, counts);
  ASSERT_TRUE(ramp.found) << ramp.why;
  EXPECT_EQ(ramp.ways, 8u);
  EXPECT_EQ(ramp.sets, 256u);
}

// Sets filled in turn overflow fewest ways first; the H200 L1 TLB scan at a860e43 (run 5) that
// counted 0, 0, 16, 17, 19 at 15-19 elements did not.
TEST(SetOverflows, SetsFilledInTurnOverflowFewestWaysFirst) {
  for (std::uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Scan s = scan(
        {17, 8, 8, 8, 8, 8, 7}, [&](std::uint64_t page) { return (page + rotation) % 7; }, 200);
    EXPECT_TRUE(overflows_in_fill_order(sets_from_overflows(s.first, s.missing))) << rotation;
  }
  const SetsFromOverflows h200 =
      sets_from_overflows(15, std::vector<std::uint64_t>{0, 0, 16, 17, 19, 20, 21, 22});
  ASSERT_TRUE(h200.complete);
  EXPECT_EQ(h200.ways, (std::vector<std::uint64_t>{15, 1}));
  EXPECT_EQ(h200.consistent, h200.steps);  // every count explained, and still not sets
  EXPECT_FALSE(overflows_in_fill_order(h200));
}

TEST(SetOverflows, WaysValueOfNothingIsNull) {
  EXPECT_TRUE(ways_value({}).is_null());
}

// Recorded on an H200 (2026-11-24, tlb_l1.reach at 5955547, third of three processes): the
// elements missing on every pass, per chain length from the first miss, of the L2 TLB's ladder
// (32 MiB apart, from 1973 elements) and of the L1 TLB's (16 MiB apart, from 16).
const std::vector<std::uint64_t> kH200L2TlbMissing = {
    11,   12,   12,   9,    11,   8,    7,    14,   8,    12,   9,    9,    8,    10,   10,   9,
    10,   13,   11,   11,   11,   10,   9,    13,   12,   12,   9,    8,    9,    11,   11,   9,
    12,   13,   12,   10,   11,   11,   13,   6,    9,    11,   12,   9,    10,   8,    11,   11,
    10,   10,   11,   7,    12,   10,   8,    8,    10,   9,    11,   9,    11,   11,   10,   9,
    11,   9,    8,    10,   8,    34,   44,   52,   61,   68,   77,   90,   86,   88,   88,   85,
    86,   87,   85,   88,   95,   103,  114,  127,  131,  141,  148,  162,  167,  176,  186,  192,
    202,  216,  222,  231,  241,  250,  256,  267,  276,  285,  290,  304,  313,  320,  328,  335,
    345,  353,  366,  373,  379,  387,  399,  402,  410,  418,  430,  435,  446,  454,  466,  474,
    481,  490,  499,  508,  518,  528,  533,  541,  551,  559,  570,  582,  588,  599,  607,  616,
    622,  633,  642,  655,  663,  668,  676,  684,  692,  708,  712,  724,  733,  741,  751,  759,
    765,  776,  781,  794,  800,  811,  820,  828,  839,  851,  856,  867,  879,  883,  893,  904,
    910,  920,  927,  934,  949,  953,  962,  969,  984,  987,  998,  1005, 1019, 1026, 1036, 1044,
    1049, 1060, 1071, 1079, 1088, 1098, 1105, 1113, 1120, 1128, 1144, 1147, 1159, 1166, 1178, 1186,
    1198, 1205, 1214, 1220, 1232, 1240, 1243, 1258, 1264, 1275, 1283, 1291, 1301, 1309, 1319, 1324,
    1337, 1346, 1354, 1363, 1373, 1380, 1390, 1396, 1407, 1414, 1422, 1431, 1442, 1449, 1460, 1466,
    1476, 1487, 1492, 1506, 1514, 1525, 1535, 1545, 1549, 1560, 1563, 1574, 1586, 1592, 1602, 1610,
    1619, 1629, 1638, 1647, 1653, 1667, 1675, 1682, 1689, 1696, 1707, 1714, 1724, 1735, 1742, 1753,
    1764, 1772, 1778, 1788, 1796, 1804, 1814, 1820, 1832, 1842, 1851, 1859, 1869, 1881, 1886, 1896,
    1905, 1910, 1923, 1926, 1936, 1947, 1955, 1966, 1975, 1984, 1991, 1999, 2010, 2023, 2029, 2038,
    2046, 2052, 2065, 2072, 2078, 2089, 2094, 2110, 2116, 2122, 2132, 2144, 2153, 2161, 2167, 2178,
    2188, 2194, 2207, 2213, 2213, 2213, 2215, 2220, 2215, 2219, 2222, 2220, 2227, 2237, 2249, 2257,
    2266, 2270, 2287, 2293, 2290, 2297, 2294, 2296, 2299, 2302, 2302, 2297, 2304, 2303, 2307, 2303,
    2309, 2306, 2309, 2309, 2310, 2311, 2313, 2309, 2311, 2315, 2319, 2316, 2319, 2316, 2323, 2322,
    2324, 2321, 2321, 2325, 2324, 2324, 2328, 2326, 2329, 2332, 2330, 2333, 2333, 2333, 2337, 2341,
    2337, 2338, 2336, 2342, 2344, 2340, 2345, 2343, 2340, 2342, 2343, 2350, 2350, 2351, 2352, 2354,
    2354, 2356, 2357, 2356, 2360, 2358, 2364, 2363, 2361, 2356, 2359, 2362, 2364, 2368, 2366, 2368,
    2371, 2370, 2374, 2373, 2373, 2370, 2375, 2374, 2378, 2375, 2375, 2384, 2381, 2380, 2382, 2387,
    2385, 2386, 2387, 2388, 2391, 2387, 2393, 2391, 2396, 2396, 2397, 2395, 2392, 2398, 2399, 2403,
    2402, 2400, 2405, 2404, 2404, 2407, 2408, 2410, 2409, 2410, 2412, 2411, 2413, 2416, 2414, 2416,
    2418, 2414, 2420, 2419, 2421, 2418, 2417, 2424, 2426, 2428, 2425, 2426, 2428, 2428, 2425, 2429,
    2433, 2430, 2434, 2434, 2440, 2439, 2437, 2438, 2443, 2440, 2443, 2445, 2443, 2444, 2450, 2448,
    2449, 2449, 2450, 2447, 2454, 2451, 2455, 2454, 2457, 2460, 2457, 2453, 2459, 2461, 2461, 2461};
const std::vector<std::uint64_t> kH200L1TlbMissing = {
    0,   6,   7,   8,   8,   9,   8,   6,   9,   9,   11,  9,   10,  13,  10,  11,  12,  11,  13,
    13,  14,  14,  18,  15,  19,  19,  22,  21,  20,  20,  23,  22,  23,  29,  26,  29,  27,  32,
    27,  34,  33,  27,  35,  31,  34,  36,  36,  32,  39,  33,  34,  33,  36,  39,  43,  40,  40,
    44,  47,  41,  44,  47,  41,  43,  43,  44,  45,  44,  45,  50,  47,  48,  51,  49,  48,  57,
    49,  57,  57,  55,  55,  56,  60,  52,  61,  62,  63,  69,  59,  62,  67,  66,  67,  73,  66,
    68,  68,  68,  67,  64,  64,  72,  67,  72,  70,  79,  74,  75,  68,  80,  74,  82,  76,  72,
    83,  75,  76,  81,  83,  86,  82,  84,  83,  89,  86,  92,  93,  86,  91,  86,  87,  93,  91,
    89,  94,  98,  101, 101, 98,  101, 101, 106, 104, 116, 109, 109, 112, 110, 106, 105, 109, 108,
    116, 117, 114, 118, 119, 116, 110, 113, 115, 119, 123, 127, 124, 119, 121, 123, 125, 127, 130,
    135, 127, 130, 122, 137, 131, 132, 136, 132, 127, 134, 135, 135, 144, 140, 136, 143, 148, 144,
    144, 152, 147, 144, 136, 145, 155, 147, 152, 148, 156, 150, 147, 161, 151, 153, 151, 161, 156,
    152, 159, 159, 161, 158, 167, 163, 168, 164, 161, 169, 172, 173, 169, 179, 171, 177, 172, 181,
    181, 182, 172, 176, 182, 186, 168, 171, 185, 174, 179, 187, 178, 183, 183, 186, 186, 190, 185,
    177, 188, 184, 186, 195, 197, 184, 192, 202, 189, 197, 198, 205, 195, 211, 193, 196, 207, 207,
    201, 207, 200, 211, 212, 215, 208, 202, 203, 210, 202, 208, 205, 209, 216, 211, 211, 204, 204,
    212, 211, 213, 217, 225, 212, 219, 223, 229, 220, 212, 218, 224, 237, 217, 219, 241, 225, 236,
    239, 226, 239, 233, 232, 233, 233, 230, 239, 241, 239, 238, 227, 240, 227, 248, 241, 243, 250,
    243, 250, 254, 264, 254, 251, 250, 253, 260, 259, 263, 256, 258, 261, 262, 257, 267, 260, 268,
    266, 269, 263, 263, 261, 278, 275, 280, 279, 273, 287, 279, 274, 282, 285, 295, 283, 278, 279,
    287, 292, 287, 290, 286, 291, 299, 293, 291, 295, 296, 293, 298, 292, 299, 300, 289, 308, 304,
    305, 302, 319, 300, 311, 309, 314, 309, 301, 316, 307, 315, 317, 313, 317, 306, 324, 317, 310,
    319, 328, 318, 322, 328, 326, 323, 329, 314, 327, 327, 324, 321, 327, 335, 341, 328, 328, 338,
    338, 341, 343, 327, 346, 336, 347, 348, 358, 349, 341, 350, 349, 361, 347, 353, 352, 354, 362,
    343, 347, 352, 361, 348, 344, 358, 362, 354, 355, 362, 356, 365, 365, 375, 373, 363, 363, 367,
    375, 358, 381, 389, 380, 377, 392, 384, 374, 389, 387, 383, 378, 382, 383, 376, 382, 388, 383,
    407, 397, 381, 393, 393, 398, 389, 403, 400, 400, 400, 391, 391, 399, 399, 401, 399, 405, 414,
    411, 407, 405, 415, 412, 413, 399, 413, 413, 412, 407, 414, 417, 401, 424, 410, 407, 429};

TEST(SetsFromRamp, ExactCountsOfEqualSetsGiveWaysAndSets) {
  // 4 sets of 3 ways: nothing misses up to 12 elements, then 4 more per element up to 16.
  std::vector<std::uint64_t> missing;
  for (std::uint64_t n = 13; n <= 40; ++n) missing.push_back(n <= 16 ? 4 * (n - 12) : n);
  // A ramp of four lengths is too short to fit: a bigger level.
  std::vector<std::uint64_t> big;
  for (std::uint64_t n = 1000; n <= 1400; ++n) {
    big.push_back(n <= 1024 ? 0 : n <= 1152 ? 9 * (n - 1024) : n);
  }
  const RampFit fit = equal_sets_from_ramp(1000, big);
  ASSERT_TRUE(fit.found) << fit.why;
  EXPECT_EQ(fit.ways, 8u);
  EXPECT_EQ(fit.sets, 128u);
  EXPECT_NEAR(fit.onset, 1024, 0.5);
  EXPECT_NEAR(fit.end, 1152, 0.5);
  EXPECT_NEAR(fit.explained, 1.0, 1e-9);
  const RampFit short_ramp = equal_sets_from_ramp(13, missing);
  EXPECT_FALSE(short_ramp.found);
}

TEST(SetsFromRamp, TheH200L2TlbHas256SetsOf8Ways) {
  // The exact reading never completes: about 20 words stay hits however long the chain.
  EXPECT_FALSE(sets_from_overflows(1973, kH200L2TlbMissing).complete);
  const RampFit fit = equal_sets_from_ramp(1973, kH200L2TlbMissing);
  EXPECT_FALSE(fit.uneven);
  ASSERT_TRUE(fit.found) << fit.why;
  EXPECT_EQ(fit.ways, 8u);
  EXPECT_EQ(fit.sets, 256u);
  EXPECT_NEAR(fit.onset, 2046, 4);
  EXPECT_NEAR(fit.end, 2046 + 256, 12);
  EXPECT_GT(fit.explained, 0.99);
}

// Another process (afb8e17, repeats/run-1): about 120 words miss only from 2330 elements on,
// 5 % short of the chain for 24 lengths past the ramp's end.
const std::vector<std::uint64_t> kH200L2TlbStragglers = {
    7,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    30,   37,   46,   62,   71,   79,   88,
    97,   106,  115,  125,  134,  142,  151,  159,  169,  177,  186,  194,  205,  215,  223,  229,
    241,  250,  260,  266,  278,  287,  293,  304,  314,  323,  331,  340,  350,  357,  366,  376,
    386,  393,  403,  411,  421,  429,  439,  439,  440,  440,  437,  439,  440,  439,  439,  439,
    440,  439,  446,  448,  447,  445,  447,  455,  464,  473,  482,  493,  501,  510,  516,  529,
    538,  542,  556,  564,  573,  582,  591,  600,  606,  614,  625,  636,  642,  655,  661,  672,
    679,  690,  691,  700,  710,  716,  727,  736,  746,  754,  761,  772,  782,  790,  799,  808,
    817,  825,  835,  844,  852,  862,  872,  880,  889,  898,  907,  914,  926,  935,  944,  952,
    961,  971,  978,  989,  996,  1006, 1016, 1024, 1033, 1041, 1051, 1059, 1068, 1078, 1087, 1096,
    1105, 1115, 1123, 1132, 1141, 1150, 1158, 1167, 1178, 1187, 1194, 1205, 1213, 1223, 1232, 1240,
    1250, 1257, 1267, 1277, 1284, 1295, 1302, 1312, 1321, 1330, 1338, 1349, 1358, 1367, 1375, 1384,
    1392, 1402, 1412, 1420, 1430, 1437, 1446, 1457, 1465, 1474, 1484, 1493, 1501, 1511, 1519, 1528,
    1538, 1545, 1556, 1564, 1573, 1583, 1590, 1600, 1609, 1617, 1624, 1637, 1645, 1653, 1662, 1673,
    1682, 1690, 1699, 1709, 1717, 1727, 1735, 1745, 1754, 1763, 1771, 1781, 1789, 1797, 1806, 1816,
    1825, 1833, 1843, 1853, 1861, 1870, 1879, 1889, 1898, 1907, 1916, 1924, 1932, 1943, 1952, 1959,
    1969, 1977, 1988, 1996, 2003, 2013, 2021, 2033, 2042, 2051, 2060, 2068, 2076, 2086, 2095, 2105,
    2112, 2121, 2132, 2141, 2148, 2157, 2166, 2168, 2170, 2171, 2172, 2171, 2174, 2175, 2175, 2174,
    2177, 2178, 2179, 2181, 2180, 2183, 2182, 2183, 2186, 2187, 2187, 2187, 2190, 2189, 2192, 2190,
    2194, 2194, 2196, 2195, 2197, 2198, 2198, 2201, 2201, 2201, 2203, 2205, 2205, 2205, 2207, 2208,
    2210, 2210, 2212, 2212, 2211, 2213, 2215, 2225, 2233, 2243, 2251, 2261, 2268, 2279, 2287, 2295,
    2305, 2307, 2316, 2325, 2334, 2343, 2352, 2353, 2354, 2355, 2356, 2357, 2358, 2359, 2360};

// An H200 L2 TLB scan that stepped by 3 lengths (run 2 of docs/results/nvidia-h200/
// 2026-11-28_59c91cd): onset 2043.98, end 2305.30, 8 ways. The onset alone gave 255.50 sets and
// rounded to 255 (the other four runs: 255.57-255.89, 256); with the end, 255.84.
const std::vector<std::uint64_t> kH200L2TlbTiltedLengths = {
    2011, 2012, 2013, 2016, 2019, 2022, 2025, 2028, 2031, 2034, 2037, 2040, 2043, 2046, 2049, 2052,
    2055, 2058, 2061, 2064, 2067, 2070, 2073, 2076, 2079, 2082, 2085, 2088, 2091, 2094, 2097, 2100,
    2103, 2106, 2109, 2112, 2115, 2118, 2121, 2124, 2127, 2130, 2133, 2136, 2139, 2142, 2145, 2148,
    2151, 2154, 2157, 2160, 2163, 2166, 2169, 2172, 2175, 2178, 2181, 2184, 2187, 2190, 2193, 2196,
    2199, 2202, 2205, 2208, 2211, 2214, 2217, 2220, 2223, 2226, 2229, 2232, 2235, 2238, 2241, 2244,
    2247, 2250, 2253, 2256, 2259, 2262, 2265, 2268, 2271, 2274, 2277, 2280, 2283, 2286, 2289, 2292,
    2295, 2298, 2301, 2304, 2307, 2310, 2313, 2316, 2319, 2322, 2325, 2328, 2331, 2334, 2337, 2340,
    2343, 2346, 2349, 2352, 2355, 2358, 2361, 2364, 2367, 2370, 2373};
const std::vector<std::uint64_t> kH200L2TlbTiltedMissing = {
    28,   12,   10,   11,   7,    9,    14,   7,    12,   12,   11,   14,   14,   14,   36,   62,
    90,   117,  146,  170,  196,  226,  251,  280,  306,  335,  361,  384,  413,  438,  469,  495,
    520,  549,  572,  600,  628,  653,  680,  708,  732,  759,  788,  813,  840,  865,  891,  918,
    947,  970,  1003, 1030, 1058, 1084, 1106, 1133, 1163, 1186, 1213, 1232, 1258, 1285, 1312, 1338,
    1367, 1389, 1417, 1446, 1474, 1500, 1523, 1552, 1580, 1608, 1632, 1660, 1686, 1714, 1740, 1765,
    1793, 1818, 1845, 1864, 1889, 1921, 1944, 1970, 1999, 2027, 2052, 2078, 2102, 2130, 2155, 2182,
    2210, 2237, 2263, 2291, 2296, 2296, 2298, 2306, 2306, 2307, 2314, 2313, 2318, 2321, 2324, 2325,
    2331, 2331, 2338, 2338, 2339, 2342, 2346, 2349, 2351, 2361, 2362};

TEST(SetsFromRamp, TheOnsetAndTheEndTogetherGiveTheSets) {
  const RampFit fit = equal_sets_from_ramp(kH200L2TlbTiltedLengths, kH200L2TlbTiltedMissing);
  ASSERT_TRUE(fit.found) << fit.why;
  EXPECT_EQ(fit.ways, 8u);
  EXPECT_LT(fit.onset / 8, 255.5);  // what rounded to 255
  EXPECT_EQ(fit.sets, 256u);
  EXPECT_EQ(fit.entries(), 2048u);
}

TEST(SetsFromRamp, APauseMidRampIsUnevenEvenWhenTheLineRoundsRight) {
  // This process's chain started off an aligned page: its counts hold at 440 for 12 lengths
  // mid-ramp and the same sets overflow late, past 2300. The line still rounds to 256 x 8, but
  // explains only 0.991 of the counts; scans from aligned pages explain 0.9999 and more.
  const RampFit fit = equal_sets_from_ramp(1898, kH200L2TlbStragglers);
  EXPECT_FALSE(fit.found);
  EXPECT_TRUE(fit.uneven);
  EXPECT_NEAR(fit.slope, 9, 0.1);
  EXPECT_LT(fit.explained, 0.999);
  EXPECT_GT(fit.explained, 0.99);
}

TEST(SetsFromRamp, CountsAtEveryThirdLengthGiveTheSameLine) {
  std::vector<std::uint64_t> lengths, missing;
  for (std::size_t i = 0; i < kH200L2TlbMissing.size(); i += 3) {
    lengths.push_back(1973 + i);
    missing.push_back(kH200L2TlbMissing[i]);
  }
  const RampFit every = equal_sets_from_ramp(1973, kH200L2TlbMissing);
  const RampFit third = equal_sets_from_ramp(lengths, missing);
  ASSERT_TRUE(third.found) << third.why;
  EXPECT_EQ(third.ways, every.ways);
  EXPECT_EQ(third.sets, every.sets);
  EXPECT_NEAR(third.onset, every.onset, 1);
  EXPECT_LT(third.points, every.points / 2);
}

TEST(AlignedStart, TheNextPageOnALargestPowerOfTwoBlockUpToTheFirstMiss) {
  // First miss 2042: blocks of 1024 pages; page 4161019 is 517 short of 4161536 = 4064 x 1024.
  EXPECT_EQ(aligned_start(4161019, 2042, 3063, 4096), 517u);
  EXPECT_EQ(aligned_start(4161536, 2042, 3063, 4096), 0u);  // aligned already
  // Too little room for 1023 more: the largest smaller block that fits (512: 4161019 % 512 = 507,
  // 5 short; needed 4090 + 5 <= 4096).
  EXPECT_EQ(aligned_start(4161019, 2042, 4090, 4096), 5u);
  EXPECT_EQ(aligned_start(0, 2042, 3063, 4096), 0u);                  // address unknown (a sim)
  EXPECT_EQ(aligned_start(4161019, 2042, 4097, 4096), std::nullopt);  // no room at all
  EXPECT_EQ(aligned_start(7, 1, 1, 16), 0u);                          // one entry: nothing to align
}

TEST(AlignedStart, AnH100LikeArrayHasRoomForAnEightWayRampOnly) {
  // 77 GiB of 32 MiB pages (2455) against a first miss at 2049: 1.5 x 2049 fits at no block;
  // 2049 + 2049 / 8 = 2305 fits from the next 128-page block (page 5000 is 120 short of 5120),
  // not from the next 1024-page one (1144 short).
  EXPECT_EQ(aligned_start(5000, 2049, 2049 + 2049 / 2, 2455), std::nullopt);
  EXPECT_EQ(aligned_start(5000, 2049, 2049 + 2049 / 8, 2455), 120u);
}

// A process whose sets filled in bursts (46a463b, repeats/run-1): 9 per element, a pause of
// about 45 lengths, 9 per element again, a slow stretch, then the rest at once.
const std::vector<std::uint64_t> kH200L2TlbBursts = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    16,
    27,   36,   45,   54,   63,   72,   81,   90,   99,   108,  117,  126,  135,  144,  153,  162,
    171,  180,  189,  198,  207,  216,  225,  234,  243,  252,  261,  270,  279,  288,  297,  306,
    315,  324,  333,  342,  351,  360,  369,  378,  387,  396,  405,  414,  423,  432,  441,  450,
    459,  468,  477,  486,  495,  504,  513,  522,  531,  540,  549,  558,  567,  576,  585,  594,
    603,  612,  621,  630,  639,  648,  657,  666,  675,  684,  693,  702,  711,  720,  729,  738,
    747,  756,  765,  774,  783,  792,  792,  800,  799,  800,  799,  800,  809,  818,  817,  816,
    818,  816,  818,  816,  817,  816,  818,  817,  818,  824,  823,  824,  824,  824,  823,  823,
    826,  823,  824,  825,  826,  823,  824,  825,  825,  822,  825,  824,  824,  825,  834,  843,
    850,  860,  869,  878,  886,  896,  905,  914,  925,  932,  940,  951,  961,  968,  977,  984,
    996,  1006, 1010, 1024, 1030, 1042, 1046, 1058, 1069, 1077, 1085, 1096, 1103, 1112, 1121, 1132,
    1140, 1148, 1158, 1166, 1176, 1185, 1195, 1203, 1210, 1220, 1227, 1239, 1245, 1255, 1265, 1274,
    1283, 1293, 1303, 1311, 1319, 1328, 1336, 1346, 1355, 1364, 1375, 1384, 1390, 1400, 1409, 1418,
    1429, 1435, 1446, 1453, 1462, 1472, 1481, 1488, 1500, 1509, 1514, 1526, 1534, 1544, 1552, 1563,
    1571, 1579, 1589, 1598, 1607, 1617, 1627, 1635, 1643, 1653, 1659, 1669, 1678, 1688, 1697, 1707,
    1715, 1726, 1733, 1742, 1751, 1760, 1770, 1779, 1787, 1796, 1802, 1815, 1824, 1832, 1840, 1847,
    1858, 1867, 1878, 1886, 1896, 1903, 1909, 1922, 1933, 1941, 1949, 1957, 1967, 1978, 1979, 1973,
    1981, 1981, 1981, 1982, 1983, 1984, 1987, 1986, 1985, 1990, 1987, 1990, 1992, 1991, 1992, 1994,
    1994, 1995, 1996, 1996, 2000, 2000, 2003, 2002, 2005, 2005, 2007, 2007, 2009, 2006, 2009, 2011,
    2013, 2011, 2013, 2015, 2014, 2015, 2018, 2018, 2019, 2020, 2020, 2023, 2021, 2026, 2025, 2027,
    2025, 2028, 2029, 2030, 2031, 2034, 2033, 2036, 2036, 2036, 2037, 2039, 2040, 2040, 2043, 2041,
    2042, 2045, 2045, 2046, 2044, 2048, 2050, 2051, 2052, 2054, 2052, 2054, 2055, 2056, 2058, 2058,
    2059, 2059, 2061, 2061, 2064, 2066, 2066, 2075, 2083, 2091, 2103, 2111, 2110, 2111, 2121, 2132,
    2140, 2150, 2159, 2168, 2175, 2186, 2191, 2203, 2205, 2214, 2223, 2232, 2241, 2250, 2259, 2268,
    2277, 2286, 2295, 2304, 2313, 2322, 2331, 2340, 2349, 2358, 2367, 2376, 2385, 2394, 2395, 2396,
    2397, 2398, 2399, 2400, 2401, 2402};

TEST(SetsFromRamp, SetsThatFillInBurstsGiveNoRamp) {
  const RampFit fit = equal_sets_from_ramp(1917, kH200L2TlbBursts);
  EXPECT_FALSE(fit.found);
  EXPECT_NE(fit.why.find("unevenly"), std::string::npos) << fit.why;
  EXPECT_TRUE(fit.uneven);  // what makes the TLB probe scan once more
}

TEST(SetsFromRamp, TheH200L1TlbIsNoRampOfSets) {
  // Counted as elements slow on every pass (before 07c8e41: with 12-60 passes per chain a miss
  // of 10 cycles in the noise was rarely slow on all), its counts rise by less than one miss per
  // element: no set overflows at once.
  const RampFit fit = equal_sets_from_ramp(16, kH200L1TlbMissing);
  EXPECT_FALSE(fit.found);
  EXPECT_LT(fit.slope, 1.5);
  EXPECT_FALSE(fit.why.empty());
}

TEST(SetsFromRamp, AScanThatStopsOnTheRampFindsNothing) {
  std::vector<std::uint64_t> missing;
  for (std::uint64_t n = 1025; n <= 1100; ++n) missing.push_back(9 * (n - 1024));
  const RampFit fit = equal_sets_from_ramp(1025, missing);
  EXPECT_FALSE(fit.found);
  EXPECT_NE(fit.why.find("ended before"), std::string::npos);
}

// An H200 scan (docs/results/nvidia-h200/2026-11-24_732bab2, run 3) from 1898 elements: 256
// sets x 8 ways rise by 9 per element to about 1960 at 2266 elements, then hold at 87 % missing
// (one per element) until 2346, then rise again until every element misses. Its best line
// (slope 8.07: 7 ways, 291 sets) explains 0.92 of the counts: uneven, not a reading.
const std::vector<std::uint64_t> kH200L2TlbStall = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    18,   31,   40,   50,   59,   68,   78,   84,   87,   83,   87,   86,   87,   87,   86,   93,
    106,  114,  123,  132,  139,  148,  156,  168,  174,  186,  192,  205,  212,  220,  231,  239,
    248,  257,  268,  276,  286,  295,  303,  309,  319,  322,  331,  340,  350,  358,  366,  374,
    386,  394,  403,  411,  422,  430,  439,  448,  458,  466,  475,  483,  492,  503,  511,  521,
    529,  538,  547,  557,  564,  574,  583,  591,  602,  610,  618,  628,  637,  646,  656,  665,
    672,  683,  692,  700,  707,  719,  728,  737,  746,  754,  764,  770,  782,  791,  799,  808,
    818,  827,  836,  843,  854,  861,  871,  880,  889,  897,  906,  917,  925,  934,  943,  951,
    961,  971,  979,  989,  998,  1006, 1014, 1025, 1034, 1042, 1051, 1059, 1069, 1079, 1088, 1097,
    1103, 1113, 1122, 1131, 1142, 1150, 1159, 1166, 1177, 1187, 1196, 1204, 1214, 1223, 1231, 1240,
    1250, 1259, 1266, 1277, 1285, 1295, 1302, 1312, 1321, 1330, 1339, 1349, 1355, 1365, 1376, 1385,
    1394, 1402, 1411, 1420, 1427, 1437, 1447, 1456, 1464, 1475, 1483, 1492, 1501, 1510, 1519, 1525,
    1537, 1546, 1556, 1565, 1574, 1582, 1590, 1601, 1610, 1617, 1625, 1635, 1643, 1655, 1663, 1670,
    1682, 1690, 1698, 1709, 1716, 1726, 1736, 1743, 1754, 1761, 1772, 1780, 1790, 1799, 1808, 1816,
    1825, 1834, 1843, 1852, 1861, 1869, 1880, 1889, 1898, 1905, 1916, 1924, 1934, 1940, 1951, 1960,
    1960, 1963, 1964, 1964, 1965, 1967, 1966, 1969, 1968, 1971, 1971, 1973, 1974, 1975, 1976, 1977,
    1977, 1979, 1978, 1979, 1982, 1982, 1983, 1984, 1986, 1985, 1988, 1988, 1988, 1989, 1991, 1992,
    1993, 1993, 1995, 1996, 1998, 1999, 1999, 2000, 2002, 2002, 2003, 2004, 2005, 2004, 2008, 2008,
    2010, 2011, 2011, 2012, 2014, 2014, 2016, 2017, 2017, 2017, 2018, 2020, 2019, 2023, 2023, 2023,
    2026, 2027, 2027, 2029, 2030, 2030, 2031, 2032, 2031, 2031, 2035, 2035, 2037, 2037, 2039, 2041,
    2040, 2051, 2059, 2067, 2078, 2086, 2096, 2103, 2106, 2107, 2107, 2109, 2109, 2110, 2112, 2111,
    2122, 2131, 2139, 2148, 2158, 2167, 2175, 2184, 2194, 2202, 2211, 2221, 2230, 2237, 2245, 2256,
    2265, 2275, 2283, 2291, 2301, 2311, 2320, 2328, 2336, 2346, 2356, 2363, 2373, 2383, 2384, 2393,
    2394, 2395, 2396, 2397, 2398, 2399, 2400, 2401};

TEST(SetsFromRamp, AStallBeforeTheEndIsUnevenNotSevenWays) {
  const RampFit fit = equal_sets_from_ramp(1898, kH200L2TlbStall);
  EXPECT_FALSE(fit.found) << fit.ways << " ways, " << fit.sets << " sets";
  EXPECT_TRUE(fit.uneven);
  EXPECT_LT(fit.explained, 0.99);
}

}  // namespace
}  // namespace memtopo
