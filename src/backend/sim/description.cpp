#include "backend/sim/description.hpp"

namespace memtopo::sim {

std::vector<std::uint32_t> ways_of_each_set(const Associativity& associativity,
                                            std::uint64_t entries) {
  if (!associativity.ways_per_set.empty()) return associativity.ways_per_set;
  if (associativity.ways == 0) return {static_cast<std::uint32_t>(entries)};
  return std::vector<std::uint32_t>(entries / associativity.ways, associativity.ways);
}

}  // namespace memtopo::sim
