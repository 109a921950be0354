#pragma once
// The optional throughput model of a simulated device (docs/sim-format.md, "throughput"): how
// many bytes per cycle each level delivers to streams. Plain data; the loader has validated it.
#include <cstdint>
#include <vector>

namespace memtopo::sim {

// Threads an SM holds unless the model says otherwise (every NVIDIA architecture since Maxwell
// but Turing and the consumer Ampere/Ada parts).
inline constexpr std::uint32_t kDefaultMaxThreadsPerSm = 2048;

struct ThroughputDescription {
  // Bytes per SM cycle each cache delivers, by its index in SimDescription::caches: per SM for
  // scope sm, for the whole device for scope device. 0: not modelled (a stream it would serve
  // cannot run).
  std::vector<double> cache_bytes_per_cycle;
  // By the same index: the share of a device-scope cache's capacity that a stream looping over a
  // larger footprint finds again on its next pass (0: nothing, as under LRU, where every line is
  // gone before the stream returns to it; up to 1: a policy that keeps old lines against a
  // stream). Those bytes are hits, so a "DRAM" stream runs faster than DRAM.
  std::vector<double> loop_retained_share;
  // A stream whose warps loop (placement shared_by_all or per_block) and that DRAM serves runs
  // at looping_dram_factor_within x its rate while its arrays span at most
  // looping_dram_beyond_bytes, at looping_dram_factor_beyond x beyond; one-pass grids at their
  // rate. What H200s showed: looping reads 0.7-1.3 % faster than one-pass reads at 960 MiB, 2-4 %
  // slower at 4-8 GiB (their warps stride far apart: likely TLB reach). 1: as one-pass grids.
  double looping_dram_factor_within = 1;
  double looping_dram_factor_beyond = 1;
  std::uint64_t looping_dram_beyond_bytes = 0;
  double shared_bytes_per_cycle = 0;  // per SM; 0: not modelled
  double dram_bytes_per_cycle = 0;    // the whole device; 0: not modelled
  // Delivered writes and copies (reads plus writes) relative to reads of the same level.
  double write_factor = 1;
  double copy_factor = 1;
  // Triads (two reads to one write, all three arrays' bytes counted) relative to reads. Where
  // the description gives none: the 2:1 mix's time at the read and write rates,
  // triad_factor_of(write_factor).
  double triad_factor = 1;
  // Triad3s (three reads to one write, four arrays' bytes) likewise: triad_factor_of(write_factor,
  // 3) where the description gives none.
  double triad3_factor = 1;
  // Load (or store) instructions an SM issues per cycle, each moving 32 x vector bytes; 0: no
  // limit. What makes narrow vectors slower than wide ones.
  double load_instructions_per_cycle = 0;
  std::uint32_t max_threads_per_sm = kDefaultMaxThreadsPerSm;  // more do not fit on an SM
  double launch_jitter =
      0;  // every timed launch lasts (1 + u x launch_jitter) x its time, u in [-1, 1]
  // Device facts for the API's DRAM peak (memory clock x bus width x 2); 0: not reported.
  std::uint64_t memory_clock_khz = 0;
  std::uint32_t memory_bus_width_bits = 0;
};

// A triad's rate over the read rate when its `reads` reads run at the read rate and its write at
// write_factor times it: reads + 1 bytes in reads + 1 / write_factor read-byte times.
inline double triad_factor_of(double write_factor, double reads = 2) {
  return (reads + 1) / (reads + 1 / write_factor);
}

}  // namespace memtopo::sim
