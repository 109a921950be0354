#pragma once
// The recorded H200 DRAM chases the mode tests read (valley_split_test, mode_evidence_test).
#include <cstddef>
#include <vector>

namespace memtopo {

// docs/results/nvidia-h200/2026-11-28_7c3e18a-dram-traces (GPU-d76a64da): the traces of one
// default discovery, timing overhead subtracted, in 10-cycle bins from `from`; `above` loads
// beyond 1500 cycles.
struct RecordedHistogram {
  double from;
  std::vector<std::size_t> counts;
  std::size_t above;
};

// dram.latency: 4096 loads, page-local, TLB warm.
inline const RecordedHistogram kH200DramLatency = {
    500,
    {18,  89,  355, 365, 362, 366, 154, 43, 23, 7,  4,  6,  4,  3,  7,  7,  29, 83, 61, 196,
     134, 312, 303, 243, 233, 133, 53,  24, 11, 11, 8,  6,  5,  6,  14, 10, 9,  9,  4,  12,
     10,  15,  6,   10,  17,  10,  15,  9,  15, 9,  18, 14, 16, 18, 23, 16, 12, 13, 6,  2,
     6,   3,   4,   7,   4,   5,   6,   6,  4,  11, 8,  7,  6,  7,  8,  3,  6},
    19};

// dram.latency_tlb_miss: 4096 loads, each a page of its own that no TLB level holds.
inline const RecordedHistogram kH200DramTlbMiss = {
    510,
    {2,  15, 46, 35, 33, 42, 14, 1,  3,  27, 172, 359, 306, 338, 283, 96,  31,  13,
     18, 20, 16, 33, 38, 25, 31, 65, 56, 70, 178, 155, 231, 258, 221, 217, 124, 57,
     19, 13, 11, 11, 6,  9,  10, 6,  9,  12, 12,  17,  9,   8,   8,   12,  8,   15,
     12, 11, 12, 9,  7,  15, 10, 9,  11, 10, 18,  7,   7,   7,   9,   6,   7,   6,
     3,  8,  11, 4,  9,  2,  9,  2,  7,  8,  1,   6,   4,   4,   1},
    20};

// Every bin's loads spread evenly over its 10 cycles; the loads above at 1500-2000.
inline std::vector<double> samples_of(const RecordedHistogram& h) {
  std::vector<double> x;
  for (std::size_t b = 0; b < h.counts.size(); ++b) {
    for (std::size_t k = 0; k < h.counts[b]; ++k) {
      x.push_back(h.from + 10.0 * static_cast<double>(b) +
                  10.0 * (static_cast<double>(k) + 0.5) / static_cast<double>(h.counts[b]));
    }
  }
  for (std::size_t k = 0; k < h.above; ++k) x.push_back(1500 + 500.0 * k / h.above);
  return x;
}

}  // namespace memtopo
