#pragma once
// The change rule for a cache size: does a footprint fit in the cache under test?
//
// Kept deliberately small and replaceable (change-point detection will supersede it). A timed
// access is slow when its overhead-corrected cycles exceed the midpoint between the hit latency
// of the cache under test and the latency of the next level. Two tests, each against what rare
// outliers alone would exceed only with a tiny probability (a Poisson upper quantile):
//   missing elements: an element misses when every one of its timed accesses is slow (with two
//     or more passes an isolated outlier cannot make an element miss, while an overfull set
//     under a deterministic policy, LRU or FIFO, misses on every pass): sensitive to one
//     overfull set even in a long chain;
//   slow accesses: all slow accesses against the outlier rate times the accesses. Random-like
//     replacement evicts a different line of an overfull set each time, so its misses move from
//     element to element and hardly any element is slow on every pass; but the miss rate rises
//     with the footprint, and the surplus of slow accesses over what outliers explain shows it.
// A footprint fits when neither count exceeds its allowance.
#include <cstddef>
#include <cstdint>
#include <span>

namespace memtopo {

// The two latencies (overhead-corrected cycles) that tell a hit from a miss.
// The hit latency is the p50 of the cache under test on a footprint that certainly fits (warm).
// The next level's latency is its fastest typical answer, the p5 of a chase that skips the cache
// under test on the same footprint (e.g. L2 via ld.global.cg): a next level that answers at two
// latencies (near and far L2 partitions) must not push the threshold above its near answers.
struct SizeBaseline {
  double hit_cycles = 0;
  double next_level_cycles = 0;
};

// The outlier rate a rule assumes when nothing measured says more: 0.1 %.
inline constexpr double kAssumedOutlierRate = 0.001;

struct FitRule {
  double threshold_cycles = 0;  // an access slower than this is slow (a miss or an outlier)
  // Rate of rare slow accesses that are not misses (interrupts, refreshes): at least 0.1 %, more
  // when the baseline of the cache under test shows more (with_measured_outlier_rate).
  double outlier_rate = kAssumedOutlierRate;
  // Accepted probability that outliers alone make a fitting footprint look like it misses.
  double false_miss_probability = 1e-6;
};

// The rule for a baseline: threshold at the midpoint of hit and next-level latency.
FitRule fit_rule_for(const SizeBaseline& baseline);

// The rule with its outlier rate raised to what a warm chase that certainly hits (the baseline of
// the cache under test) shows: an upper confidence bound (tail 10^-2) on its slow-access rate,
// and never below the assumed 0.1 %. A device (or a simulated one) with more outliers than that
// would otherwise have every long chase judged missing by the slow-access test.
FitRule with_measured_outlier_rate(FitRule rule, std::span<const double> hit_corrected_cycles);

// An upper bound on the mean of a Poisson count of which `observed` was seen: the smallest mean
// under which seeing at most `observed` has probability at most `tail`.
double poisson_upper_bound(std::size_t observed, double tail);

// The largest count k such that Poisson(expected_outlier_misses) exceeds k with probability at
// most `tail` (the outlier count of many independent accesses is Poisson to a good approximation).
std::size_t allowed_misses(double expected_outlier_misses, double tail);

struct FitVerdict {
  bool fits = true;
  std::size_t elements = 0;       // distinct chain elements timed
  std::uint32_t min_passes = 0;   // fewest timed accesses of any element
  std::size_t missing = 0;        // elements slow on every timed access
  std::size_t slow_accesses = 0;  // timed accesses above the threshold
  std::size_t allowed = 0;        // most missing elements outliers can explain
  std::size_t accesses = 0;       // timed accesses
  std::size_t allowed_slow = 0;   // most slow accesses outliers can explain
  double miss_fraction = 0;       // missing / elements
  double limit = 0;               // allowed / elements: the fraction limit the rule applied
  // How much the footprint misses, on one scale for both tests: the larger of missing / elements
  // and the surplus of slow accesses over the expected outliers per access (0 when none). Near
  // 0 for a fitting footprint whatever the replacement policy, and above 0 for a missing one
  // even under random replacement (where miss_fraction stays near 0): what the size search's
  // edge confidence compares.
  double miss_score = 0;
};

// Judges one trace: `corrected_cycles[i]` is the overhead-corrected time of the access that
// loaded word `indices[i]`. Throws std::invalid_argument when the spans differ in length or are
// empty.
FitVerdict judge_fit(std::span<const double> corrected_cycles,
                     std::span<const std::uint32_t> indices, const FitRule& rule);

// The elements of one trace slow on more than half of their timed accesses (on both of two):
// `corrected_cycles[i]` is the overhead-corrected time of the access that loaded word
// `indices[i]`. Where a miss costs little more than the noise of one load (an H200's L1 TLB: 10
// cycles over L2 hits that spread by 2.7), "slow on every access" undercounts with many passes:
// a 17-element chain gets 60, and a missing element whose loads each cross the threshold with
// probability 0.8 is slow on all 60 almost never. A majority keeps one outlier from making an
// element miss and needs no pass to be clean. Throws std::invalid_argument as judge_fit does.
std::size_t elements_slow_on_most_passes(std::span<const double> corrected_cycles,
                                         std::span<const std::uint32_t> indices,
                                         double threshold_cycles);

// One footprint of the fine scan around the size edge.
struct ScanPoint {
  std::uint64_t footprint_bytes = 0;
  double miss_fraction = 0;  // how much it misses: the size search puts the verdict's miss_score
  bool fits = false;
};

// Confidence in [0, 1] that `size_bytes` is the edge the fine scan shows:
//   agreement: the fraction of scan points whose verdict matches "fits iff footprint <= size";
//   contrast:  1 - (median miss fraction at or below the size) / (median miss fraction above
//              it), clamped to [0, 1]: 1 when fitting footprints typically show no misses;
//              medians, so that one flipped verdict near the edge lowers the agreement only;
//   confidence = agreement * contrast, and 0 unless both sides of the edge were scanned.
double edge_confidence(std::span<const ScanPoint> scan, std::uint64_t size_bytes);

// The fitting footprint that the fewest verdicts contradict when taken as the edge (a
// contradiction: a fit above it or a miss at or below it); ties go to the smaller footprint.
// 0 when no verdict fits. A one-change-point fit of a step to the verdicts, robust to the
// isolated flips a non-LRU cache shows near its capacity.
std::uint64_t fewest_contradictions_edge(std::span<const ScanPoint> verdicts);

}  // namespace memtopo
