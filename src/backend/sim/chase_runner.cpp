#include "backend/sim/chase_runner.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "backend/chain.hpp"
#include "backend/sim/noise.hpp"
#include "backend/sim/random_streams.hpp"

namespace memtopo::sim {
namespace {

enum Stream : std::uint64_t { kMemoryStream, kRecordNoiseStream, kOverheadNoiseStream };

struct Chaser {
  Route route;
  std::size_t position;  // index into the chain order of the next word to load
};

double median(std::vector<std::uint32_t> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  if (samples.size() % 2 == 1) return samples[mid];
  return (static_cast<double>(samples[mid - 1]) + samples[mid]) / 2;
}

}  // namespace

Trace run_chase(const ChaseSpec& spec, const ChasePlacement& placement, MemorySystem& memory,
                const SimDescription& description) {
  // The order is the chain build_chain writes into memory; walking it by position visits the
  // same words without materialising footprint_bytes / 4 of them on the host.
  const std::vector<std::uint32_t> order = chain_order(spec);
  const std::size_t start = static_cast<std::size_t>(
      std::find(order.begin(), order.end(), spec.start_index) - order.begin());

  memory.start_chase(placement.sm, derive_seed(placement.seed, kMemoryStream));
  std::vector<Chaser> chasers;
  chasers.reserve(spec.chasers);
  for (std::uint32_t c = 0; c < spec.chasers; ++c) {
    chasers.push_back({memory.route(spec.path, c), start});
  }

  Trace trace;
  trace.sm_id = placement.sm;
  trace.clock_khz = static_cast<double>(description.clock_khz);
  const std::size_t records = std::size_t{spec.chasers} * spec.timed_loads;
  trace.cycles.resize(records);
  trace.indices.resize(records);

  Noise record_noise(description.noise, derive_seed(placement.seed, kRecordNoiseStream));
  const auto load = [&](Chaser& chaser) {
    const std::uint32_t word = order[chaser.position];
    if (++chaser.position == order.size()) chaser.position = 0;
    return std::pair{
        word, memory.load_latency(chaser.route, placement.base_address + std::uint64_t{4} * word)};
  };
  const auto record = [&](Chaser& chaser, std::size_t slot) {
    const auto [word, cycles] = load(chaser);
    trace.indices[slot] = word;
    trace.cycles[slot] = record_noise.apply(cycles + description.timing_overhead);
  };

  const std::uint64_t warm_loads = std::uint64_t{spec.warm_passes} * order.size();
  if (spec.schedule == ChaserSchedule::sequential) {
    for (std::uint32_t c = 0; c < spec.chasers; ++c) {
      for (std::uint64_t i = 0; i < warm_loads; ++i) load(chasers[c]);
      for (std::uint32_t i = 0; i < spec.timed_loads; ++i) {
        record(chasers[c], std::size_t{c} * spec.timed_loads + i);
      }
    }
  } else {
    for (std::uint64_t i = 0; i < warm_loads; ++i) {
      for (Chaser& chaser : chasers) load(chaser);
    }
    for (std::uint32_t i = 0; i < spec.timed_loads; ++i) {
      for (std::uint32_t c = 0; c < spec.chasers; ++c) {
        record(chasers[c], std::size_t{c} * spec.timed_loads + i);
      }
    }
  }

  Noise overhead_noise(description.noise, derive_seed(placement.seed, kOverheadNoiseStream));
  trace.overhead_samples.resize(kOverheadSamples);
  for (std::uint32_t& sample : trace.overhead_samples) {
    sample = overhead_noise.apply(description.timing_overhead);
  }
  trace.overhead_cycles = median(trace.overhead_samples);
  return trace;
}

}  // namespace memtopo::sim
