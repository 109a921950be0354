#include "analysis/eviction_sets.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace memtopo {
namespace {

// Sets of at most this many candidates are tested line by line (one chase per line left out):
// one round then tells the necessary lines. Larger sets start with kInitialGroups groups.
constexpr std::size_t kSingleRemovalLimit = 32;
constexpr std::size_t kInitialGroups = 8;

// The candidates of a chase (its lines after the target) that missed.
std::vector<std::uint64_t> missed_candidates(const std::vector<std::uint64_t>& chase,
                                             const std::vector<bool>& missed) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 1; i < chase.size(); ++i) {
    if (missed[i]) out.push_back(chase[i]);
  }
  return out;
}

// Lines sorted ascending, for membership by binary search: the reductions' sets of candidates
// were std::sets, a node per line, and their bookkeeping was 2-3 % of a whole discovery on an
// H200 (thousands of candidates in an L2's eviction tests).
std::vector<std::uint64_t> sorted(std::vector<std::uint64_t> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

bool contains(const std::vector<std::uint64_t>& sorted_lines, std::uint64_t line) {
  return std::binary_search(sorted_lines.begin(), sorted_lines.end(), line);
}

// `from` without the lines in `removed` (sorted), in from's order.
std::vector<std::uint64_t> minus(const std::vector<std::uint64_t>& from,
                                 const std::vector<std::uint64_t>& removed) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t x : from) {
    if (!contains(removed, x)) out.push_back(x);
  }
  return out;
}

}  // namespace

EvictionSetReduction::EvictionSetReduction(std::uint64_t target,
                                           std::vector<std::uint64_t> candidates, bool prune,
                                           std::size_t max_tests)
    : target_(target),
      set_(std::move(candidates)),
      prune_(prune),
      max_tests_(max_tests),
      groups_(kInitialGroups) {
  if (set_.empty() || max_tests == 0) {
    throw std::invalid_argument("EvictionSetReduction: needs candidates and a test budget");
  }
  plan();
}

std::vector<std::uint64_t> EvictionSetReduction::group(std::size_t g) const {
  const std::size_t count = round_.size() - 1, n = set_.size();
  return {set_.begin() + static_cast<std::ptrdiff_t>(g * n / count),
          set_.begin() + static_cast<std::ptrdiff_t>((g + 1) * n / count)};
}

std::vector<std::uint64_t> EvictionSetReduction::without_group(std::size_t g) const {
  return minus(set_, sorted(group(g)));
}

void EvictionSetReduction::plan() {
  if (first_round_) {
    std::vector<std::uint64_t> control = {target_};
    control.insert(control.end(), set_.begin(), set_.end());
    round_ = {std::move(control), set_};
    return;
  }
  const std::size_t count =
      set_.size() <= kSingleRemovalLimit ? set_.size() : std::min(groups_, set_.size());
  if (tests_ + count + 1 > max_tests_) {
    fail("no minimal eviction set within " + std::to_string(max_tests_) + " tests");
    return;
  }
  round_.assign(count + 1, {});
  std::vector<std::uint64_t> control = {target_};
  control.insert(control.end(), set_.begin(), set_.end());
  round_[0] = std::move(control);
  for (std::size_t g = 0; g < count; ++g) {
    std::vector<std::uint64_t> chase = {target_};
    const auto rest = without_group(g);
    chase.insert(chase.end(), rest.begin(), rest.end());
    round_[g + 1] = std::move(chase);
  }
}

void EvictionSetReduction::fail(std::string why) {
  why_ = std::move(why);
  round_.clear();
}

void EvictionSetReduction::finish_minimal() {
  minimal_ = true;
  round_.clear();
}

// With pruning: the candidates that missed in the control, and in every chase that still evicted
// the target (its set overfull, so its congruent lines missed) unless that chase left them out.
std::vector<std::uint64_t> EvictionSetReduction::pruned(
    const std::vector<std::vector<bool>>& missed, const std::vector<std::size_t>& removable) const {
  if (!prune_) return set_;
  std::vector<std::uint64_t> keep = sorted(missed_candidates(round_[0], missed[0]));
  for (std::size_t g : removable) {
    std::vector<std::uint64_t> still = group(g);
    const auto missed_there = missed_candidates(round_[g + 1], missed[g + 1]);
    still.insert(still.end(), missed_there.begin(), missed_there.end());
    std::sort(still.begin(), still.end());
    std::erase_if(keep, [&](std::uint64_t x) { return !contains(still, x); });
  }
  std::vector<std::uint64_t> out;
  for (std::uint64_t x : set_) {
    if (contains(keep, x)) out.push_back(x);
  }
  return out;
}

void EvictionSetReduction::record_first_round(const std::vector<std::vector<bool>>& missed) {
  first_round_ = false;
  if (!missed[0][0]) {
    fail("the " + std::to_string(set_.size()) + " candidates did not evict the target");
    return;
  }
  // Candidates that missed with the target and hit without it: its set's lines.
  std::vector<std::uint64_t> stopped;
  for (std::size_t i = 0; i < set_.size(); ++i) {
    if (missed[0][i + 1] && !missed[1][i]) stopped.push_back(set_[i]);
  }
  if (!stopped.empty()) {
    set_ = std::move(stopped);
  } else if (prune_) {
    set_ = missed_candidates(round_[0], missed[0]);
  }
  plan();
}

void EvictionSetReduction::record(const std::vector<std::vector<bool>>& missed) {
  if (missed.size() != round_.size()) {
    throw std::invalid_argument("EvictionSetReduction::record: one verdict list per chase");
  }
  for (std::size_t i = 0; i < missed.size(); ++i) {
    if (missed[i].size() != round_[i].size()) {
      throw std::invalid_argument("EvictionSetReduction::record: one verdict per chased line");
    }
  }
  ++rounds_;
  tests_ += round_.size();
  if (first_round_) {
    record_first_round(missed);
    return;
  }
  if (!missed[0][0]) {  // the control no longer evicts the target
    if (undo_to_) {
      set_ = std::move(*undo_to_);
      undo_to_.reset();
      ++undone_;
      plan();
      return;
    }
    fail("the remaining " + std::to_string(set_.size()) +
         " candidates no longer evicted the target: the tests disagree (a replacement that is "
         "not deterministic, or noise)");
    return;
  }
  undo_to_.reset();
  const std::size_t count = round_.size() - 1;
  const bool single = count == set_.size();
  std::vector<std::size_t> removable;
  std::set<std::uint64_t> necessary;
  for (std::size_t g = 0; g < count; ++g) {
    if (missed[g + 1][0]) {
      removable.push_back(g);
    } else if (single) {
      necessary.insert(set_[g]);
    }
  }
  if (single && necessary.size() == set_.size()) {
    finish_minimal();
    return;
  }
  if (single && !necessary.empty()) {  // exactly W congruent lines: they are the set
    std::erase_if(set_, [&](std::uint64_t x) { return !necessary.count(x); });
    plan();
    return;
  }
  const std::vector<std::uint64_t> kept = pruned(missed, removable);
  if (removable.empty()) {
    groups_ = std::min(2 * count, kept.size());
    set_ = kept;
    plan();
    return;
  }
  if (single) {                                     // more than W congruent lines: one line goes
    set_ = minus(kept, {set_[removable.front()]});  // one line: sorted
    plan();
    return;
  }
  // Several groups at once; undone to the first of them if the next control fails.
  std::vector<std::uint64_t> removed;
  for (std::size_t g : removable) {
    const auto members = group(g);
    removed.insert(removed.end(), members.begin(), members.end());
  }
  if (removable.size() > 1) undo_to_ = minus(kept, sorted(group(removable.front())));
  set_ = minus(kept, sorted(std::move(removed)));
  plan();
}

WaysVote vote_on_ways(std::span<const std::optional<std::size_t>> minimal_set_sizes) {
  std::map<std::size_t, std::size_t> count;
  for (const auto& size : minimal_set_sizes) {
    if (size) ++count[*size];
  }
  WaysVote vote;
  for (const auto& [size, n] : count) {
    if (n > vote.agreeing) {  // ties keep the smaller size
      vote.ways = size;
      vote.agreeing = n;
    }
  }
  return vote;
}

bool congruent_modulo(std::span<const std::vector<std::uint64_t>> same_set_groups,
                      std::uint64_t sets) {
  if (same_set_groups.empty() || sets == 0) return false;
  for (const auto& group : same_set_groups) {
    for (std::uint64_t line : group) {
      if (line % sets != group.front() % sets) return false;
    }
  }
  return true;
}

}  // namespace memtopo
