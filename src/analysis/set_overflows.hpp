#pragma once
// Sets and ways of an LRU array (a TLB level) from how many elements miss as a cyclic chain over
// consecutive pages grows one page at a time (paper 000, 4.2 and Fig. 11: "N = 132 MB causes 17
// missed entries at once and varying N from 134 MB to 144 MB causes 8 more missed entries each
// time").
//
// Under LRU a cyclic chain misses on every page of a set that holds more pages than ways, on
// every pass, and on no page of any other set. Adding one page to the chain puts it into one set:
// if that set held exactly its ways, all of its pages start missing at once (ways + 1 more
// misses); if it already overflowed, one more miss; otherwise none. So the increments of the
// miss count, from the first chain that misses to the first where every page misses, name every
// set once by its ways + 1, whatever maps pages to sets (modulo, bits, a hash) and whether the
// sets are equal. Pure functions of numbers.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

struct SetsFromOverflows {
  // The scan reached a chain on which every element missed: every set has overflowed once.
  bool complete = false;
  std::vector<std::uint64_t> ways;           // per set, in the order the sets overflowed
  std::vector<std::uint64_t> overflowed_at;  // the chain length at which each of them did
  std::uint64_t entries = 0;                 // sum of `ways` (all sets when complete)
  std::uint64_t all_missing_elements = 0;    // the first chain length on which every element missed
  std::size_t steps = 0;                     // increments read
  std::size_t consistent = 0;  // of those, increments the model explains: 0, 1 or ways + 1 >= 2
};

// `missing[i]`: the elements that missed (on most passes) on a chain of `first_elements` + i
// elements, each one page further; the chain one shorter than the first missed on none. The sets
// are read up to the first chain on which every element missed; counts after it confirm (every
// element missed again) or contradict. A negative increment, more missing elements than the
// chain has, or a single miss more before any set overflowed, is inconsistent (noise, or not
// LRU). A first overflow on which every element misses is one set of elements - 1 ways.
SetsFromOverflows sets_from_overflows(std::uint64_t first_elements,
                                      std::span<const std::uint64_t> missing);

// Equal sets read off the ramp of the miss counts when the counts are noisy, so that the exact
// reading above never sees every element miss (on an H200 about 20 of 2300 words of the L2
// TLB's ladder were judged hits however long the chain, and a few missed before the level
// overflowed). With S sets of W ways filled by consecutive pages, the count is 0 up to E = S x W
// elements, then rises by W + 1 per element until every element misses at E + S. A straight
// line through the counts between kRampLow and kRampHigh of the chain gives W + 1 (its slope),
// E (where it leaves 0) and E + S (where it meets the chain); sets = (2E + S) / (2W + 1),
// rounded (the onset and the end together: a slightly tilted line moves them apart). Unequal
// sets, a hashed index that fills sets unevenly, or a policy other than LRU bend or flatten
// the ramp: the fit then fails its checks (slope below 1.5 or more than 0.25 from a whole
// number, the scan ending before the line meets the chain), and `why` says which.
struct RampFit {
  bool found = false;
  std::string why;         // when not found
  bool uneven = false;     // a ramp, but not whole ways + 1 or not straight (R^2 < 0.999)
  double slope = 0;        // misses added per element on the ramp: W + 1
  double onset = 0;        // elements where the line leaves 0: E
  double end = 0;          // elements where the line meets the chain: E + S
  double explained = 0;    // R^2 of the line over the ramp's counts
  std::size_t points = 0;  // chain lengths on the ramp
  std::uint64_t ways = 0;  // round(slope - 1)
  std::uint64_t sets = 0;  // round((onset + end) / (2 ways + 1))
  std::uint64_t entries() const { return ways * sets; }
  nlohmann::json evidence() const;
};

inline constexpr double kRampLow = 0.1;
inline constexpr double kRampHigh = 0.9;

RampFit equal_sets_from_ramp(std::uint64_t first_elements, std::span<const std::uint64_t> missing);
// The same fit over counts of any chain lengths (ascending; a scan that steps over lengths).
RampFit equal_sets_from_ramp(std::span<const std::uint64_t> lengths,
                             std::span<const std::uint64_t> missing);

// Chain lengths that sample the ramp of a level too large to scan length by length: with its
// first miss at `first_miss` (E + 1) and a count rising by `slope` (W + 1) per element there,
// equal sets would number S = E / W and every element would miss from E + S on. The lengths:
// kSparseRampPoints evenly from 12 % to 80 % of the way from E to E + S (all between kRampLow
// and kRampHigh of their chain), then kSparseTailPoints past E + S, up to `longest`. Empty when the slope gives no
// whole way (below 1.5). equal_sets_from_ramp reads them as it reads a full scan; a level whose
// sets are not equal bends them, and the fit says so.
inline constexpr std::size_t kSparseRampPoints = 10;
inline constexpr std::size_t kSparseTailPoints = 5;
std::vector<std::uint64_t> sparse_ramp_lengths(std::uint64_t first_miss, double slope,
                                               std::uint64_t longest);

// Where a scan of sets should start on an array whose first element lies on page `start_page`
// (pages of the scan's stride): the offset, in elements, to the array's first page that is a
// multiple of the largest power of two up to `first_miss_elements` for which the scan still has
// `needed_elements` in the array's `max_elements`; nullopt when no block of 2 pages or more
// leaves that room; 0 when there is nothing to align (`start_page` 0: unknown; a first miss
// below 2). A set index of S sets that is a bijection on every S-aligned block of pages (modulo,
// or the low bits XORed with higher ones) puts consecutive pages from such a start into the sets
// in turn, each once per block; from elsewhere the partial first block and the last can put two
// pages into one set before another has its first. S is at most the first miss, so a block of
// the largest power of two up to it holds whole blocks of S (S a power of two).
std::optional<std::uint64_t> aligned_start(std::uint64_t start_page,
                                           std::uint64_t first_miss_elements,
                                           std::uint64_t needed_elements,
                                           std::uint64_t max_elements);

// Whether sets that fill evenly could have overflowed as `sets` read: with S sets filled in
// turn by consecutive pages, a chain of n elements puts at most ceil(n / S) pages into any set,
// so a set that overflows at n holds ways + 1 <= ceil(n / S) pages. A straight ramp (RampFit
// found) shows the sets fill evenly; an exact reading that breaks this bound then counted
// misses that are not its sets' (on the H200 the L2 TLB's count jumps by 25 at its first
// overflow, 16 more than a set of 8 ways gives, then rises by 9 per element: read as counted,
// a first set of 24 ways overflowing at 2049 elements, where 254 sets hold at most 9 pages).
// Complete readings only (S = the sets read); true for incomplete ones.
bool overflows_fit_even_fill(const SetsFromOverflows& sets);

// Whether the sets overflowed fewest ways first, as sets filled in turn do: a set of w ways
// overflows when it takes its (w + 1)-th page, at about w x S elements. A set of fewer ways after
// one of more means misjudged counts (an H200 L1 TLB scan read 15 and then 1 way: one of 17
// elements judged a hit at 17 and 18 elements, all 19 missing at 19).
bool overflows_in_fill_order(const SetsFromOverflows& sets);

// The ways as a finding's value: one integer when every set has the same, else the per-set list,
// largest first (which set is which cannot be told from the counts).
nlohmann::json ways_value(const std::vector<std::uint64_t>& ways);

}  // namespace memtopo
