#pragma once
// dram.latency_tlb_miss: DRAM latency with a miss at every TLB level, from a cold chase over one
// element per page (tlb_reach.cpp runs it), docs/method.md "DRAM latency with TLB misses".
#include <cstdint>

#include "backend/experiment.hpp"
#include "model/topology.hpp"

namespace memtopo::staircase {

// The cold chase runs twice, each after flushing L2: the first conditions, the second is timed.
// The first of a process is in a state the row does not control: on the H200 it read every load
// about one DRAM access slower (1507-1512 cycles) in 3 of 6 TLB-only processes and otherwise
// below the repeat (TLB entries the row's ladders left over its pages), while the repeat read
// 793-797 in all. Its summary goes into the evidence, with `first_chase_differs` when its p50
// lies outside the band (kDescribedBand) around the timed one's.
//
// The property: the timed chase's latency as every latency is described (describe_latency):
// its p50, spread and confidence, or where the loads split into near and far modes the near
// mode's, with both modes and the mix's spread; inconclusive (no confidence) when no TLB level
// was found below the footprint, since then nothing says these loads missed.
Property dram_latency_tlb_miss(const Trace& timed, const Trace& conditioning, const ChaseSpec& spec,
                               std::uint64_t elements, bool levels_found);

}  // namespace memtopo::staircase
