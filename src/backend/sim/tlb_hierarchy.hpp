#pragma once
// Address translation before every global load: TLB levels looked up in order.
#include <cstdint>
#include <vector>

#include "backend/sim/description.hpp"
#include "backend/sim/set_associative_array.hpp"

namespace memtopo::sim {

class TlbHierarchy {
 public:
  explicit TlbHierarchy(const std::vector<TlbDescription>& levels);

  // Forgets every translation.
  void clear();
  // Translates the address and returns the cycles it added: each level that misses adds its
  // miss_latency_extra and passes on to the next; a hit stops. Missed levels are filled (LRU).
  std::uint32_t translate(std::uint64_t address);

 private:
  struct Level {
    SetAssociativeArray entries;
    std::uint32_t miss_latency_extra;
  };
  std::vector<Level> levels_;
};

}  // namespace memtopo::sim
