#include "backend/sim/warp_access_runner.hpp"

#include <algorithm>
#include <vector>

#include "backend/sim/chase_runner.hpp"  // kOverheadSamples
#include "backend/sim/noise.hpp"
#include "backend/sim/random_streams.hpp"
#include "backend/sim/shared_banks.hpp"

namespace memtopo::sim {
namespace {

enum WarpAccessStream : std::uint64_t { kWarpRecordNoiseStream, kWarpOverheadNoiseStream };

double median_of(std::vector<std::uint32_t> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  if (samples.size() % 2 == 1) return samples[mid];
  return (static_cast<double>(samples[mid - 1]) + samples[mid]) / 2;
}

}  // namespace

Trace run_warp_access(const WarpAccessSpec& spec, const SimDescription& description,
                      std::uint32_t sm, std::uint64_t seed) {
  const SharedMemoryDescription& shared = description.shared_memory;
  const std::vector<std::uint64_t> addresses(spec.lane_offsets.begin(), spec.lane_offsets.end());
  const std::uint32_t degree =
      bank_conflict_degree(addresses, spec.word_bytes, shared.banks, shared.bank_width_bytes);
  const std::uint32_t cycles = shared.latency * degree + description.timing_overhead;

  Trace trace;
  trace.sm_id = sm;
  trace.clock_khz = static_cast<double>(description.clock_khz);
  Noise record_noise(description.noise, derive_seed(seed, kWarpRecordNoiseStream));
  trace.cycles.resize(spec.timed_accesses);
  for (std::uint32_t& record : trace.cycles) record = record_noise.apply(cycles);
  trace.indices.assign(spec.timed_accesses, spec.lane_offsets[0] / 4);

  Noise overhead_noise(description.noise, derive_seed(seed, kWarpOverheadNoiseStream));
  trace.overhead_samples.resize(kOverheadSamples);
  for (std::uint32_t& sample : trace.overhead_samples) {
    sample = overhead_noise.apply(description.timing_overhead);
  }
  trace.overhead_cycles = median_of(trace.overhead_samples);
  return trace;
}

}  // namespace memtopo::sim
