#pragma once
// Minimal eviction sets by group testing (Vila, Köpf, Morales, "Theory and practice of finding
// eviction sets", IEEE S&P 2019), the method used to reverse-engineer CPU last-level caches with
// complex (hashed) addressing.
//
// An eviction set of a target line is a set of lines that evicts it: a cyclic chase over the
// target and the set misses on the target. A minimal one is W lines that share the target's set
// (W ways): with W - 1 of them the target's set holds everything, with W it overflows. Starting
// from candidates known to evict the target (a pool larger than the cache), group testing splits
// the candidates into G groups and chases the target with each group left out: a group whose
// removal still evicts the target holds no line the eviction needs, and goes. When no group can
// go, G doubles. When every single line is needed, the set is minimal. Two additions, because a
// chase reports every line's misses, not only the target's:
//   - pruning: under a deterministic policy (LRU, FIFO: every line of an overfull set misses on
//     every pass; or random replacement chased with enough passes that every such line misses on
//     some) a line that did not miss in a chase that evicted the target shares no set with it,
//     so the control and every chase that still evicted drop the candidates that hit;
//   - necessary lines: in a round that leaves out single lines, the lines whose removal stops the
//     eviction are exactly the target's congruent lines when there are W of them (with more, no
//     single line is necessary), so they are the minimal set at once.
//   - the target's set at once: the first round chases the candidates with and without the
//     target. Where the target's set holds exactly W + 1 of the chased lines, leaving the target
//     out leaves W, and exactly its W congruent lines stop missing: they are the candidates then
//     (one chase instead of a reduction; a pool of k overfull sets needs k such chases, not
//     group testing over all of them). Where no line stops missing, group testing goes on.
// Every round also chases the target with all remaining candidates (the control): it must still
// evict, or the round that removed several groups at once is undone to one group.
//
// The reduction is a state machine like PerSetWaysSearch: round() proposes chases (line numbers,
// the target first), record() takes back which lines of each missed. Pure.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace memtopo {

class EvictionSetReduction {
 public:
  // `candidates` (not containing `target`) evicted `target` in a chase over both. `prune`: a
  // line that stays fast in a chase that evicts the target is not in its set (see above). At most
  // `max_tests` chases. Throws std::invalid_argument for no candidates or max_tests 0.
  EvictionSetReduction(std::uint64_t target, std::vector<std::uint64_t> candidates, bool prune,
                       std::size_t max_tests);

  // The chases of the next round, each the target first and then candidates (the first round's
  // second chase: the candidates alone); empty when finished.
  const std::vector<std::vector<std::uint64_t>>& round() const { return round_; }
  // Per chase of round(), per line in its order: whether it missed. Throws
  // std::invalid_argument when the shapes differ from round()'s.
  void record(const std::vector<std::vector<bool>>& missed);

  bool finished() const { return round_.empty(); }
  bool minimal() const { return minimal_; }
  std::uint64_t target() const { return target_; }
  // The candidates left: the minimal eviction set once minimal().
  const std::vector<std::uint64_t>& candidates() const { return set_; }
  // Why the reduction stopped without a minimal set.
  const std::string& why() const { return why_; }
  std::size_t tests() const { return tests_; }
  std::size_t rounds() const { return rounds_; }
  // Controls that evicted after a round that removed several groups at once was undone.
  std::size_t undone_rounds() const { return undone_; }

 private:
  void plan();
  void fail(std::string why);
  void finish_minimal();
  void record_first_round(const std::vector<std::vector<bool>>& missed);
  std::vector<std::uint64_t> without_group(std::size_t group) const;
  std::vector<std::uint64_t> pruned(const std::vector<std::vector<bool>>& missed,
                                    const std::vector<std::size_t>& removable) const;
  std::vector<std::uint64_t> group(std::size_t g) const;

  std::uint64_t target_;
  std::vector<std::uint64_t> set_;
  bool prune_;
  std::size_t max_tests_;
  std::size_t groups_;
  std::vector<std::vector<std::uint64_t>> round_;
  // The set before the last round that removed several groups, and the first of them: what the
  // set becomes when the next control fails.
  std::optional<std::vector<std::uint64_t>> undo_to_;
  bool first_round_ = true;  // the chases with and without the target
  bool minimal_ = false;
  std::string why_;
  std::size_t tests_ = 0, rounds_ = 0, undone_ = 0;
};

// The most common size among the minimal eviction sets found (nullopt without any), and how many
// of them had it.
struct WaysVote {
  std::optional<std::size_t> ways;
  std::size_t agreeing = 0;
};
WaysVote vote_on_ways(std::span<const std::optional<std::size_t>> minimal_set_sizes);

// Whether every group of lines that share a set (line numbers) is congruent modulo `sets`: a
// modulo index. False for no groups or sets 0.
bool congruent_modulo(std::span<const std::vector<std::uint64_t>> same_set_groups,
                      std::uint64_t sets);

}  // namespace memtopo
