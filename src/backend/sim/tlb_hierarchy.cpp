#include "backend/sim/tlb_hierarchy.hpp"

namespace memtopo::sim {

TlbHierarchy::TlbHierarchy(const std::vector<TlbDescription>& levels) {
  levels_.reserve(levels.size());
  for (const TlbDescription& tlb : levels) {
    // A TLB level is an unsectored array whose line is a page: one entry per page.
    ArrayShape shape{tlb.page_bytes, tlb.page_bytes,
                     ways_of_each_set(tlb.associativity, tlb.entries), SetIndex{}};
    levels_.push_back(
        Level{SetAssociativeArray(std::move(shape), Replacement{}), tlb.miss_latency_extra});
  }
}

void TlbHierarchy::clear() {
  // TLB levels replace LRU and draw nothing, so any seed will do.
  for (Level& level : levels_) level.entries.clear(0);
}

std::uint32_t TlbHierarchy::translate(std::uint64_t address) {
  std::uint32_t extra = 0;
  for (Level& level : levels_) {
    if (level.entries.access(address) == Lookup::hit) break;
    extra += level.miss_latency_extra;
  }
  return extra;
}

}  // namespace memtopo::sim
