#pragma once
// Latencies that may fall into two modes (near and far L2 partitions, near and far memory):
// the summary a latency-pattern row and dram.latency_tlb_miss report.
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

// Loads (cycles, timing overhead subtracted) summarised into `out`: p5_cycles, p95_cycles,
// stdev_cycles, samples, and cycles: the p50, or, when the loads split into two modes
// (split_latency_modes: a least-squares split, or one at a valley), the fast mode's p50, with both
// modes under `modes` (cycles, share, p5, p95, samples) and the split under `mode_split`. Returns
// the share of the loads within kDescribedBand of the value that describes them: each load counts
// when it lies within the band of its own mode.
double describe_latency_modes(const std::vector<double>& cycles, nlohmann::json& out);

}  // namespace memtopo
