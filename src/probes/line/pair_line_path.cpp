#include "probes/line/pair_line_path.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "probes/core/chase_builder.hpp"
#include "probes/core/constants.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {
namespace {

// A pair lives in one block of twice the largest line tried, so that o and o XOR d stay inside
// it for every offset d; different pairs never share a block, so never a line.
constexpr std::uint64_t kPairBlockBytes = 2 * kLargestUnitBytes;
// The ladder of pair counts runs from a quarter of the lines the cache would have with the
// largest line tried (random blocks fill the sets unevenly: the first set overflows before the
// cache is full) to twice the lines it would have with lines of one unit, in steps of sqrt(2),
// so that every count N below the top has a point at about 2N to compare with.
constexpr std::uint64_t kLadderLowDivisor = 4;
constexpr std::uint64_t kLadderHighFactor = 2;
// Blocks are drawn from twice as many as the largest count needs, without replacement.
constexpr std::uint64_t kBlocksPerPair = 2;

struct PairPlan {
  std::vector<std::uint64_t> ladder;      // pair counts, ascending
  std::vector<std::uint64_t> offsets;     // d: unit .. kLargestUnitBytes, powers of two
  std::vector<std::uint64_t> pair_bytes;  // per pair: the byte address of word o in its block
  std::uint64_t region_bytes = 0;
};

PairPlan plan_pairs(std::uint64_t size, std::uint64_t unit, std::uint64_t max_pairs,
                    std::uint64_t seed) {
  PairPlan plan;
  const std::uint64_t low =
      std::max<std::uint64_t>(4, size / (kLadderLowDivisor * kLargestUnitBytes));
  const std::uint64_t high = std::max(low, std::min(kLadderHighFactor * size / unit, max_pairs));
  for (int k = 0;; ++k) {
    const auto count =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(low) * std::pow(2.0, k / 2.0)));
    if (count > high) break;
    if (plan.ladder.empty() || count > plan.ladder.back()) plan.ladder.push_back(count);
  }
  for (std::uint64_t d = unit; d <= kLargestUnitBytes; d *= 2) plan.offsets.push_back(d);
  const std::uint64_t pairs = plan.ladder.back();
  const std::uint64_t blocks = kBlocksPerPair * pairs;
  plan.region_bytes = blocks * kPairBlockBytes;
  std::vector<std::uint64_t> block_ids(blocks);
  std::iota(block_ids.begin(), block_ids.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(block_ids.begin(), block_ids.end(), rng);
  std::uniform_int_distribution<std::uint64_t> word_in_block(0, kPairBlockBytes / kWordBytes - 1);
  for (std::uint64_t i = 0; i < pairs; ++i) {
    plan.pair_bytes.push_back(block_ids[i] * kPairBlockBytes + word_in_block(rng) * kWordBytes);
  }
  return plan;
}

// `pairs` pairs at offset `d` (bytes, a power of two; kWordBytes for the reference), visited in
// a seeded random order.
ChaseSpec pair_chase(const LineMeasurement& m, const PairPlan& plan, std::uint64_t pairs,
                     std::uint64_t d, std::uint64_t seed) {
  std::vector<std::uint32_t> words;
  words.reserve(2 * pairs);
  for (std::uint64_t i = 0; i < pairs; ++i) {
    const std::uint64_t a = plan.pair_bytes[i];
    const std::uint64_t block = a - a % kPairBlockBytes;
    const std::uint64_t partner = block + ((a % kPairBlockBytes) ^ d);
    words.push_back(static_cast<std::uint32_t>(a / kWordBytes));
    words.push_back(static_cast<std::uint32_t>(partner / kWordBytes));
  }
  std::mt19937_64 rng(seed);
  std::shuffle(words.begin(), words.end(), rng);
  const std::uint64_t passes =
      words.size() * kTimedPasses <= m.limits().max_timed_loads ? kTimedPasses : 1;
  return make_chase(m.target().path, plan.region_bytes, kWordBytes)
      .visiting(std::move(words))
      .timed_loads(static_cast<std::uint32_t>(
          std::min<std::uint64_t>(2 * pairs * passes, m.limits().max_timed_loads)));
}

// Chases `specs` (one per value of `values`, named `key` in the evidence) and judges each: the
// miss scores in order, and an evidence row per chase.
std::vector<double> miss_scores(LineMeasurement& m, const std::vector<ChaseSpec>& specs,
                                const std::string& phase, const std::string& key,
                                const std::vector<std::uint64_t>& values, nlohmann::json& rows) {
  const std::vector<Trace> traces = m.run_batches(specs, phase);
  std::vector<double> scores;
  rows = nlohmann::json::array();
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const FitVerdict v = m.judge(traces[i]);
    scores.push_back(v.miss_score);
    rows.push_back({{key, values[i]},
                    {"fits", v.fits},
                    {"miss_score", v.miss_score},
                    {"miss_fraction", v.miss_fraction},
                    {"missing", v.missing},
                    {"elements", v.elements}});
  }
  return scores;
}

}  // namespace

std::string pair_path_method() {
  return "pairs of words o and o XOR d in random " + std::to_string(kPairBlockBytes) +
         " B blocks; a ladder of counts of reference pairs (d = " + std::to_string(kWordBytes) +
         " B) in steps of sqrt(2) picks the count N whose double misses most more; N pairs at d = "
         "unit .. " +
         std::to_string(kLargestUnitBytes) +
         " B; line = the first d of the higher of the two runs of miss scores";
}

PairLinePath measure_line_by_pairs(LineMeasurement& m, std::uint64_t size, std::uint64_t unit) {
  PairLinePath out;
  // A chase records at most max_timed_loads loads: two per pair, each timed at least once.
  const PairPlan plan = plan_pairs(size, std::max<std::uint64_t>(unit, kWordBytes),
                                   m.limits().max_timed_loads / 2, m.ctx().seed + size);
  out.evidence = {{"block_bytes", kPairBlockBytes},
                  {"region_bytes", plan.region_bytes},
                  {"reference_offset_bytes", kWordBytes}};
  if (plan.region_bytes > m.limits().max_footprint_bytes) {
    out.inference.note = "the pairs' region (" + std::to_string(plan.region_bytes) +
                         " B) is beyond what the backend chases";
    return out;
  }
  std::vector<ChaseSpec> ladder;
  for (const std::uint64_t pairs : plan.ladder)
    ladder.push_back(pair_chase(m, plan, pairs, kWordBytes, m.ctx().seed + pairs));
  const std::vector<double> ladder_scores =
      miss_scores(m, ladder, "pair_ladder", "pairs", plan.ladder, out.evidence["ladder"]);
  std::vector<PairLadderPoint> points;
  for (std::size_t i = 0; i < plan.ladder.size(); ++i)
    points.push_back({plan.ladder[i], ladder_scores[i]});
  const std::optional<PairCount> count = choose_pair_count(points);
  if (!count) {
    char gap[32];
    std::snprintf(gap, sizeof gap, "%.2g", kMinPairScoreGap);
    out.inference.note = std::string(
                             "no count of reference pairs whose double missed clearly "
                             "more (a miss score gap of ") +
                         gap + "): nothing to tell one line from two by";
    return out;
  }
  out.evidence["pairs_per_offset"] = count->pairs;
  out.evidence["one_line_miss_score"] = count->one_line_score;
  out.evidence["split_miss_score"] = count->split_score;
  out.evidence["split_reference_pairs"] = count->split_pairs;
  std::vector<ChaseSpec> tests;
  for (const std::uint64_t d : plan.offsets)
    tests.push_back(pair_chase(m, plan, count->pairs, d, m.ctx().seed + d));
  const std::vector<double> offset_scores =
      miss_scores(m, tests, "pair_offsets", "offset_bytes", plan.offsets, out.evidence["offsets"]);
  std::vector<PairVerdict> verdicts;
  for (std::size_t i = 0; i < plan.offsets.size(); ++i)
    verdicts.push_back({plan.offsets[i], offset_scores[i]});
  out.inference = infer_line_from_pairs(verdicts);
  return out;
}

}  // namespace memtopo
