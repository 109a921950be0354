#pragma once
// The line table's device-wide row (L2): sector and line of a cache every SM shares.
//   sector: a cold chase (device caches flushed, no warm pass) at 4 B stride, sequential: each
//           fetched block misses once and hits on the rest, so the spacing of the misses is the
//           fetch granularity (as for L1, thesis 004, 4.3), with a threshold between the
//           level's hits and DRAM measured first. Every chase runs alone.
//   line:   a sectored cache fetches sectors, so no cold chase shows its line; only the capacity
//           at strides around it does (the L1 method), which needs a chain of at least
//           size / line distinct lines per chase and several such chases. On a 50 MiB L2 that
//           is far beyond what a discovery may spend, so the probe reports inconclusive with the
//           cost it would take, never a guess.
#include <string>

#include "probes/line_probe.hpp"
#include "probes/probe.hpp"

namespace memtopo {

void measure_device_cache_sector(ProbeContext& ctx, const LineTarget& target,
                                 const std::string& id);
void report_device_cache_line(ProbeContext& ctx, const LineTarget& target, const std::string& id);

}  // namespace memtopo
