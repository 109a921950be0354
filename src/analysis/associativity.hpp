#pragma once
// Sets and ways of a cache from the misses of overfull chases (paper 000, 3.2 step 3, Fig. 3).
//
// With a cache of C bytes and b-byte lines (L = C / b lines), a chase over L + 1 lines at stride
// b overfills exactly one set by one line. Under LRU or FIFO every line of that set misses on
// every pass, so the distinct lines that miss are the set's ways + 1; under random replacement
// each of them misses on some passes. Their spacing tells the set mapping: with modulo indexing
// they form an arithmetic progression whose step is the number of sets (step 1: one set, fully
// associative); a progression that is not arithmetic means the set is selected otherwise
// (address bits, a hash), and sets = L / ways then. Pure functions of numbers and traces.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace memtopo {

// Per line of a chase: how often its timed accesses were slow (above a hit/miss threshold).
// A flat vector sorted by line, one entry per visited line: a device-wide chase visits hundreds
// of thousands of lines, and a map's node per line made its allocations a visible part of a
// whole discovery's host time. Lookups are binary searches.
class LineSlowCounts {
 public:
  struct Line {
    std::uint64_t line = 0;    // line number
    std::uint32_t visits = 0;  // timed accesses
    std::uint32_t slow = 0;    // slow timed accesses, at most visits
    bool operator==(const Line&) const = default;
  };
  LineSlowCounts() = default;
  // Throws std::invalid_argument unless the lines ascend strictly, each visited (visits > 0)
  // and slow on at most its visits.
  explicit LineSlowCounts(std::vector<Line> lines);

  // Every visited line, ascending.
  std::span<const Line> lines() const { return lines_; }
  // Timed accesses of `line`, and the slow ones among them: 0 for a line not visited.
  std::uint32_t visits(std::uint64_t line) const;
  std::uint32_t slow(std::uint64_t line) const;
  // Whether `line` was slow at least max(min_slow, 1) times: a line needs a slow access to miss.
  bool missed(std::uint64_t line, std::uint32_t min_slow) const;

 private:
  const Line* find(std::uint64_t line) const;
  std::vector<Line> lines_;
};

// Line number of word index w = w * 4 / line_bytes. Throws std::invalid_argument when the spans
// differ in length or line_bytes is 0.
LineSlowCounts slow_counts_per_line(std::span<const double> corrected_cycles,
                                    std::span<const std::uint32_t> indices,
                                    std::uint32_t line_bytes, double threshold_cycles);

// The lines that miss in an overfull chase.
struct OverflowLines {
  std::vector<std::uint64_t> lines;  // slow on at least `min_slow` timed accesses, ascending
  std::size_t partial = 0;  // of those, lines slow on some but not all of their timed accesses
  // Every missing line slow on every access (LRU/FIFO thrash): the pattern repeats every pass.
  bool deterministic() const { return !lines.empty() && partial == 0; }
};
// min_slow >= 1: a line needs that many slow accesses to count as missing (2 or more so that an
// isolated outlier cannot make a line miss).
OverflowLines overflow_lines(const LineSlowCounts& counts, std::uint32_t min_slow);

// Timed passes of a chase over `chain_lines` lines (one access per line and pass, in chain
// order, the first timed access on the chain's first element) on which the overfull set whose
// lines are `set_lines` overflowed again: at least one of them was slow. W + 1 lines cycling
// through W ways miss at least once per pass under any replacement policy, so a pass without a
// slow access on them contradicts the overfull set (or the threshold). An incomplete last pass
// is not counted. Throws std::invalid_argument like slow_counts_per_line, or for chain_lines 0.
struct PassAgreement {
  std::size_t agreeing = 0;  // passes on which the set overflowed
  std::size_t passes = 0;    // complete timed passes
};
PassAgreement passes_overflowing(std::span<const double> corrected_cycles,
                                 std::span<const std::uint32_t> indices, std::uint32_t line_bytes,
                                 double threshold_cycles, std::span<const std::uint64_t> set_lines,
                                 std::uint64_t chain_lines);

// A chase over n lines that overfills k sets by one line each (n = L + k, 1 <= k < sets, LRU or
// FIFO, modulo indexing) misses on every line of those sets: lines whose number mod sets is
// below k, i.e. W + 1 runs of k consecutive lines, spaced by the set count. So one such chase
// gives the capacity (n - k lines), the sets (the spacing), the ways (runs - 1) and the lines of
// one overfull set (each run's first line, what a chase over L + 1 lines would show).
struct OverflowRuns {
  std::uint64_t run_length = 0;       // k: sets overfilled
  std::uint64_t period = 0;           // spacing of the runs: the set count
  std::vector<std::uint64_t> starts;  // first line of each run, ascending
  std::uint64_t capacity_lines = 0;   // n - k
};
// The runs when the missing lines form at least two runs of one length k, every run starting
// at the first plus a multiple of the first spacing (k below it); nullopt otherwise (scattered
// misses: random replacement, a hash; one run: fully associative or runs merged).
std::optional<OverflowRuns> overflow_runs(std::span<const std::uint64_t> missing_lines,
                                          std::uint64_t chased_lines);

// What the lines that miss in the chase over `chain_lines` = L + 1 lines say.
struct OverflowGeometry {
  bool found = false;
  std::string why;                     // when not found
  std::uint32_t ways = 0;              // of the overfull set: missing lines - 1
  std::uint64_t sets = 0;              // period (modulo) or L / ways (other mappings)
  bool arithmetic = false;             // missing lines form an arithmetic progression
  std::uint64_t period = 0;            // its step, when arithmetic (1: fully associative)
  bool equal_sets_consistent = false;  // sets * ways == L
};
OverflowGeometry geometry_from_overflow(std::span<const std::uint64_t> missing_lines,
                                        std::uint64_t cache_lines);

// Per-set ways when sets may differ (paper 000 Fig. 10-11). A sequential chase over m * sets
// lines with modulo indexing puts exactly m lines into every set: a set overflows iff m exceeds
// its ways. The search keeps, per set, the largest m seen to fit and the smallest seen to
// overflow, and proposes the m values to chase next (doubling, then bisection); one chase
// answers for every set at once.
class PerSetWaysSearch {
 public:
  // Throws std::invalid_argument for sets == 0 or max_m == 0.
  PerSetWaysSearch(std::uint64_t sets, std::uint64_t max_m);
  // Records a chase over m * sets lines: overflowed[s] says whether set s overflowed.
  void add(std::uint64_t m, const std::vector<bool>& overflowed);
  // Up to `count` distinct m values still worth chasing, ascending; empty when done.
  std::vector<std::uint64_t> next(std::size_t count) const;
  bool done() const { return next(1).empty(); }
  // Per set: its ways (largest fitting m) when bracketed tightly, nullopt otherwise.
  std::vector<std::optional<std::uint64_t>> ways() const;
  // Sets whose results contradict monotonicity (an overflow at m but a fit at a larger m).
  std::size_t contradictions() const { return contradictions_; }

 private:
  std::uint64_t max_m_;
  std::vector<std::uint64_t> fit_;       // largest m that fitted (0: none)
  std::vector<std::uint64_t> overflow_;  // smallest m that overflowed (0: none)
  std::size_t contradictions_ = 0;
};

// Per set s (line mod sets) of a sequential chase: whether it overflowed, i.e. its lines had at
// least `min_slow_accesses` slow timed accesses in total (an overfull set misses at least once
// per pass under any policy; outliers almost never gather that many in one set).
std::vector<bool> overflowed_sets(const LineSlowCounts& counts, std::uint64_t sets,
                                  std::uint32_t min_slow_accesses);

// Set-index bits from the bit tests: for each tested address bit, whether W + 1 lines that
// should share a set overflowed after flipping that bit in one of them (no overflow: the flip
// moved it to another set, so the bit selects the set). Returns the bits that did not overflow.
std::vector<std::uint32_t> index_bits_from_tests(const std::map<std::uint32_t, bool>& overflowed);

}  // namespace memtopo
