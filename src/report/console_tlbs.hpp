#pragma once
// The TLB table: one row per TLB level with its reach, entries, sets, ways, page and miss
// penalty (tlb_summary, summary_tables.hpp). Those properties of a TLB are shown here rather than
// among the console's other findings.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// Whether `property` of `element` has a column in the TLB table.
bool in_tlb_table(const Element& element, const std::string& property);

}  // namespace memtopo
