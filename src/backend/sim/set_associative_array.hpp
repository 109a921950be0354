#pragma once
// The storage model shared by every simulated cache and TLB: lines (or pages) placed in sets of
// ways, found by tag, evicted by a replacement policy, optionally split into sectors.
#include <cstdint>
#include <vector>

#include "backend/chain.hpp"
#include "backend/sim/description.hpp"

namespace memtopo::sim {

// How addresses map onto one array. A TLB level is an array whose line is a page.
struct ArrayShape {
  std::uint64_t line_bytes = 0;    // power of two
  std::uint64_t sector_bytes = 0;  // power of two dividing line_bytes, at most 64 per line
  std::vector<std::uint32_t> ways_per_set;
  SetIndex set_index;
};

enum class Lookup {
  hit,          // line present with the requested sector valid
  sector_miss,  // line present, sector not: the sector is filled
  miss,         // line absent: a line is allocated with only the requested sector valid
};

class SetAssociativeArray {
 public:
  SetAssociativeArray(ArrayShape shape, Replacement policy);

  // Forgets every line (in constant time) and restarts the random replacement draws from `seed`.
  void clear(std::uint64_t seed);
  // Looks the address up; whatever was missing is brought in, as a fill after a miss would.
  Lookup access(std::uint64_t address);
  // Whether the address's sector is present, without touching any replacement state.
  bool holds(std::uint64_t address) const;

  std::uint32_t set_of(std::uint64_t address) const;
  std::uint64_t line_number(std::uint64_t address) const { return address >> line_shift_; }
  std::uint32_t set_count() const { return static_cast<std::uint32_t>(first_way_.size() - 1); }

 private:
  static constexpr std::uint64_t kNoLine = UINT64_MAX;
  struct Way {
    std::uint64_t line = kNoLine;
    std::uint64_t stamp = 0;    // LRU: last use; FIFO: fill time
    std::uint64_t sectors = 0;  // bit k set = sector k valid
  };

  std::uint64_t sector_bit(std::uint64_t address) const {
    return std::uint64_t{1} << ((address >> sector_shift_) & sector_index_mask_);
  }
  // Empties a set last touched before the latest clear(); this is what makes clear() O(1).
  void revive(std::uint32_t set);
  std::uint32_t choose_victim(const Way* ways, std::uint32_t count);

  ArrayShape shape_;
  Replacement policy_;
  unsigned line_shift_ = 0;
  unsigned sector_shift_ = 0;
  std::uint64_t sector_index_mask_ = 0;
  bool power_of_two_sets_ = false;
  double total_victim_weight_ = 0;
  std::vector<std::uint32_t> first_way_;  // set s owns ways_[first_way_[s], first_way_[s + 1])
  std::vector<Way> ways_;
  std::vector<std::uint32_t> set_generation_;
  std::uint32_t generation_ = 1;
  std::uint64_t tick_ = 0;
  // The way the last access used (an index, so that copies of the array stay valid). Chases
  // mostly touch the same line or page again (a TLB entry, a line walked at a small stride);
  // checking it first skips the set lookup. It validates itself: a way refilled since then no
  // longer holds the line.
  static constexpr std::size_t kNoWay = SIZE_MAX;
  std::size_t recent_ = kNoWay;
  SplitMix64 rng_{0};
};

}  // namespace memtopo::sim
