#pragma once
// Whether an L2 rate is the L2's: DRAM's rate for the same op (dram.bandwidth,
// dram.write_bandwidth, dram.copy_bandwidth: the best launch over footprints no L2 can serve,
// measured first) is what a stream gets where the L2 holds nothing. An L2 figure clearly above
// it is the L2's: the footprint stayed in it. One within the launches' scatter of it (or below
// it) may be DRAM's: an L2 that writes lines back as fast as they are written runs at DRAM's
// write rate whatever the footprint (an H200 wrote 4.8 TB/s over 5.6 MiB, as fast as it wrote
// DRAM). Then the figure shows only that the L2 took at least that much: an inconclusive lower
// bound, with both numbers.
#include "model/topology.hpp"

namespace memtopo {

// Judges `rate` (an L2 finding, its spread over its launches inside the L2) against `dram`
// (DRAM's finding for the same op; nullptr or inconclusive: not judged, and said so):
// evidence.dram_rate with both rates and the verdict; where they are not clearly apart (by more
// than 5 %, the search's `min_gain` and the wider p5..p95) or the L2's is the slower, `rate` becomes an
// inconclusive lower bound without a confidence, its note naming both numbers.
void judge_l2_residency(Property& rate, const Property* dram, double min_gain);

}  // namespace memtopo
