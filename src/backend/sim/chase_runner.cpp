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

// One chaser's walk along one chain (its chase, or its eviction sweep): the chain's order is
// shared, the chaser adds its segment's word offset (private segments) and its array's base.
struct Walk {
  Route route;
  std::uint64_t base_address;  // byte address of word 0 of the array
  std::uint32_t word_shift;    // chain_order(spec, k) = chain_order(spec) + this
  std::size_t position;        // index into the chain order of the next word to load
};

struct Chaser {
  Walk chase;
  Walk sweep;  // unused without an eviction sweep
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
  // same words without materialising footprint_bytes / 4 of them on the host. Segment k's chain
  // is segment 0's shifted by k segments (chain_order(spec, k)), so one order serves all.
  const std::vector<std::uint32_t> order = chain_order(spec);
  const std::size_t start = static_cast<std::size_t>(
      std::find(order.begin(), order.end(), spec.start_index) - order.begin());
  const std::vector<std::uint32_t> sweep_order =
      spec.eviction ? chain_order(eviction_chain_spec(spec)) : std::vector<std::uint32_t>{};
  const std::uint64_t segment_words = segment_bytes(spec) / 4;

  memory.start_chase(placement.sm, derive_seed(placement.seed, kMemoryStream),
                     placement.carveout_step);
  std::vector<Chaser> chasers;
  chasers.reserve(spec.chasers);
  for (std::uint32_t c = 0; c < spec.chasers; ++c) {
    const auto shift = static_cast<std::uint32_t>(spec.private_segments ? c * segment_words : 0);
    Chaser chaser{{memory.route(spec.path, c), placement.base_address, shift, start}, {}};
    if (spec.eviction) {
      chaser.sweep = {memory.route(spec.eviction->path, c), placement.sweep_base_address, 0, 0};
    }
    chasers.push_back(std::move(chaser));
  }

  Trace trace;
  trace.sm_id = placement.sm;
  trace.clock_khz = static_cast<double>(description.clock_khz);
  const std::size_t records = std::size_t{spec.chasers} * spec.timed_loads;
  trace.cycles.resize(records);
  trace.indices.resize(records);

  Noise record_noise(description.noise, derive_seed(placement.seed, kRecordNoiseStream));
  const auto load = [&](Walk& walk, const std::vector<std::uint32_t>& chain) {
    const std::uint32_t word = chain[walk.position] + walk.word_shift;
    if (++walk.position == chain.size()) walk.position = 0;
    return std::pair{word,
                     memory.load_latency(walk.route, walk.base_address + std::uint64_t{4} * word)};
  };
  const auto record = [&](std::uint32_t c, std::uint32_t i) {
    const std::size_t slot = std::size_t{c} * spec.timed_loads + i;
    const auto [word, cycles] = load(chasers[c].chase, order);
    trace.indices[slot] = word;
    trace.cycles[slot] = record_noise.apply(cycles + description.timing_overhead);
  };

  // The phases every chaser goes through, in order: warm passes, eviction sweeps, timed loads.
  // step(c, i) makes chaser c's i-th load of a phase (generic lambdas: no call overhead per load).
  const std::uint64_t warm_loads = std::uint64_t{spec.warm_passes} * order.size();
  const std::uint64_t sweep_loads =
      spec.eviction ? std::uint64_t{spec.eviction->passes} * sweep_order.size() : 0;
  const auto warm = [&](std::uint32_t c, std::uint64_t) { load(chasers[c].chase, order); };
  const auto sweep = [&](std::uint32_t c, std::uint64_t) { load(chasers[c].sweep, sweep_order); };
  const auto timed = [&](std::uint32_t c, std::uint64_t i) {
    record(c, static_cast<std::uint32_t>(i));
  };
  if (spec.schedule == ChaserSchedule::sequential) {
    const auto alone = [](std::uint32_t c, std::uint64_t loads, const auto& step) {
      for (std::uint64_t i = 0; i < loads; ++i) step(c, i);
    };
    for (std::uint32_t c = 0; c < spec.chasers; ++c) {
      alone(c, warm_loads, warm);
      alone(c, sweep_loads, sweep);
      alone(c, spec.timed_loads, timed);
    }
  } else {
    const auto in_turns = [&](std::uint64_t loads, const auto& step) {
      for (std::uint64_t i = 0; i < loads; ++i) {
        for (std::uint32_t c = 0; c < spec.chasers; ++c) step(c, i);
      }
    };
    in_turns(warm_loads, warm);
    in_turns(sweep_loads, sweep);
    in_turns(spec.timed_loads, timed);
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
