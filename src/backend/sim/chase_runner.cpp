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
  std::uint64_t word_shift;    // chain_order(spec, k) = chain_order(spec) + this
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

// The phases every chaser goes through, in order.
enum class Phase { warm, sweep, timed, done };

// One chase on a memory whose slot `slot` has been started for it: its chasers, its trace and
// where it stands. run_alone() makes every load in tight loops; step() makes one load at a time
// in the same order, so that several chases can take turns.
class ChaseRun {
 public:
  ChaseRun(const ChaseSpec& spec, const ChasePlacement& placement, std::size_t slot,
           MemorySystem& memory, const SimDescription& description)
      : spec_(spec),
        description_(description),
        memory_(memory),
        seed_(placement.seed),
        // run_chase's spec passed validate (SimBackend::run's check_runnable), and so does
        // the sweep of a valid spec: neither is validated again.
        order_(wide_order(spec, SpecCheck::validated_by_caller)),
        sweep_order_(spec.eviction
                         ? wide_order(eviction_chain_spec(spec), SpecCheck::validated_by_caller)
                         : std::vector<std::uint64_t>{}),
        record_noise_(description.noise, derive_seed(placement.seed, kRecordNoiseStream)) {
    // The order is the chain build_chain writes into memory; walking it by position visits the
    // same words without materialising footprint_bytes / 4 of them on the host. Segment k's
    // chain is segment 0's shifted by k segments (chain_order(spec, k)), so one order serves all.
    // A wide chain starts at its first element.
    const std::uint64_t start_word = is_wide(spec) ? order_.front() : spec.start_index;
    const std::size_t start = static_cast<std::size_t>(
        std::find(order_.begin(), order_.end(), start_word) - order_.begin());
    const std::uint64_t segment_words = segment_bytes(spec) / 4;
    chasers_.reserve(spec.chasers);
    for (std::uint32_t c = 0; c < spec.chasers; ++c) {
      const std::uint64_t shift = spec.private_segments ? c * segment_words : 0;
      Chaser chaser{{memory.route(slot, spec.path, c), placement.base_address, shift, start}, {}};
      if (spec.eviction) {
        chaser.sweep = {memory.route(slot, spec.eviction->path, c), placement.sweep_base_address, 0,
                        0};
      }
      chasers_.push_back(std::move(chaser));
    }
    trace_.sm_id = placement.sm;
    trace_.clock_khz = static_cast<double>(description.clock_khz);
    const std::size_t records = std::size_t{spec.chasers} * spec.timed_loads;
    trace_.cycles.resize(records);
    if (is_wide(spec)) {
      trace_.wide_indices.resize(records);
    } else {
      trace_.indices.resize(records);
    }
    warm_loads_ = std::uint64_t{spec.warm_passes} * order_.size();
    sweep_loads_ = spec.eviction ? std::uint64_t{spec.eviction->passes} * sweep_order_.size() : 0;
    phase_ = first_phase_from(Phase::warm);
  }

  // Every load of the chase, phase by phase (generic lambdas: no call overhead per load).
  void run_alone() {
    const auto warm = [&](std::uint32_t c, std::uint64_t) { warm_load(c); };
    const auto sweep = [&](std::uint32_t c, std::uint64_t) { sweep_load(c); };
    const auto timed = [&](std::uint32_t c, std::uint64_t i) { timed_load(c, i); };
    if (spec_.schedule == ChaserSchedule::sequential) {
      const auto alone = [](std::uint32_t c, std::uint64_t loads, const auto& step) {
        for (std::uint64_t i = 0; i < loads; ++i) step(c, i);
      };
      for (std::uint32_t c = 0; c < spec_.chasers; ++c) {
        alone(c, warm_loads_, warm);
        alone(c, sweep_loads_, sweep);
        alone(c, spec_.timed_loads, timed);
      }
    } else {
      const auto in_turns = [&](std::uint64_t loads, const auto& step) {
        for (std::uint64_t i = 0; i < loads; ++i) {
          for (std::uint32_t c = 0; c < spec_.chasers; ++c) step(c, i);
        }
      };
      in_turns(warm_loads_, warm);
      in_turns(sweep_loads_, sweep);
      in_turns(spec_.timed_loads, timed);
    }
    phase_ = Phase::done;
  }

  // Makes the chase's next load, in the order run_alone() makes them; false when none is left.
  bool step() {
    if (phase_ == Phase::done) return false;
    switch (phase_) {
      case Phase::warm:
        warm_load(chaser_);
        break;
      case Phase::sweep:
        sweep_load(chaser_);
        break;
      default:
        timed_load(chaser_, index_);
        break;
    }
    advance();
    return true;
  }

  // The trace, with its timer-overhead samples, once every load has been made.
  Trace finish() {
    Noise overhead_noise(description_.noise, derive_seed(seed_, kOverheadNoiseStream));
    trace_.overhead_samples.resize(kOverheadSamples);
    for (std::uint32_t& sample : trace_.overhead_samples) {
      sample = overhead_noise.apply(description_.timing_overhead);
    }
    trace_.overhead_cycles = median(trace_.overhead_samples);
    return std::move(trace_);
  }

 private:
  std::pair<std::uint64_t, std::uint32_t> load(Walk& walk,
                                               const std::vector<std::uint64_t>& chain) {
    const std::uint64_t word = chain[walk.position] + walk.word_shift;
    if (++walk.position == chain.size()) walk.position = 0;
    return {word, memory_.load_latency(walk.route, walk.base_address + std::uint64_t{4} * word)};
  }
  void warm_load(std::uint32_t c) { load(chasers_[c].chase, order_); }
  void sweep_load(std::uint32_t c) { load(chasers_[c].sweep, sweep_order_); }
  void timed_load(std::uint32_t c, std::uint64_t i) {
    const std::size_t slot = std::size_t{c} * spec_.timed_loads + i;
    const auto [word, cycles] = load(chasers_[c].chase, order_);
    if (is_wide(spec_)) {
      trace_.wide_indices[slot] = word;
    } else {
      trace_.indices[slot] = static_cast<std::uint32_t>(word);
    }
    trace_.cycles[slot] = record_noise_.apply(cycles + description_.timing_overhead);
  }

  std::uint64_t loads_in(Phase phase) const {
    switch (phase) {
      case Phase::warm:
        return warm_loads_;
      case Phase::sweep:
        return sweep_loads_;
      case Phase::timed:
        return spec_.timed_loads;
      default:
        return 0;
    }
  }
  // The first phase from `phase` on that has loads (done when none has).
  Phase first_phase_from(Phase phase) const {
    while (phase != Phase::done && loads_in(phase) == 0) {
      phase = static_cast<Phase>(static_cast<int>(phase) + 1);
    }
    return phase;
  }
  Phase next_phase() const {
    return first_phase_from(static_cast<Phase>(static_cast<int>(phase_) + 1));
  }
  // Moves to the next load: sequential chasers finish every phase before the next chaser
  // starts; concurrent ones take turns within a phase.
  void advance() {
    if (spec_.schedule == ChaserSchedule::sequential) {
      if (++index_ < loads_in(phase_)) return;
      index_ = 0;
      phase_ = next_phase();
      if (phase_ == Phase::done && ++chaser_ < spec_.chasers) {
        phase_ = first_phase_from(Phase::warm);
      }
      return;
    }
    if (++chaser_ < spec_.chasers) return;
    chaser_ = 0;
    if (++index_ < loads_in(phase_)) return;
    index_ = 0;
    phase_ = next_phase();
  }

  const ChaseSpec& spec_;
  const SimDescription& description_;
  MemorySystem& memory_;
  std::uint64_t seed_;
  // Word indices in visiting order, 64-bit for wide and 32-bit chains alike.
  std::vector<std::uint64_t> order_;
  std::vector<std::uint64_t> sweep_order_;
  Noise record_noise_;
  std::vector<Chaser> chasers_;
  Trace trace_;
  std::uint64_t warm_loads_ = 0;
  std::uint64_t sweep_loads_ = 0;
  // Where step() stands: the phase, the chaser and the load within the phase.
  Phase phase_ = Phase::warm;
  std::uint32_t chaser_ = 0;
  std::uint64_t index_ = 0;
};

}  // namespace

Trace run_chase(const ChaseSpec& spec, const ChasePlacement& placement, MemorySystem& memory,
                const SimDescription& description) {
  memory.start_chase(placement.sm, derive_seed(placement.seed, kMemoryStream),
                     placement.carveout_step);
  ChaseRun run(spec, placement, 0, memory, description);
  run.run_alone();
  return run.finish();
}

std::vector<Trace> run_chases_together(std::span<const ChaseSpec> specs,
                                       std::span<const ChasePlacement> placements,
                                       MemorySystem& memory, const SimDescription& description) {
  std::vector<SmStart> slots;
  for (const ChasePlacement& placement : placements) {
    slots.push_back(
        SmStart{placement.sm, derive_seed(placement.seed, kMemoryStream), placement.carveout_step});
  }
  memory.start_chases(slots);
  std::vector<ChaseRun> runs;
  runs.reserve(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    runs.emplace_back(specs[i], placements[i], i, memory, description);
  }
  for (bool any = true; any;) {
    any = false;
    for (ChaseRun& run : runs) any = run.step() || any;
  }
  std::vector<Trace> traces;
  traces.reserve(runs.size());
  for (ChaseRun& run : runs) traces.push_back(run.finish());
  return traces;
}

}  // namespace memtopo::sim
