#include "probes/core/staircase_probe.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "probes/core/staircase_rows.hpp"

namespace memtopo {

const std::vector<StaircaseRow>& staircase_rows() {
  static const std::vector<StaircaseRow> table = {
      {"constant_l1.size",
       StaircaseQuestion::constant_caches,
       LoadPath::constant,
       {"constant_l1", "constant_l15"},
       false,
       std::sqrt(2.0),
       "constant L1 and L1.5: sizes and latencies from one ld.const staircase over the bank"},
      {"l2.size",
       StaircaseQuestion::l2_and_dram,
       LoadPath::cg,
       {"l2"},
       true,
       2.0,
       "L2 size (and segments inside it): ld.global.cg staircase from beyond L1 to 3x the API L2"},
      {"tlb_l1.reach",
       StaircaseQuestion::tlb_reach,
       LoadPath::cg,
       {"tlb_l1", "tlb_l2", "tlb_l3"},
       true,
       std::sqrt(2.0),
       "TLB levels: reach, entries, page, ways (per set when unequal), sets and miss penalty "
       "from 64-bit chains of one L2 line per page up to most of device memory; DRAM latency "
       "with TLB misses"},
  };
  return table;
}

void StaircaseProbe::run(ProbeContext& ctx) {
  switch (row_.question) {
    case StaircaseQuestion::constant_caches:
      return staircase::run_constant_caches(ctx, row_);
    case StaircaseQuestion::l2_and_dram:
      return staircase::run_l2_and_dram(ctx, row_);
    case StaircaseQuestion::tlb_reach:
      return staircase::run_tlb_reach(ctx, row_);
  }
}

std::vector<std::string> StaircaseProbe::also_writes() const {
  std::vector<std::string> also;
  for (const std::string& element : row_.elements) {
    if (element != element_id()) also.push_back(element);
  }
  if (row_.question == StaircaseQuestion::tlb_reach) also.push_back("dram");
  return also;
}

std::unique_ptr<Probe> staircase_probe(const std::string& id) {
  for (const auto& row : staircase_rows()) {
    if (row.id == id) return std::make_unique<StaircaseProbe>(row);
  }
  throw std::logic_error("no staircase row " + id);
}

}  // namespace memtopo
