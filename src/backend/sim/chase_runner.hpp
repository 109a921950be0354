#pragma once
// Runs pointer chases on the simulated memory and records them as a GPU kernel would.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/sim/description.hpp"
#include "backend/sim/memory_system.hpp"

namespace memtopo::sim {

// Where one chase runs and which random draws it gets.
struct ChasePlacement {
  std::uint32_t sm = 0;
  std::uint64_t base_address = 0;  // byte address of word 0 of the chase array
  std::uint64_t seed = 0;          // every random draw of the chase derives from it
  // Byte address of word 0 of the eviction sweep's array (specs with an eviction sweep only);
  // the backend places it apart from every chase array.
  std::uint64_t sweep_base_address = 0;
  std::size_t carveout_step = 0;  // the unified L1/shared configuration (carveout.hpp)
};

// Number of timer-overhead samples a trace carries, as a kernel would take them.
inline constexpr std::uint32_t kOverheadSamples = 32;

// Runs a spec that passed memtopo::validate on `memory`, which starts cold. Each chaser loads
// warm_passes x chain_length words untimed, then (with an eviction sweep) walks the sweep's
// sequential chain `passes` times untimed on the sweep's path, then loads timed_loads recorded
// words, continuing its chase. With private segments chaser k walks chain_order(spec, k).
// Sequential chasers run one after the other, concurrent ones take turns load by load in each
// phase. A record is the load's latency plus the description's timing_overhead plus noise.
Trace run_chase(const ChaseSpec& spec, const ChasePlacement& placement, MemorySystem& memory,
                const SimDescription& description);

// Runs the specs together, as concurrent blocks on the placements' SMs: each on cold caches and
// TLBs of its own SM, all sharing the device caches (cold at the start). The chases take turns
// load by load (spec 0, 1, ..., 0, 1, ...), each making its loads in the order run_chase would;
// a chase that has finished drops out of the turns. One trace per spec, as run_chase records.
std::vector<Trace> run_chases_together(std::span<const ChaseSpec> specs,
                                       std::span<const ChasePlacement> placements,
                                       MemorySystem& memory, const SimDescription& description);

}  // namespace memtopo::sim
