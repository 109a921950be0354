#pragma once
// The line table's device-wide row (L2): sector and line of a cache every SM shares.
//   sector: a cold chase (device caches flushed, no warm pass) at 4 B stride, sequential: each
//           fetched block misses once and hits on the rest, so the spacing of the misses is the
//           fetch granularity (as for L1, thesis 004, 4.3), with a threshold between the
//           level's hits and DRAM measured first. Every chase runs alone.
//   line:   a sectored cache fetches sectors, so no cold chase shows its line; only the capacity
//           at strides around it does. One warm chase per stride 7 x unit over 3/4 of 7 x the
//           measured size (what one SM fills), units from 1 KiB down to the sector: it fits
//           only when unit >= line, so the smallest unit that fits is the line (analysis:
//           line_from_fits.hpp); a chase over 5/4 of 7 x the size at that unit must miss (the
//           cross-check). Descending, stopping at the first miss: about 1.5 x size / line loads
//           of chain for the smallest pair, and every larger unit costs half the one below.
//           A contiguous chase at the answer's own stride over 5/4 of the size must miss too.
#include <string>

#include "probes/core/probe.hpp"
#include "probes/line/line_probe.hpp"

namespace memtopo {

// l2_sector_probe.cpp
void measure_device_cache_sector(ProbeContext& ctx, const LineTarget& target,
                                 const std::string& id);
// l2_line_probe.cpp
void measure_device_cache_line(ProbeContext& ctx, const LineTarget& target, const std::string& id);

}  // namespace memtopo
