// The page of a TLB level: pairs of an element and its twin `s` bytes further, chased once with
// every twin right after its element ("together") and once with all elements first and all
// twins after them ("apart"). Apart, every twin misses the level (the chain of elements alone
// already overflows it). Together, a twin in its element's page finds the entry its element
// just brought in: it is faster by the level's miss penalty. The page is the smallest stride at
// which the twins no longer gain: the smallest stride that still misses (paper 000, 4.2).
//
// Each twin is judged against itself (together minus apart, same word, same L2 line), so what
// is fixed per address (a near or a far L2 partition) cancels, and the placement of the
// elements in the level's sets does not matter: the chain of elements overflows it either way.
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/reduction.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "model/units.hpp"
#include "probes/tlb/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Mixes the seed with an element's number for its place inside its slot (the golden ratio's
// 64-bit fraction: consecutive elements get unrelated places).
constexpr std::uint64_t kPairSeedMultiplier = 0x9E3779B97F4A7C15ull;
// Pairs per test: this many times the last chain of the plateau after the level's step: a
// set-associative level overflows gradually on a ladder whose elements lie at random pages of
// their stride, so that the chain of elements alone must go well past the step to overflow
// every set (apart, every twin must miss the level).
constexpr std::uint64_t kOverflowMargin = 4;
// At 4 KiB, below any page, twins share their element's entry wherever the chain of elements
// overflowed the level apart: at least this share of the pairs must, or the chain did not
// overflow it (a set-associative level on the random pages of a ladder that ends where it only
// starts to overflow: a simulated 2048 x 2 MiB level, 8 ways, on 1992 elements 16 MiB apart
// shared 50 % at 4 KiB and 48 % at 1 MiB, and a majority rule read a 1 MiB page at 0.52). The
// H200's tests share 96-100 % there. A stride's pairs then share an entry when at least half
// as many share as at 4 KiB.
constexpr double kMinSharedBelowAnyPage = 0.75;
// A test with fewer pairs (search_page) has at least the level's first miss plus this share of
// it (1 / kFewerPairsMargin) past it: on the H200 2155 pairs 64 MiB apart fitted and the L2
// TLB first missed at 2030, 1/16 past it asked for 2156.
constexpr std::uint64_t kFewerPairsMargin = 32;

// The pairs of level k's test: kOverflowMargin past its plateau, but short of the next level's
// first miss (apart, twins that also missed the next level would gain on a shared entry of the
// next level's larger page) and of the ladder's longest chain; and, while they still overflow
// the level, few enough that the ladder's own stride (slots of twice it) fits the memory.
std::uint64_t pairs_for(const Ladder& ladder, std::size_t k, std::uint64_t footprint_limit) {
  std::uint64_t pairs =
      std::min(ladder.max_elements, kOverflowMargin * ladder.all_missing_elements(k));
  if (k + 1 < ladder.refined.size()) {
    const std::uint64_t next_first_miss = ladder.refined[k + 1].first_miss_bytes / ladder.stride();
    pairs = std::min(pairs, std::max(ladder.all_missing_elements(k), next_first_miss - 1));
  }
  const std::uint64_t fitting = footprint_limit / (2 * ladder.stride());
  const std::uint64_t overflowing = ladder.after(k).from_bytes / ladder.stride();
  return std::min(pairs, std::max(overflowing, fitting));
}

// The elements and twins of one stride.
struct Pairs {
  std::uint64_t stride = 0;             // element to twin, bytes
  std::uint64_t slot = 0;               // element i lies in slot i
  std::vector<std::uint64_t> elements;  // word index of element i (even: 64-bit elements)
  std::vector<std::uint64_t> twins;     // element i's word + stride / 4
  std::uint64_t footprint() const { return elements.size() * slot; }
};

// Element i at slot i, at 2s x m + r (m below slot / 2s, r below s, both seeded): its twin s
// further lies in the same aligned 2s block, hence in the element's page whenever the page is
// larger than s, and in the next page whenever it is not. The seeded places spread the lines
// over the L2 sets.
Pairs make_pairs(std::uint64_t count, std::uint64_t slot, std::uint64_t stride,
                 std::uint64_t seed) {
  Pairs pairs{stride, slot, {}, {}};
  const std::uint64_t blocks = slot / (2 * stride);
  for (std::uint64_t i = 0; i < count; ++i) {
    SplitMix64 rng(seed * kPairSeedMultiplier + i);
    const std::uint64_t block = rng.below(blocks);
    const std::uint64_t word_in_block = 2 * rng.below(stride / 8);  // an even word below s
    const std::uint64_t word = (i * slot + block * 2 * stride) / 4 + word_in_block;
    pairs.elements.push_back(word);
    pairs.twins.push_back(word + stride / 4);
  }
  return pairs;
}

// The two orders, over the same seeded permutation of the pairs.
std::vector<std::uint64_t> order(const Pairs& pairs, bool together, std::uint64_t seed) {
  std::vector<std::size_t> permutation(pairs.elements.size());
  std::iota(permutation.begin(), permutation.end(), std::size_t{0});
  SplitMix64 rng(seed);
  for (std::size_t i = permutation.size() - 1; i > 0; --i) {
    std::swap(permutation[i], permutation[rng.below(i + 1)]);
  }
  std::vector<std::uint64_t> words;
  for (const std::size_t i : permutation) {
    words.push_back(pairs.elements[i]);
    if (together) words.push_back(pairs.twins[i]);
  }
  if (!together) {
    for (const std::size_t i : permutation) words.push_back(pairs.twins[i]);
  }
  return words;
}

// Median cycles per word of a chase's timed loads.
// Sorted by word (a flat table: its lookups were a sixth of a simulated TLB row as a std::map).
class WordMedians {
 public:
  explicit WordMedians(const Trace& trace) {
    const std::vector<double> cycles = corrected_cycles(trace);
    std::vector<std::pair<std::uint64_t, double>> samples;
    for (std::size_t i = 0; i < cycles.size(); ++i) {
      samples.emplace_back(trace.wide_indices[i], cycles[i]);
    }
    // Stable: each word's samples stay in the order they were taken, as the map kept them.
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> values;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      values.push_back(samples[i].second);
      if (i + 1 == samples.size() || samples[i + 1].first != samples[i].first) {
        medians_.emplace_back(samples[i].first, median(values));
        values.clear();
      }
    }
  }
  // The median of `word`'s samples, if it has any.
  std::optional<double> at(std::uint64_t word) const {
    const auto found = std::lower_bound(
        medians_.begin(), medians_.end(), word,
        [](const std::pair<std::uint64_t, double>& entry, std::uint64_t w) { return entry.first < w; });
    if (found == medians_.end() || found->first != word) return std::nullopt;
    return found->second;
  }

 private:
  std::vector<std::pair<std::uint64_t, double>> medians_;
};

struct StrideVerdict {
  bool shared = false;  // most twins gained: element and twin share an entry
  // Apart, the twins missed the level (their mean at least midway up its step): a test with
  // fewer pairs than the level's plateau needs this to mean anything (see search_page).
  bool overflowed = true;
  std::size_t shared_pairs = 0;
  std::size_t pairs = 0;
  std::size_t missed_apart = 0;  // twins above the level's step midway apart
  std::size_t agreeing() const { return shared ? shared_pairs : pairs - shared_pairs; }
  double shared_share() const {
    return pairs == 0 ? 0 : static_cast<double>(shared_pairs) / static_cast<double>(pairs);
  }
};

class PageSearch {
 public:
  PageSearch(ProbeContext& ctx, const StaircaseRow& row, const Ladder& ladder, std::size_t k,
             std::uint64_t footprint_limit, std::uint64_t seed)
      : ctx_(ctx),
        seed_(seed),
        row_(row),
        ladder_(ladder),
        k_(k),
        count_(pairs_for(ladder, k, footprint_limit)),
        // Midway between a twin that misses (no gain) and one that hits (gains the penalty).
        threshold_(-0.5 * ladder.penalty(k)),
        midway_(0.5 * (ladder.before(k).mean + ladder.after(k).mean)) {}

  // `count` pairs `stride` apart (the test's own count unless given fewer).
  StrideVerdict test(std::uint64_t stride, PageTest& result, std::uint64_t count = 0) {
    if (count == 0) count = count_;
    const Pairs pairs = make_pairs(count, slot_for(stride), stride, seed_);
    const std::uint32_t timed = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(kTimedPasses * 2 * count, ctx_.backend.limits().max_timed_loads));
    std::vector<ChaseSpec> chases;
    for (const bool together : {true, false}) {
      chases.push_back(
          make_chase(row_.path, pairs.footprint(), static_cast<std::uint32_t>(pairs.slot))
              .on_sm(ladder_.sweep->layout().sm)
              .visiting_wide(order(pairs, together, seed_))
              .timed_loads(timed)
              .keeping_arrays());
    }
    ctx_.progress(row_.id + ": page test at " + format_bytes(static_cast<double>(stride)));
    std::optional<WordMedians> together;
    std::optional<WordMedians> apart;
    for (std::size_t i = 0; i < chases.size(); ++i) {
      const std::vector<Trace> trace = ctx_.run(std::span(&chases[i], 1), row_.id + "/page");
      (i == 0 ? together : apart).emplace(trace.front());
      loads_ += loads_of(chases[i]);
    }
    StrideVerdict verdict;
    std::vector<double> gains;
    std::vector<double> apart_twins;
    for (const std::uint64_t twin : pairs.twins) {
      const std::optional<double> twin_together = together->at(twin);
      const std::optional<double> twin_apart = apart->at(twin);
      if (!twin_together || !twin_apart) continue;
      gains.push_back(*twin_together - *twin_apart);
      apart_twins.push_back(*twin_apart);
      verdict.shared_pairs += gains.back() < threshold_ ? 1 : 0;
      verdict.missed_apart += *twin_apart >= midway_ ? 1 : 0;
      ++verdict.pairs;
    }
    // Most pairs, or (once the smallest stride was tested) half as many as shared there.
    verdict.shared = sharing_below_any_page_ > 0
                         ? verdict.shared_share() >= 0.5 * sharing_below_any_page_
                         : 2 * verdict.shared_pairs > verdict.pairs;
    const double apart_mean = apart_twins.empty() ? 0.0 : mean_of(apart_twins);
    verdict.overflowed = apart_mean >= midway_;
    result.evidence.push_back({{"stride_bytes", stride},
                               {"slot_bytes", pairs.slot},
                               {"pairs", verdict.pairs},
                               {"pairs_sharing_an_entry", verdict.shared_pairs},
                               {"median_twin_gain_cycles", gains.empty() ? 0.0 : -median(gains)},
                               {"gain_threshold_cycles", -threshold_},
                               {"apart_twins_mean_cycles", apart_mean},
                               {"level_step_midway_cycles", midway_},
                               {"apart_twins_missed", verdict.overflowed},
                               {"shares_an_entry", verdict.shared}});
    return verdict;
  }

  // Element i's slot: the ladder's stride, or twice the pair's stride when that is larger.
  std::uint64_t slot_for(std::uint64_t stride) const {
    return std::max<std::uint64_t>(ladder_.stride(), 2 * stride);
  }
  // The fewest pairs that can overflow the level apart: its first miss on the ladder.
  std::uint64_t fewest() const { return ladder_.refined[k_].first_miss_bytes / ladder_.stride(); }
  // Where every element misses the level on the ladder: its plateau after the step begins.
  std::uint64_t overflowing() const { return ladder_.after(k_).from_bytes / ladder_.stride(); }

  std::uint64_t count() const { return count_; }
  void set_sharing_below_any_page(double share) { sharing_below_any_page_ = share; }
  std::uint64_t loads() const { return loads_; }

 private:
  ProbeContext& ctx_;
  std::uint64_t seed_;
  const StaircaseRow& row_;
  const Ladder& ladder_;
  std::size_t k_;
  std::uint64_t count_;
  double threshold_;
  double midway_;
  double sharing_below_any_page_ = 0;  // shared share at the smallest stride, once tested
  std::uint64_t loads_ = 0;
};

}  // namespace

namespace {

// `top` (the verdict at strides.back()) found no shared entry: the smallest stride, then a
// bisection between a stride whose twins shared and one whose twins did not.
PageTest bisect(PageSearch& search, const std::vector<std::uint64_t>& strides,
                const StrideVerdict& top, PageTest& result) {
  const StrideVerdict bottom = search.test(strides.front(), result);
  const double below_any_page = bottom.shared_share();
  if (strides.front() == kSmallestPageBytes && below_any_page < kMinSharedBelowAnyPage) {
    result.unknown = "at 4 KiB, below any page, only " + format_number(100 * below_any_page, 0) +
                     " % of the twins found their element's entry: the chain of elements did not "
                     "overflow the level for the others, and the test cannot tell the page";
    return result;
  }
  search.set_sharing_below_any_page(below_any_page);
  if (!bottom.shared) {
    result.bytes = strides.front();
    result.bound = Bound::upper;
    return result;
  }
  std::size_t shared = 0;
  std::size_t missing = strides.size() - 1;
  StrideVerdict at_shared = bottom;
  StrideVerdict at_missing = top;
  while (missing - shared > 1) {
    const std::size_t middle = (shared + missing) / 2;
    const StrideVerdict verdict = search.test(strides[middle], result);
    (verdict.shared ? shared : missing) = middle;
    (verdict.shared ? at_shared : at_missing) = verdict;
  }
  result.bytes = strides[missing];
  result.agreeing = at_shared.agreeing() + at_missing.agreeing();
  result.pairs = at_shared.pairs + at_missing.pairs;
  return result;
}

PageTest search_page(PageSearch& search, const Ladder& ladder, std::uint64_t footprint_limit) {
  PageTest result;
  // Strides 4 KiB x 2^e up to the ladder's; the ladder's own needs slots of twice it.
  std::vector<std::uint64_t> strides;
  for (std::uint64_t s = kSmallestPageBytes; s <= ladder.stride(); s *= 2) {
    if (search.count() * search.slot_for(s) <= footprint_limit) strides.push_back(s);
  }
  if (search.count() == 0) {
    result.bytes = ladder.stride();
    result.bound = Bound::lower;
    return result;
  }
  // The next stride up with fewer pairs, as many as fit, when that still reaches past the
  // level's first miss by kFewerPairsMargin (on the H200 the 32 MiB-page L2 TLB steps at 2046
  // elements 32 MiB apart, its plateau starts at 2896, and 2190 pairs 64 MiB apart fit): it
  // counts only if the twins missed apart, else the page stays a lower bound.
  const std::uint64_t next = strides.empty() ? kSmallestPageBytes : 2 * strides.back();
  const std::uint64_t fitting = footprint_limit / search.slot_for(next);
  if (next <= ladder.stride() && fitting < search.count() &&
      fitting >= search.fewest() + search.fewest() / kFewerPairsMargin) {
    const StrideVerdict fewer = search.test(next, result, fitting);
    if (fewer.overflowed && !fewer.shared) {
      strides.push_back(next);
      if (strides.size() == 1) {
        result.bytes = next;
        result.bound = Bound::upper;
        return result;
      }
      return bisect(search, strides, fewer, result);
    }
    if (fewer.overflowed && fewer.shared) {
      result.bytes = 2 * next;
      result.bound = Bound::lower;
      return result;
    }
  }
  // Fewer pairs still, between half the level's overflow and its first miss: apart, twins in
  // pages of their own make 2N pages, past the level's plateau start, and miss; twins sharing
  // their element's page make N pages, fewer than its first miss, and hit (the plateau start is
  // a footprint of the ladder's grid, at or past where every element misses: no margin on it).
  // Only a miss is conclusive (a hit may be a plateau that was not all misses). So the twins'
  // apart mean tells the page alone (missed: at most `next`; hit: larger). A simulated
  // device's 2048 entries of 32 MiB on a 96 GiB chase limit fit 1536 pairs 32 MiB apart, of the
  // 2049 the plain test needs: the page was "> 32 MiB"; the H100's 73.6 GiB fits 1177 of 2049.
  if (next <= ladder.stride() && fitting < search.fewest() &&
      2 * fitting >= search.overflowing()) {
    const StrideVerdict half = search.test(next, result, fitting);
    result.evidence.back()["rule"] =
        "fewer pairs than the level's first miss: apart twins that missed lie in pages of their "
        "own (2N pages overflow the level), twins that hit share their element's (N fit)";
    if (half.overflowed) {
      strides.push_back(next);
      if (strides.size() == 1) {
        result.bytes = next;
        result.bound = Bound::upper;
        return result;
      }
      StrideVerdict top = half;
      top.shared = false;
      top.shared_pairs = half.pairs - half.missed_apart;
      return bisect(search, strides, top, result);
    }
    // The apart twins hit: either they share their element's page, or 2N pages do not overflow
    // the level after all (the ladder's plateau start was a partial overflow at its end: a
    // simulated 4096 x 2 MiB level on 3024 elements 8 MiB apart read "at least 16 MiB").
    // Only a miss tells, so no page.
    result.unknown = "with " + std::to_string(fitting) +
                     " pairs (fewer than the level's first miss) the apart twins hit: they share "
                     "their element's page, or the level holds 2N pages; the test cannot tell";
    return result;
  }
  if (strides.empty()) {
    result.bytes = ladder.stride();
    result.bound = Bound::lower;
    return result;
  }
  // Twins share an entry below the page and miss from it on: a bisection for the first miss.
  const StrideVerdict top = search.test(strides.back(), result);
  if (top.shared) {
    result.bytes = 2 * strides.back();
    result.bound = Bound::lower;
    return result;
  }
  return bisect(search, strides, top, result);
}

}  // namespace

PageTest find_page(ProbeContext& ctx, const StaircaseRow& row, const Ladder& ladder, std::size_t k,
                   std::uint64_t footprint_limit, std::uint64_t attempt) {
  PageSearch search(ctx, row, ladder, k, footprint_limit, ctx.seed + attempt * kPairSeedMultiplier);
  PageTest result = search_page(search, ladder, footprint_limit);
  result.loads = search.loads();
  return result;
}

}  // namespace memtopo::staircase
