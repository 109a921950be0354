#pragma once
// Replacement policy from the misses of one overfull set (paper 000, 3.2 step 4 and 4.2).
//
// The chase visits the W + 1 lines of one W-way set cyclically, from a cold cache, many passes.
// LRU and FIFO thrash it identically every pass (a periodic miss pattern); they are told apart by
// a second chase that touches the first line again before the overflowing line (LRU then keeps
// it, FIFO evicts it). Otherwise the victims are reconstructed from the recorded indices: after
// the set has filled, exactly one of the W + 1 lines is absent, so the line that misses next is
// the one the previous miss evicted; tracking which way every line occupies (a cold set fills
// its lowest empty way first) gives the victim way of every miss. Uniform victims mean random
// replacement, a chi-square test against uniform tells weighted victims from it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"

namespace memtopo {

// Complete warm passes (of `period` accesses, the first pass skipped as cold) whose slow pattern
// equals the most common one, of the warm passes compared: all of them for LRU or FIFO thrash,
// few for random replacement. None compared when there are fewer than two warm passes.
struct RepeatedPasses {
  std::size_t repeating = 0;
  std::size_t compared = 0;
  double fraction() const;  // repeating / compared; 0 when none were compared
  RepeatedPasses& operator+=(const RepeatedPasses& other);
};
RepeatedPasses repeated_passes(const std::vector<bool>& slow, std::size_t period);
// repeated_passes(slow, period).fraction().
double periodic_fraction(const std::vector<bool>& slow, std::size_t period);

struct VictimCounts {
  std::vector<std::uint64_t> per_way;  // victims observed per way
  std::uint64_t victims = 0;           // sum of per_way
  std::uint64_t inconsistencies = 0;   // slow accesses to lines that should have been present
  // Index of the suspect access at which tracking stopped because it could have been the
  // victim's miss or an outlier on a hit (see victim_ways); SIZE_MAX when it ran to the end.
  std::size_t stopped_at = SIZE_MAX;
};

// What one access looked like.
enum class Access : std::uint8_t {
  hit,
  miss,     // slow, at the latency this line's misses typically have
  suspect,  // slow, but far from the line's typical miss latency: an outlier on a hit or a miss
};

// Classifies accesses: slow = above `threshold`; a slow access is a miss when it lies within a
// quarter of (line's median slow latency - threshold) of that median, else suspect. One line's
// misses all come from the same next-level location, so they share a latency; an interrupt or
// refresh adds a delay of its own.
std::vector<Access> classify_accesses(std::span<const double> cycles,
                                      std::span<const std::uint32_t> lines, double threshold);

// `lines[i]` (0 .. ways) is the set member the i-th access touched, `kind[i]` how it looked;
// the accesses start with the set empty. A suspect access counts as a miss when the line is
// absent in the model and is ignored otherwise; only clean misses name victims, so that an
// outlier cannot swap two lines' ways in the model. A suspect on a line that could be the
// pending victim (not accessed since the last miss) is either an outlier on a hit or on the
// victim's miss; the trace cannot tell which, so tracking stops there (`stopped_at`) and the
// counts cover the trace before it. Chase several short traces to get enough victims. Throws
// std::invalid_argument for mismatched spans, ways == 0 or a line id above ways.
VictimCounts victim_ways(std::span<const std::uint32_t> lines, std::span<const Access> kind,
                         std::uint32_t ways);

// Upper tail of the chi-square distribution with `dof` degrees of freedom at x: the regularized
// upper incomplete gamma Q(dof / 2, x / 2).
double chi_square_upper_tail(double x, double dof);
// The x whose upper tail is `alpha` (bisection).
double chi_square_critical(double dof, double alpha);

struct ChiSquare {
  double statistic = 0;
  double dof = 0;
  double p_value = 1;
};
// The victim counts of several chases pooled, leaving out every chase whose distribution over
// the ways differs from the others' pooled (chi-square homogeneity test of the chase against
// the rest, at `alpha`): a victim model that went wrong partway (two ways swapped after an
// undetected outlier) gives such a chase, whereas chases of one policy agree. `left_out` gets
// the indices of the chases left out.
VictimCounts pool_homogeneous_victims(std::span<const VictimCounts> chases, double alpha,
                                      std::vector<std::size_t>& left_out);

// Goodness of fit of the counts to a uniform distribution. Throws for fewer than two counts or
// a zero total.
ChiSquare chi_square_uniform(std::span<const std::uint64_t> counts);

// LRU or FIFO from the re-touch chase: in `slow_touches` of `touches` passes the first access of
// the re-touched line missed (FIFO: in nearly all; LRU: in nearly none). The confidence is the
// agreement of the passes with the verdict.
struct LruFifo {
  std::string policy;  // "lru", "fifo" or "" (inconclusive)
  ConfidenceFactor confidence;
};
// A share of missing re-touches at or above this is FIFO, at or below kLruMissShare LRU.
inline constexpr double kFifoMissShare = 0.9;
inline constexpr double kLruMissShare = 0.1;
LruFifo lru_or_fifo(std::size_t slow_touches, std::size_t touches);

struct PolicyVerdict {
  std::string policy;     // "lru", "fifo", "random", "weighted", or "" when inconclusive
  Confidence confidence;  // the rules it was computed by; meaningless when inconclusive
  std::string why;
  std::vector<double> weights;  // estimated victim probability per way (random/weighted)
  ChiSquare chi_square;
};

// Significance of the chi-square test, and the victims per way it needs to say anything.
inline constexpr double kPolicyAlpha = 0.01;
inline constexpr double kMinVictimsPerWay = 20;
// A miss pattern repeated in at least this share of the warm passes is deterministic (LRU or
// FIFO).
inline constexpr double kPeriodicShare = 0.95;
// A single victim chase is a check of its own (the chi-square test on its victims alone) when
// it has this many victims per way: the usual least expected count of a chi-square cell.
inline constexpr double kMinChaseVictimsPerWay = 5;

// Classifies from the repeated passes (a share of kPeriodicShare: deterministic), the re-touch
// result (used when deterministic) and the victims pooled over the chases (used otherwise).
// Confidence: deterministic, the agreement of the repeated passes times the re-touch's; random
// or weighted, the agreement of the single `chases` (those pooled) whose own chi-square test
// says the same (uniform, or not), among those with enough victims for one.
PolicyVerdict classify_policy(const RepeatedPasses& periodic, const LruFifo& retouch,
                              const VictimCounts& victims, std::span<const VictimCounts> chases);

}  // namespace memtopo
