#include "backend/sim/set_associative_array.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace memtopo::sim {

SetAssociativeArray::SetAssociativeArray(ArrayShape shape, Replacement policy)
    : shape_(std::move(shape)), policy_(std::move(policy)) {
  line_shift_ = static_cast<unsigned>(std::countr_zero(shape_.line_bytes));
  sector_shift_ = static_cast<unsigned>(std::countr_zero(shape_.sector_bytes));
  sector_index_mask_ = shape_.line_bytes / shape_.sector_bytes - 1;
  first_way_.assign(shape_.ways_per_set.size() + 1, 0);
  std::partial_sum(shape_.ways_per_set.begin(), shape_.ways_per_set.end(), first_way_.begin() + 1);
  ways_.resize(first_way_.back());
  const std::uint64_t sets = shape_.ways_per_set.size();
  power_of_two_sets_ = std::has_single_bit(sets);
  total_victim_weight_ =
      std::accumulate(policy_.victim_weights.begin(), policy_.victim_weights.end(), 0.0);
  // Generation 0 on every set and generation_ 1: the array starts cold.
  set_generation_.assign(sets, 0);
}

void SetAssociativeArray::clear(std::uint64_t seed) {
  if (++generation_ == 0) {
    std::fill(set_generation_.begin(), set_generation_.end(), 0);
    generation_ = 1;
  }
  recent_ = kNoWay;
  rng_ = SplitMix64(seed);
}

std::uint32_t SetAssociativeArray::set_of(std::uint64_t address) const {
  if (shape_.set_index.kind == SetIndex::Kind::bits) {
    std::uint32_t set = 0;
    for (std::size_t k = 0; k < shape_.set_index.bits.size(); ++k) {
      set |= static_cast<std::uint32_t>((address >> shape_.set_index.bits[k]) & 1u) << k;
    }
    return set;
  }
  if (shape_.set_index.kind == SetIndex::Kind::xor_functions) {
    std::uint32_t set = 0;
    for (std::size_t k = 0; k < shape_.set_index.xor_masks.size(); ++k) {
      set |= static_cast<std::uint32_t>(std::popcount(address & shape_.set_index.xor_masks[k]) & 1)
             << k;
    }
    return set;
  }
  const std::uint64_t line = address >> line_shift_;
  // Most arrays have a power-of-two set count; the mask spares the hot path a division.
  if (power_of_two_sets_) return static_cast<std::uint32_t>(line & (set_count() - 1));
  return static_cast<std::uint32_t>(line % set_count());
}

void SetAssociativeArray::revive(std::uint32_t set) {
  if (set_generation_[set] == generation_) return;
  std::fill(ways_.begin() + first_way_[set], ways_.begin() + first_way_[set + 1], Way{});
  set_generation_[set] = generation_;
}

Lookup SetAssociativeArray::access(std::uint64_t address) {
  const std::uint64_t line = address >> line_shift_;
  const std::uint64_t sector = sector_bit(address);
  ++tick_;
  if (recent_ == kNoWay || ways_[recent_].line != line) {
    const std::uint32_t set = set_of(address);
    revive(set);
    const auto first = ways_.begin() + first_way_[set];
    const auto last = ways_.begin() + first_way_[set + 1];
    // Fills take the lowest empty way and nothing empties a way short of clear(), so the empty
    // ways of a set are its last ones: the search can stop at the first.
    const auto way = std::find_if(
        first, last, [line](const Way& w) { return w.line == line || w.line == kNoLine; });
    if (way == last || way->line == kNoLine) {
      const auto victim =
          way != last ? way
                      : first + choose_victim(&*first, static_cast<std::uint32_t>(last - first));
      // lip: the new line enters at the LRU position (stamp 0: the next victim of its set).
      *victim = Way{line, policy_.kind == Replacement::Kind::lip ? 0 : tick_, sector};
      recent_ = static_cast<std::size_t>(victim - ways_.begin());
      return Lookup::miss;
    }
    recent_ = static_cast<std::size_t>(way - ways_.begin());
  }
  Way& way = ways_[recent_];
  if (policy_.kind == Replacement::Kind::lru || policy_.kind == Replacement::Kind::lip) {
    way.stamp = tick_;
  }
  if (way.sectors & sector) return Lookup::hit;
  way.sectors |= sector;
  return Lookup::sector_miss;
}

bool SetAssociativeArray::holds(std::uint64_t address) const {
  const std::uint32_t set = set_of(address);
  if (set_generation_[set] != generation_) return false;
  const std::uint64_t line = address >> line_shift_;
  for (std::uint32_t i = first_way_[set]; i < first_way_[set + 1]; ++i) {
    if (ways_[i].line == line) return (ways_[i].sectors & sector_bit(address)) != 0;
  }
  return false;
}

std::uint32_t SetAssociativeArray::choose_victim(const Way* ways, std::uint32_t count) {
  switch (policy_.kind) {
    case Replacement::Kind::lru:
    case Replacement::Kind::lip:
    case Replacement::Kind::fifo: {
      // The stamp is the last use (LRU) or the fill time (FIFO): the oldest goes either way.
      const Way* oldest = std::min_element(
          ways, ways + count, [](const Way& a, const Way& b) { return a.stamp < b.stamp; });
      return static_cast<std::uint32_t>(oldest - ways);
    }
    case Replacement::Kind::random:
      return static_cast<std::uint32_t>(rng_.below(count));
    case Replacement::Kind::victim_weights: {
      double draw = rng_.uniform() * total_victim_weight_;
      std::uint32_t way = 0;
      // Stops at the last way so that rounding in the running sum cannot run past the set.
      while (way + 1 < count && draw >= policy_.victim_weights[way]) {
        draw -= policy_.victim_weights[way];
        ++way;
      }
      return way;
    }
  }
  return 0;
}

}  // namespace memtopo::sim
