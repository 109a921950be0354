#pragma once
// A warp-wide shared-memory access, repeated in a dependent chain and timed access by access
// (paper 000, 3.1: the stride method for shared-memory banks). Plain data, like ChaseSpec: every
// lane of one warp loads one word at its own byte offset; the word there holds that offset, so
// the next access depends on the value the previous one returned and cannot start before it.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "backend/experiment.hpp"

namespace memtopo {

// Lanes of the warp that runs a warp access (NVIDIA's warp size; the backends check it).
inline constexpr std::uint32_t kWarpLanes = 32;

// Word sizes one lane may load: ld.shared.u32, .v2.u32 (64 bits), .v4.u32 (128 bits).
inline constexpr std::uint32_t kWarpWordSizes[] = {4, 8, 16};

struct WarpAccessSpec {
  // Byte offset each lane loads from, inside the experiment's own shared-memory area, which
  // starts at a 16-byte boundary. Each a multiple of word_bytes. Lanes may share a word
  // (broadcast, multicast).
  std::array<std::uint32_t, kWarpLanes> lane_offsets{};
  std::uint32_t word_bytes = 4;      // 4, 8 or 16
  std::uint32_t warm_accesses = 8;   // untimed accesses of the warp before the timed ones
  std::uint32_t timed_accesses = 0;  // recorded accesses of the warp
};

// Bytes of shared memory the spec's lanes address: the largest offset plus one word.
std::uint64_t area_bytes(const WarpAccessSpec& spec);

// Checks a spec for consistency (word size 4, 8 or 16, offsets multiples of it, at least one
// timed access). Throws ExperimentError naming the problem.
void validate(const WarpAccessSpec& spec);

// The accesses a spec makes on the device (warm and timed), counted per warp instruction.
std::uint64_t accesses_of(const WarpAccessSpec& spec);

// The capability (Backend::warp_access()): runs a batch of warp accesses one after another on
// one SM, each alone, and returns one trace per spec, in order: `cycles` per timed access of the
// warp (clock before the load and after the dependent store, lane 0's), `indices` the word index
// (offset / 4) lane 0 loaded each time, the timing overhead measured with a whole warp's store.
class WarpAccessExperiments {
 public:
  virtual ~WarpAccessExperiments() = default;
  virtual std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch) = 0;
};

}  // namespace memtopo
