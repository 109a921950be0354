// Sets and ways of a TLB level (paper 000, 4.2, Fig. 10-11): its ladder is chased at every
// chain length from the first that misses to the first on which every element misses, and the
// elements that miss on most passes are counted; analysis/set_overflows reads the sets off the
// increments. The ladder's stride is the level's page, so consecutive elements are consecutive
// pages and each new element is one more page in one set.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "analysis/size_rule.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/tlb/tlb_levels.hpp"

namespace memtopo::staircase {
namespace {

// Chain lengths a scan chases at most: a level of about 400 sets or fewer (one length per set
// when they are equal) is read whole; more is reported as a lower bound. The H200's L2 TLB
// (2046 entries of 32 MiB) first missed at 1973 elements (words whose reference was off) and
// lost about 8 more elements per length from 2043 on: 256 lengths stopped 70 short of the end.
constexpr std::size_t kMaxSetScanChases = 512;
// Longer chains chased after the first on which every element missed, each a check that every
// element misses there too: a fully associative level, read off one chain, gets checks enough
// for its confidence (agreement of 9 of 9: 0.91).
constexpr std::size_t kScanConfirmations = 8;
// A scan that has not completed stops when, over this many lengths, its count rose by at most
// one per length while it holds at least kStalledShare of the chain: every set has overflowed but
// a few words are judged hits however long the chain (noise), and longer chains only confirm
// the ramp's end. On the H200 the L2 TLB's ramp ends at 2304 elements and the scan went on to
// 512 lengths past its first miss (2.3 s of the row's 4.4 s).
// (A sim's unequal sets of 68, 50 x 8 and 44 ways hold 88 % missing for 150 lengths before the
// 68-way set fills: the share must be above what one large set leaves out.)
constexpr std::size_t kStallLengths = 64;
constexpr double kStalledShare = 0.98;
// A scan that has not completed by this many times its first miss (and at least kStallLengths
// lengths) stops: sets that fill in turn, one page each, first overflow at sets x the fewest
// ways + 1 and all miss at sets x (the most ways + 1), so to go on past 4 times the first miss
// the largest set would need over 4 times the ways of the smallest (the sims' most unequal,
// 18 and 7 ways, complete at 2.6 times). The H200's L1 TLB (first miss at 15 pages of 16 MiB)
// rose by 0.72 a length for 512 lengths (0.9 s) and gave no reading.
constexpr std::uint64_t kMaxFillRatio = 4;

// Once this many consecutive counts went down or past their chain (noise: the exact reading
// cannot come out clean), the scan steps over lengths: the ramp needs no count at every length.
// On the H200 the L2 TLB's counts went down within the first few lengths in every scan
// (14, 0, 15, 0), and a sim's noiseless counts never do.
constexpr std::size_t kNoisyCounts = 2;
// The step then: about this many lengths per first miss (about kRampLengthsWanted / 8 on the
// ramp of a level of 8 ways), at most kMaxScanStep. The H200's L2 TLB (first miss at 1973,
// a ramp of 256 lengths) steps by 3: 85 counts on its ramp, and the scan takes a third as long.
constexpr std::uint64_t kRampLengthsWanted = 512;
constexpr std::uint64_t kMaxScanStep = 4;

// A level of at least W ways has every element missing by (W + 1) / W times its entries
// (S x (W + 1)): the room an aligned scan needs past its start. Room for 2 ways or more (1.5
// first misses) where the array allows it at some alignment, else for 4 or more, else 8 (an
// H100's 2455 pages of 32 MiB leave no 1.5 x 2049 for its L2 TLB at any alignment).
constexpr std::uint64_t kRoomForWays[] = {2, 4, 8};

// A level whose sets a scan length by length could not finish within kMaxSetScanChases has its
// ramp sampled instead (sample_the_ramp), once this many counts have given its slope.
constexpr std::size_t kCountsBeforeSparse = 8;

// Chases of each block of hit baselines (SetScan::ensure_hit_baselines): each word's median
// rests on this many times the chain's timed passes (3 x 64 for the L1 TLB's 16 pages).
constexpr std::size_t kHitBaselineChases = 3;

// Chases pooled into one count where a chase costs the fewest timed loads anyway (a chain of up
// to kMinTimedLoads / kTimedPasses elements): an element then misses when slow on most of its
// loads over all of them, so one chase in which a word's loads sat a few cycles off cannot move
// it. On the H200 one L1 TLB scan of 13 (at a860e43) counted 16 of 17 and 17 of 18 missing, then
// 19 of 19, and read sets of 15 and 1 ways; the L2 TLB's chains of 2000 elements and more stay
// one chase per length (three would add about a second).
constexpr std::size_t kCheapCountChases = 3;

// The first count at least `span` lengths before the last one (for the stall rule).
std::size_t index_lengths_back(const std::vector<std::uint64_t>& lengths, std::uint64_t span) {
  std::size_t j = lengths.size() - 1;
  while (j > 0 && lengths.back() - lengths[j] < span) --j;
  return j;
}

// Restores a ladder's placement when a scan at another one ends.
class Placement {
 public:
  Placement(Sweep& sweep, std::uint64_t first) : sweep_(sweep) { sweep_.start_at_element(first); }
  ~Placement() { sweep_.start_at_element(0); }
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

 private:
  Sweep& sweep_;
};

// The threshold a scan of level k counts misses above: the step's (the slowest typical answer of
// the plateau before it), or midway between the plateaus where that is lower. The step's lies
// well below the misses of a level whose miss costs many times the noise of one load (an H200's
// L2 TLB: 88 cycles), and 2 cycles below those of one whose miss costs 10 (its L1 TLB, where
// L2 hits spread by 2.7): there a miss crossed it on 4 loads in 5, and a scan undercounted.
double scan_threshold(const Ladder& ladder, std::size_t k) {
  const double midway = 0.5 * (ladder.before(k).mean + ladder.after(k).mean);
  return std::min(ladder.refined[k].threshold_cycles, midway);
}

// One chain's count: elements missing on most passes, and the chain's mean latency.
struct Count {
  std::uint64_t missing = 0;
  double mean_cycles = 0;
  std::uint64_t chain_address = 0;
};

// The scan of one level's sets (scan_sets), step by step.
class SetScan {
 public:
  SetScan(Ladder& ladder, std::size_t k) : ladder_(ladder), k_(k), step_(ladder.refined[k]) {
    threshold_cycles_ = scan_threshold(ladder, k);
    out_.first_miss_elements = step_.first_miss_bytes / ladder.stride();
  }
  LevelSets run();

 private:
  Count count(std::uint64_t elements);
  void ensure_hit_baselines(std::uint64_t elements);
  bool fits(std::uint64_t elements) const {
    return out_.first_element + elements <= ladder_.max_elements;
  }
  std::optional<Count> skip_lengths_without_misses(std::optional<Count> first);
  bool sample_the_ramp(std::uint64_t length_step);
  Count confirm_first_count(const Count& first);
  // Why the scan stops after its latest count (empty: go on).
  std::string stop_reason(std::uint64_t elements) const;
  void read_and_describe(std::size_t unexplained, std::uint64_t length_step);

  Ladder& ladder_;
  std::size_t k_;  // the level scanned: ladder_.refined[k_]
  const RefinedStep& step_;
  double threshold_cycles_ = 0;  // scan_threshold
  LevelSets out_;
  std::optional<std::size_t> complete_at_;  // index into out_.missing of the first all-miss
  nlohmann::json first_checks_;             // confirm_first_overflow's counts
  std::string stepped_because_;             // why the scan stepped over lengths
  std::vector<std::uint64_t> sampled_;      // sample_the_ramp's lengths, when it ran
  // Each word's own latency where it hits the level (ensure_hit_baselines), for the elements
  // [first_element, hits_until_), measured in blocks of hit_block_ elements. Hashed: count()
  // looks up every timed access (an ordered map's lookups were most of its 0.1 s on an H200).
  std::unordered_map<std::uint32_t, double> hits_;
  std::uint64_t hits_until_ = 0;
  std::uint64_t hit_block_ = 1;
  std::size_t hit_chases_ = 0;
  std::uint64_t ladder_first_miss_ = 0;
};

// Hit baselines: each word's latency where the level holds it, from chains of hit_block_
// consecutive pages (a power of two below the ladder's first miss, placed on multiples of it
// from the aligned start: they fit), kHitBaselineChases each, without the ladder's correction.
// The ladder's reference is the longest chain, whose every load walks the page table: the H200's
// L1 TLB scans judged single words about 5 cycles off, half that level's 10-cycle penalty, and
// each such word turned a hit into a miss or a miss into a hit (a lone miss before any set
// overflowed, 16 of 17 missing: tlb_l1 15 at confidence 0.38 in one run of five at 7d0c541).
// A word's hits spread by the L2's noise alone. Chased as the scan reaches new elements.
void SetScan::ensure_hit_baselines(std::uint64_t elements) {
  Sweep& sweep = *ladder_.sweep;
  const std::uint64_t until = std::min(out_.first_element + elements, ladder_.max_elements);
  while (hits_until_ < until) {
    const std::uint64_t block = std::min(hit_block_, ladder_.max_elements - hits_until_);
    sweep.start_at_element(hits_until_);
    const std::vector<std::uint64_t> footprints(kHitBaselineChases,
                                                (hits_until_ + block) * ladder_.stride());
    std::vector<Measured> chases = sweep.measure(footprints, "hit baselines");
    for (Measured& m : chases) {
      for (std::size_t j = 0; j < m.cycles.size(); ++j)
        m.cycles[j] -= sweep.correction(m.indices[j]);
    }
    for (const auto& [word, cycles] : per_word_medians(chases)) hits_[word] = cycles;
    hits_until_ += block;
    hit_chases_ += chases.size();
  }
  sweep.start_at_element(out_.first_element);
}

Count SetScan::count(std::uint64_t elements) {
  ensure_hit_baselines(elements);
  Sweep& sweep = *ladder_.sweep;
  const std::uint64_t footprint = (out_.first_element + elements) * ladder_.stride();
  const std::size_t chases = elements * kTimedPasses <= kMinTimedLoads ? kCheapCountChases : 1;
  Measured m;
  for (Measured& chase : sweep.measure(std::vector<std::uint64_t>(chases, footprint), "sets")) {
    m.cycles.insert(m.cycles.end(), chase.cycles.begin(), chase.cycles.end());
    m.indices.insert(m.indices.end(), chase.indices.begin(), chase.indices.end());
    // The placement was chosen from the first chase's array: every chase must chase that one.
    if (out_.chain_address > 0 && chase.chain_address != out_.chain_address) {
      out_.array_moved = true;
    }
    if (m.chain_address == 0) m.chain_address = chase.chain_address;
  }
  // Each access judged by how far it lies above its word's own hit, put on the plateau before
  // the step (the threshold's scale); a word without a baseline keeps the ladder's correction.
  const double hit_level = ladder_.before(k_).mean;
  std::vector<double> judged = m.cycles;
  for (std::size_t j = 0; j < judged.size(); ++j) {
    const auto hit = hits_.find(m.indices[j]);
    if (hit != hits_.end())
      judged[j] = hit_level + (m.cycles[j] - sweep.correction(m.indices[j])) - hit->second;
  }
  Count c;
  c.missing = elements_slow_on_most_passes(judged, m.indices, threshold_cycles_);
  c.mean_cycles = std::accumulate(m.cycles.begin(), m.cycles.end(), 0.0) /
                  static_cast<double>(std::max<std::size_t>(1, m.cycles.size()));
  c.chain_address = m.chain_address;
  return c;
}

// Chains on which nothing misses say nothing about the sets, and the ladder's first miss can lie
// hundreds of lengths before the first set overflows (on the H200 the L2 TLB first missed at
// 1848-2042 elements and its first set overflowed at 2049): lengths double past them, and a
// bisection finds the last without a miss. The scan then counts from the one after it, as if the
// level had first missed there. Returns that first count (or `first` when it missed already).
std::optional<Count> SetScan::skip_lengths_without_misses(std::optional<Count> first) {
  const std::uint64_t none = out_.first_miss_elements;  // the ladder's first miss
  if (!first) first = count(none);
  if (first->missing > 0) return first;
  std::optional<Count> shortest_missing;
  const auto misses = [&](std::uint64_t length) {
    const Count c = count(length);
    if (c.missing == 0) return false;
    shortest_missing = c;  // the bisection only ever shortens it
    return true;
  };
  const std::optional<std::uint64_t> found =
      first_length_missing(none, ladder_.max_elements - out_.first_element, misses);
  // Nothing missed up to the longest chain: the scan starts there and stops at once.
  out_.first_miss_elements = found.value_or(ladder_.max_elements - out_.first_element);
  if (!found) return std::nullopt;
  return shortest_missing;
}

// The first count again (confirm_first_overflow): the scan starts at the length it confirms,
// with a chase whose count is that length's median.
Count SetScan::confirm_first_count(const Count& first) {
  std::vector<std::pair<std::uint64_t, Count>> chased;  // (elements, count) of every chase
  chased.emplace_back(out_.first_miss_elements, first);
  const FirstOverflow confirmed =
      confirm_first_overflow(out_.first_miss_elements, first.missing, [&](std::uint64_t length) {
        chased.emplace_back(length, count(length));
        return chased.back().second.missing;
      });
  first_checks_ = confirmed.checks;
  out_.first_miss_elements = confirmed.elements;
  for (const auto& [length, c] : chased) {
    if (length == confirmed.elements && c.missing == confirmed.missing) return c;
  }
  return first;  // unreachable: the median is one of the chases
}

std::string SetScan::stop_reason(std::uint64_t elements) const {
  if (complete_at_) return {};
  const std::uint64_t scanned = elements - out_.first_miss_elements;
  if (scanned >= kStallLengths && elements >= kMaxFillRatio * out_.first_miss_elements) {
    return "stopped at " + std::to_string(elements) + " elements, " +
           std::to_string(kMaxFillRatio) +
           " times the first miss, short of every element missing: not sets that fill in turn "
           "(those would have completed)";
  }
  if (scanned > kStallLengths) {
    const std::size_t then_at = index_lengths_back(out_.lengths, kStallLengths);
    const std::uint64_t now = out_.missing.back();
    const std::uint64_t then = out_.missing[then_at];
    if (now <= then + (elements - out_.lengths[then_at]) &&
        static_cast<double>(now) >= kStalledShare * static_cast<double>(elements)) {
      return "stopped at " + std::to_string(elements) +
             " elements: the count rose by at most one per element over the last " +
             std::to_string(kStallLengths) + " lengths (no set overflowed at once)";
    }
  }
  return {};
}

// A level of more sets than a scan length by length can reach (the counts rise by W + 1 per
// element for S = E / W lengths; a simulated 16384 entries of 16 ways took 278 chases of 16385
// elements and more, 6.7 s): its ramp is sampled at kSparseRampPoints lengths and checked at
// kSparseTailPoints past its predicted end (sparse_ramp_lengths), and read off the ramp. The
// slope so far is the median of the counts' increments. False (scan on) when the scan would
// finish anyway, as on the H200's L2 TLB (256 sets, 64 lengths at a step of 4).
bool SetScan::sample_the_ramp(std::uint64_t length_step) {
  std::vector<double> slopes;
  for (std::size_t i = 1; i < out_.missing.size(); ++i) {
    slopes.push_back((static_cast<double>(out_.missing[i]) - static_cast<double>(out_.missing[i - 1])) /
                     static_cast<double>(out_.lengths[i] - out_.lengths[i - 1]));
  }
  const double slope = slopes.empty() ? 0 : median(slopes);
  const double ways = std::round(slope - 1);
  if (ways < 1) return false;
  const double sets = static_cast<double>(out_.first_miss_elements - 1) / ways;
  const double lengths_left = sets / static_cast<double>(length_step) + kScanConfirmations;
  if (static_cast<double>(out_.missing.size()) + lengths_left <= kMaxSetScanChases) return false;
  sampled_ = sparse_ramp_lengths(out_.first_miss_elements, slope,
                                 ladder_.max_elements - out_.first_element);
  for (const std::uint64_t n : sampled_) {
    if (n <= out_.lengths.back()) continue;
    const Count c = count(n);
    out_.lengths.push_back(n);
    out_.missing.push_back(c.missing);
    out_.mean_cycles.push_back(c.mean_cycles);
  }
  return !sampled_.empty();
}

LevelSets SetScan::run() {
  ladder_first_miss_ = out_.first_miss_elements;
  hit_block_ = 1;
  while (2 * hit_block_ < ladder_first_miss_) hit_block_ *= 2;  // at most first miss - 1
  // Where the array lies now (the ladder's may have been freed and allocated again since): one
  // chase, not counted (the hit baselines start at the placement it decides).
  const std::uint64_t first_footprint = out_.first_miss_elements * ladder_.stride();
  out_.chain_address =
      ladder_.sweep->measure(std::span(&first_footprint, 1), "sets").front().chain_address;
  const AlignedScanStart start = aligned_first_element(ladder_, k_, out_.chain_address);
  const Placement placement(*ladder_.sweep, start.first_element);
  out_.first_element = start.first_element;
  out_.aligned_for_ways = start.room_for_ways;
  hits_until_ = start.first_element;
  std::optional<Count> pending = skip_lengths_without_misses(std::nullopt);
  if (pending) pending = confirm_first_count(*pending);

  const std::uint64_t noisy_step =
      std::clamp<std::uint64_t>(out_.first_miss_elements / kRampLengthsWanted, 1, kMaxScanStep);
  std::uint64_t length_step = 1;
  std::size_t unexplained = 0;
  std::uint64_t most_ways = 0;  // of the sets read off the consecutive counts so far
  for (std::uint64_t elements = out_.first_miss_elements;; elements += length_step) {
    if (complete_at_ && out_.missing.size() > *complete_at_ + kScanConfirmations) break;
    if (complete_at_ && !fits(elements)) break;  // confirmed as far as possible
    if (out_.missing.size() >= kMaxSetScanChases) {
      out_.stopped = "stopped after " + std::to_string(kMaxSetScanChases) + " chain lengths";
      break;
    }
    if (!fits(elements)) {
      out_.stopped = "stopped at the longest chain the ladder allows (" +
                     std::to_string(ladder_.max_elements - start.first_element) +
                     " elements from element " + std::to_string(start.first_element) + ")";
      break;
    }
    const Count c = pending ? *std::exchange(pending, std::nullopt) : count(elements);
    const std::uint64_t before = out_.missing.empty() ? 0 : out_.missing.back();
    if (length_step == 1 && !out_.missing.empty() && (c.missing < before || c.missing > elements)) {
      ++unexplained;
    }
    // Sets that fill evenly overflow in the order of their ways, fewest first: a set of fewer
    // ways after one of more means counts that are not the sets' (on the H200's L2 TLB the first
    // overflow adds 25 and every later one 9, the exact reading is then rejected by
    // overflows_fit_even_fill), and counting every length past it only confirms the ramp.
    bool descending = false;
    if (length_step == 1 && c.missing >= before + 2 && c.missing <= elements) {
      const std::uint64_t ways = c.missing - before - 1;
      descending = ways < most_ways;
      most_ways = std::max(most_ways, ways);
    }
    out_.lengths.push_back(elements);
    out_.missing.push_back(c.missing);
    out_.mean_cycles.push_back(c.mean_cycles);
    if (length_step == 1) out_.consecutive = out_.missing.size();
    if (length_step == 1 && !complete_at_ && (unexplained >= kNoisyCounts || descending)) {
      length_step = noisy_step;
      stepped_because_ = descending ? "a set overflowed with fewer ways than one before it"
                                    : "counts went down or past the chain";
    }
    if (!complete_at_ && c.missing >= elements) complete_at_ = out_.missing.size() - 1;
    out_.stopped = stop_reason(elements);
    if (!out_.stopped.empty()) break;
    if (!complete_at_ && out_.missing.size() == kCountsBeforeSparse && sample_the_ramp(length_step)) {
      break;
    }
  }
  read_and_describe(unexplained, length_step);
  return std::move(out_);
}

void SetScan::read_and_describe(std::size_t unexplained, std::uint64_t length_step) {
  LevelSets& out = out_;
  // The exact reading needs a count at every length: the counts before the scan stepped.
  out.sets =
      sets_from_overflows(out.first_miss_elements, std::span(out.missing.data(), out.consecutive));
  if (out.stopped.empty() && !out.sets.complete) {
    out.stopped = out.consecutive < out.missing.size()
                      ? "the counts never reached the chain at consecutive lengths"
                      : "the counts never reached the chain";
  }
  out.ramp = equal_sets_from_ramp(std::span<const std::uint64_t>(out.lengths), out.missing);
  out.evidence = {{"first_miss_elements", out.first_miss_elements},
                  {"missing_per_length", out.missing},
                  {"threshold_cycles", threshold_cycles_},
                  {"step_threshold_cycles", step_.threshold_cycles},
                  {"missing_rule",
                   "slow (above threshold_cycles) on more than half of its timed "
                   "loads; on both of two"},
                  {"sets_in_overflow_order", out.sets.ways},
                  {"complete", out.sets.complete},
                  {"all_missing_elements", out.sets.all_missing_elements},
                  {"steps_explained", out.sets.consistent},
                  {"steps", out.sets.steps}};
  if (!first_checks_.is_null()) out.evidence["first_count_checks"] = first_checks_;
  out.evidence["hit_baselines"] = {
      {"block_elements", hit_block_},
      {"chases", hit_chases_},
      {"words", hits_.size()},
      {"rule",
       "each access judged by its latency minus its word's median over chains of "
       "block_elements pages that the level holds, plus the plateau before the step"}};
  if (out.first_miss_elements != ladder_first_miss_) {
    out.evidence["ladder_first_miss_elements"] = ladder_first_miss_;
  }
  if (out.consecutive < out.missing.size()) {
    // Counts that went down or past the chain, or sets that overflowed out of the order of their
    // ways: the exact reading cannot be clean, so the scan steps over lengths for the ramp,
    // which needs no count at every length.
    out.evidence["chain_lengths"] = out.lengths;
    out.evidence["stepped_after_lengths"] = out.consecutive;
    out.evidence["length_step"] = length_step;
    out.evidence["unexplained_counts_before_stepping"] = unexplained;
    out.evidence["stepped_because"] = stepped_because_;
  }
  if (!sampled_.empty()) {
    out.evidence["chain_lengths"] = out.lengths;
    out.evidence["sampled_ramp_lengths"] = sampled_;
    out.evidence["sampled_because"] =
        "more sets than a scan length by length reaches within " +
        std::to_string(kMaxSetScanChases) + " chain lengths";
  }
  if (out.first_element > 0) out.evidence["first_element"] = out.first_element;
  if (out.chain_address > 0) {
    // 0: no aligned start left room for the scan (the array is too short), it starts at page 0.
    out.evidence["aligned_with_room_for_ways"] = out.aligned_for_ways;
  }
  if (out.chain_address > 0) {
    // Where the array lies in the device's address space, in pages of the stride: a set index
    // hashed from address bits fills in another order from another start.
    out.evidence["chain_address"] = out.chain_address;
    out.evidence["chain_start_page"] = out.chain_address / ladder_.stride() + out.first_element;
    if (out.array_moved) out.evidence["array_moved_during_scan"] = true;
  }
  if (!out.stopped.empty()) out.evidence["stopped"] = out.stopped;
  out.evidence["ramp"] = out.ramp.evidence();
  out.evidence["distinct_ways"] = out.distinct_ways();
  out.evidence["fits_even_fill"] = overflows_fit_even_fill(out.sets);
  out.evidence["in_fill_order"] = overflows_in_fill_order(out.sets);
  out.evidence["reading"] = out.exact() ? "exact" : out.from_ramp() ? "ramp" : "none";
}

}  // namespace

AlignedScanStart aligned_first_element(const Ladder& ladder, std::size_t k,
                                       std::uint64_t chain_address) {
  const std::uint64_t first_miss = ladder.refined[k].first_miss_bytes / ladder.stride();
  for (const std::uint64_t ways : kRoomForWays) {
    if (const auto first = aligned_start(chain_address / ladder.stride(), first_miss,
                                         first_miss + first_miss / ways, ladder.max_elements)) {
      return {*first, ways};
    }
  }
  return {};
}

LevelSets scan_sets(Ladder& ladder, std::size_t k) {
  return SetScan(ladder, k).run();
}

}  // namespace memtopo::staircase
