#pragma once
// The three questions a staircase row answers (StaircaseQuestion), one file each; the probe
// dispatches on the row's question.
#include "probes/core/probe.hpp"
#include "probes/staircase/staircase_probe.hpp"

namespace memtopo::staircase {

// constant_l1.size, constant_l15.size and their latencies (constant_caches.cpp).
void run_constant_caches(ProbeContext& ctx, const StaircaseRow& row);
// l2.size, and l2.segment_size when a step lies inside L2 (l2_and_dram.cpp).
void run_l2_and_dram(ProbeContext& ctx, const StaircaseRow& row);
// tlb_l1/tlb_l2 reach and miss penalty, tlb_l1.page, dram.latency_tlb_miss (tlb_reach.cpp).
void run_tlb_reach(ProbeContext& ctx, const StaircaseRow& row);

}  // namespace memtopo::staircase
