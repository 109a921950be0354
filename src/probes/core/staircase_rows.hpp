#pragma once
// The three questions a staircase row answers (StaircaseQuestion), one file each; the probe
// dispatches on the row's question.
#include "probes/core/probe.hpp"
#include "probes/core/staircase_probe.hpp"

namespace memtopo::staircase {

// constant_l1.size, constant_l15.size and their latencies (constant_caches.cpp).
void run_constant_caches(ProbeContext& ctx, const StaircaseRow& row);
// l2.size, and l2.segment_size when a step lies inside L2 (l2/l2_size.cpp).
void run_l2_and_dram(ProbeContext& ctx, const StaircaseRow& row);
// Every TLB level's reach, entries, page, ways, sets and miss penalty, and
// dram.latency_tlb_miss (tlb_reach.cpp and the tlb_*.cpp it runs).
void run_tlb_reach(ProbeContext& ctx, const StaircaseRow& row);

}  // namespace memtopo::staircase
